"""``torch.amp`` in dagrad: automatic mixed precision, which dagrad does not have; its two names
exist so that programs written for it run, in full precision.

``autocast(...)`` is a context manager (and decorator) that changes nothing: operations run in
their tensors' own dtypes. ``GradScaler`` scales nothing: ``scale(loss)`` is ``loss``,
``step(optimizer)`` is ``optimizer.step()``, ``update()`` and ``unscale_`` do nothing, as
PyTorch's ``GradScaler(enabled=False)``. Asked to enable either (the default of both), they
warn once that they are disabled, as PyTorch's do on a machine without CUDA
(``torch.cuda.amp.GradScaler()`` there: "CUDA is not available. Disabling").
"""
import functools
import warnings

from ._missing import forward_to

_WHY = ("dagrad has no mixed precision: it computes on the CPU in each tensor's own dtype "
        "(float32 or float64)")


class autocast:
    """``with torch.autocast("cuda", dtype=torch.float16):``: the block runs unchanged (in
    full precision); with ``enabled=True`` a warning says so. Also a decorator."""

    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None,
                 _stacklevel=2):
        self.device_type, self.fast_dtype, self._enabled = device_type, dtype, False
        if enabled:
            warnings.warn(f"torch.autocast(device_type={device_type!r}) is disabled: {_WHY}",
                          UserWarning, stacklevel=_stacklevel)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, function):
        @functools.wraps(function)
        def in_autocast(*args, **kwargs):
            with self:
                return function(*args, **kwargs)
        return in_autocast


class GradScaler:
    """PyTorch's loss scaler for float16 training, disabled: every method is what PyTorch's
    does with ``enabled=False``. With ``enabled=True`` (the default) a warning says it is
    disabled."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True, _stacklevel=2):
        self._device, self._enabled = device, False
        if enabled:
            warnings.warn(f"GradScaler is enabled, but {_WHY}. Disabling.", UserWarning,
                          stacklevel=_stacklevel)

    def scale(self, outputs):
        """The outputs unchanged (a disabled scaler multiplies by nothing)."""
        return outputs

    def unscale_(self, optimizer):
        """Nothing to unscale."""

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step(*args, **kwargs)``, and what it returns."""
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Nothing to update."""

    def get_scale(self):
        return 1.0

    def is_enabled(self):
        return False

    def state_dict(self):
        return {}

    def load_state_dict(self, state_dict):
        """A disabled scaler keeps no state, as PyTorch's."""


class CudaAutocast(autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``:
    ``autocast("cuda", ...)`` with the older signature."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype, enabled, cache_enabled, _stacklevel=3)


class CudaGradScaler(GradScaler):
    """``torch.cuda.amp.GradScaler(init_scale, ..., enabled)``: ``GradScaler("cuda", ...)``
    with the older signature."""

    def __init__(self, init_scale=2.0 ** 16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled, _stacklevel=3)


__getattr__ = forward_to("torch.amp")
