"""``torch.Tensor`` and the legacy types ``torch.FloatTensor``, ``torch.LongTensor``, ...: for
``isinstance`` they are dagrad's Tensor (of that dtype), called they are PyTorch's legacy
constructors (``autograd.creation.legacy_new``): ``torch.Tensor([1, 2])`` is float32 and
``torch.Tensor(5)`` has five elements, as in PyTorch, while ``torch.tensor(data)`` keeps the
data's type.
"""
import numpy as np

from dagrad.autograd import Tensor as _Tensor
from dagrad.autograd.creation import _LEGACY_NAMES, legacy_new
from dagrad.autograd.default_dtype import get_default_dtype


class _LegacyType(type):
    """The metaclass: calling builds with ``legacy_new``; ``isinstance`` checks dagrad's
    Tensor (and, for the typed ones, the dtype)."""

    def __call__(cls, *args, device=None):
        return legacy_new(cls.legacy_dtype if cls.typed else get_default_dtype(), *args,
                          device=device)

    def __instancecheck__(cls, obj):
        return isinstance(obj, _Tensor) and (cls.typed is False or obj.dtype == cls.legacy_dtype)

    def __subclasscheck__(cls, sub):
        return isinstance(sub, type) and issubclass(sub, _Tensor) and cls.typed is False


class Tensor(_Tensor, metaclass=_LegacyType):
    """``torch.Tensor``: dagrad's Tensor for ``isinstance`` and its methods
    (``torch.Tensor.add``); ``torch.Tensor(data)`` has the default dtype (float32 unless
    ``torch.set_default_dtype``), ``torch.Tensor(2, 3)`` is a 2 × 3 tensor."""

    __slots__ = ()
    legacy_dtype = np.dtype(np.float32)
    typed = False


def _typed(name, dtype):
    return _LegacyType(name, (Tensor,), {"__slots__": (), "legacy_dtype": np.dtype(dtype),
                                         "typed": True, "__module__": "torch",
                                         "__doc__": f"torch.{name}: a CPU tensor of {dtype}"})


globals().update({name: _typed(name, dtype) for dtype, name in _LEGACY_NAMES.items()})
Tensor.__module__ = "torch"
