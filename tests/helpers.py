"""Test helpers shared by the whole suite."""
import numpy as np
import pytest

from dagrad import autograd as ag


def torch_or_skip():
    """PyTorch, the reference for parity tests; skip with the reason when it is not installed."""
    return pytest.importorskip(
        "torch", reason="PyTorch is the reference for parity tests: pip install -e '.[parity]' in the checkout")


def random_inputs(shapes, domain="normal", seed=0):
    """float64 arrays of the given shapes, drawn from ``domain`` (normal | positive | unit)."""
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in shapes:
        if domain == "positive":
            arrays.append(rng.uniform(0.5, 2.0, size=shape))
        elif domain == "unit":
            arrays.append(rng.uniform(-0.9, 0.9, size=shape))
        else:
            arrays.append(rng.standard_normal(size=shape))
    return arrays


def leaves(arrays):
    """float64 autograd leaves requiring grad."""
    return [ag.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]


def assert_close(actual, expected, rtol=1e-7, atol=1e-9, what=""):
    """Compare an autograd/torch tensor or array with another, with a readable message."""
    a = _np(actual)
    e = _np(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != {e.shape}"
    np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what)


def _np(x):
    if isinstance(x, ag.Tensor):
        return x.numpy()
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def torch_parity(fn, torch_fn, arrays, rtol=1e-7, atol=1e-9, seed=1, dtype=np.float64):
    """Run ``fn`` on autograd leaves and ``torch_fn`` on torch leaves made from the same
    ``arrays`` cast to ``dtype``; compare outputs (dtype included) and the gradients of
    Σ w⊙out (w random) for every input."""
    torch = torch_or_skip()
    xs = [ag.tensor(np.array(a, dtype=dtype), requires_grad=True) for a in arrays]
    ts = [torch.tensor(np.array(a, dtype=dtype), requires_grad=True) for a in arrays]
    out = fn(*xs)
    tout = torch_fn(*ts)
    assert str(out.dtype) == str(tout.dtype).removeprefix("torch."), (out.dtype, tout.dtype)
    assert_close(out, tout, rtol, atol, "forward value")
    w = np.random.default_rng(seed).standard_normal(out.shape).astype(dtype)
    (out * ag.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for k, (x, t) in enumerate(zip(xs, ts)):
        expected = np.zeros(t.shape) if t.grad is None else t.grad
        got = np.zeros(x.shape) if x.grad is None else x.grad
        assert_close(got, expected, rtol, atol, f"gradient of input {k}")


def module_parity(ours, theirs, arrays, rtol=1e-7, atol=1e-9, seed=1):
    """Copy a torch module's weights into ``ours`` the documented way (its state_dict converted
    to NumPy, through ``load_state_dict``), run both in float64 on the same inputs (floating
    arrays require grad, integer arrays are indices) and compare the outputs, the gradients of
    Σ w⊙out for every floating input and every parameter (by name), and the state dicts after
    the call (running statistics). Returns (ours_output, torch_output)."""
    torch = torch_or_skip()
    theirs.double()
    ours.double()
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    arrays = [np.asarray(a) for a in arrays]
    floating = [np.issubdtype(a.dtype, np.floating) for a in arrays]
    xs = [ag.tensor(a.astype(np.float64) if f else a, requires_grad=f)
          for a, f in zip(arrays, floating)]
    ts = [torch.tensor(a.astype(np.float64) if f else a, requires_grad=f)
          for a, f in zip(arrays, floating)]
    out, tout = ours(*xs), theirs(*ts)
    assert_close(out, tout, rtol, atol, "forward value")
    w = np.random.default_rng(seed).standard_normal(out.shape)
    (out * ag.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for k, (x, t, f) in enumerate(zip(xs, ts, floating)):
        if f:
            assert_close(x.grad, t.grad, rtol, atol, f"gradient of input {k}")
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        expected = theirs_params[name].grad
        expected = np.zeros(p.shape) if expected is None else expected
        assert_close(np.zeros(p.shape) if p.grad is None else p.grad, expected, rtol, atol,
                     f"gradient of parameter {name}")
    theirs_state = theirs.state_dict()
    for name, value in ours.state_dict().items():
        assert_close(value, theirs_state[name], rtol, atol, f"state {name}")
    return out, tout


def calling(base, lib, module, call):
    """A ``base`` module (``nn.Module`` or ``torch.nn.Module``) with ``module`` as its child
    "module" and forward ``call(lib, module, *inputs)``, ``lib`` being autograd or torch: lets
    ``module_parity`` compare modules called with keyword arguments or returning several
    outputs (``call`` combines them into one tensor)."""
    class Calling(base):
        def __init__(self):
            super().__init__()
            self.module = module

        def forward(self, *inputs):
            return call(lib, self.module, *inputs)
    return Calling()


@pytest.fixture(scope="module")
def one_torch_thread():
    """Run PyTorch on one thread for a test module (use it with ``autouse`` or by name): its
    threaded float64 kernels for tiny grouped convolutions are ~100x slower than one thread
    when test workers share the cores."""
    try:
        import torch
    except ImportError:
        yield
        return
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def one_blas_thread():
    """Run NumPy's BLAS on one thread for a test module (use it with ``autouse`` or by name):
    with two test workers on two cores, each BLAS call's extra threads spin waiting for a core,
    and training loops of small matrix products become 10-50x slower."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:         # ships with scikit-learn, part of the test extra
        yield
        return
    with threadpool_limits(1, user_api="blas"):
        yield


class Hung(BaseException):      # not an OSError, which a reader under test might catch
    """Raised by ``outcome_within`` when its call does not return in time."""


def outcome_within(seconds, call):
    """``["returns", value]`` or ``[exception name, message, is a ValueError]`` for ``call()``,
    interrupted after ``seconds`` by an alarm (which also breaks a blocked ``open`` of a FIFO)
    that raises ``Hung``. For subprocesses of ``run_bounded``: the main thread only."""
    import signal

    def hung(*args):
        raise Hung(f"the call did not return within {seconds} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(seconds)
    try:
        return ["returns", call()]
    except BaseException as e:     # what is raised is what the caller checks
        return [type(e).__name__, str(e)[:400], isinstance(e, ValueError)]
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def run_bounded(code, seconds=60, memory=3 << 30):
    """Run the Python source ``code`` in a fresh process that cannot hang the suite or take the
    machine's memory: killed after ``seconds`` (reported as ``returncode`` None) and limited to
    ``memory`` bytes of address space, so a regression to blocking on a FIFO, reading
    ``/dev/zero`` without end or overflowing the C stack fails its test instead of hanging
    it. Returns the ``subprocess.CompletedProcess`` (text output)."""
    import os
    import resource
    import subprocess
    import sys

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=seconds, preexec_fn=limit, env=env, cwd=root)
    except subprocess.TimeoutExpired as e:
        def text(out):
            return out.decode(errors="replace") if isinstance(out, bytes) else out or ""
        return subprocess.CompletedProcess(e.cmd, None, text(e.stdout), text(e.stderr))
