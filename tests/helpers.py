"""Test helpers shared by the whole suite."""
import numpy as np
import pytest

import autograd as ag


def torch_or_skip():
    """PyTorch, the reference for parity tests; skip with the reason when it is not installed."""
    return pytest.importorskip(
        "torch", reason="PyTorch is the reference for parity tests: pip install 'dagrad[parity]'")


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
        return x.data
    if hasattr(x, "detach"):
        return x.detach().cpu().numpy()
    return np.asarray(x)


def torch_parity(fn, torch_fn, arrays, rtol=1e-7, atol=1e-9, seed=1):
    """Run ``fn`` on autograd leaves and ``torch_fn`` on torch leaves made from the same float64
    ``arrays``; compare outputs and the gradients of Σ w⊙out (w random) for every input."""
    torch = torch_or_skip()
    xs = leaves(arrays)
    ts = [torch.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out = fn(*xs)
    tout = torch_fn(*ts)
    assert_close(out, tout, rtol, atol, "forward value")
    w = np.random.default_rng(seed).standard_normal(out.shape)
    (out * ag.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    for k, (x, t) in enumerate(zip(xs, ts)):
        expected = np.zeros(t.shape) if t.grad is None else t.grad
        got = np.zeros(x.shape) if x.grad is None else x.grad
        assert_close(got, expected, rtol, atol, f"gradient of input {k}")
