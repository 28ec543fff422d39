"""Functional transforms built on ``ag.grad``: Jacobians, Hessians and their products.

Each takes a function ``fn`` of one or more tensors and the points ``inputs`` to evaluate at.
Reverse mode gives one row of the Jacobian per backward pass (a vector-Jacobian product vᵀJ);
forward-mode products (Jv) are obtained with the double-backward trick.
"""
import numpy as np

from .engine import grad
from .grad_mode import enable_grad
from .ops.shape import stack
from .tensor import make_tensor, raw_data, Tensor


def _prepare(inputs, create_graph):
    single = isinstance(inputs, Tensor)
    inputs = (inputs,) if single else tuple(inputs)
    fresh = tuple(make_tensor(x._data, None).requires_grad_(True) if not create_graph
                  else (x if x.requires_grad else x.detach().requires_grad_(True))
                  for x in inputs)
    return single, fresh


def _zeros_if_none(g, x):
    return make_tensor(np.zeros(x.shape, x.dtype), None) if g is None else g


def vjp(fn, inputs, v=None, create_graph=False):
    """(fn(inputs), vᵀ J): the vector-Jacobian product, one backward pass.

    ``v`` has the output's shape (may be omitted for a scalar output).
    """
    single, xs = _prepare(inputs, create_graph)
    with enable_grad():
        out = fn(*xs)
        gs = grad(out, xs, None if v is None else v, create_graph=create_graph,
                  allow_unused=True)
    gs = tuple(_zeros_if_none(g, x) for g, x in zip(gs, xs))
    return out if create_graph else out.detach(), gs[0] if single else gs


def jvp(fn, inputs, v, create_graph=False):
    """(fn(inputs), J v): the Jacobian-vector product, by differentiating u ↦ uᵀJ at any u
    (it is linear in u) along v."""
    single, xs = _prepare(inputs, True)
    vs = (v,) if single else tuple(v)
    with enable_grad():
        out = fn(*xs)
        u = make_tensor(np.zeros(out.shape, out.dtype), None).requires_grad_(True)
        gs = grad(out, xs, u, create_graph=True, allow_unused=True)
        pairs = [(g, vv) for g, vv in zip(gs, vs) if g is not None]
        total = sum(((g * raw_data(vv)).sum() for g, vv in pairs))
        jv, = grad(total, [u], create_graph=create_graph, allow_unused=True)
    jv = _zeros_if_none(jv, out)
    return (out if create_graph else out.detach()), (jv if create_graph else jv.detach())


def jacobian(fn, inputs, create_graph=False):
    """The Jacobian ∂fn/∂inputs, shape ``out.shape + input.shape`` (a tuple for several
    inputs). One backward pass per output element."""
    single, xs = _prepare(inputs, create_graph)
    with enable_grad():
        out = fn(*xs)
        rows = [[] for _ in xs]
        for i in range(out.numel()):
            onehot = np.zeros(out.numel(), out.dtype)
            onehot[i] = 1
            gs = grad(out, xs, onehot.reshape(out.shape), retain_graph=True,
                      create_graph=create_graph, allow_unused=True)
            for k, (g, x) in enumerate(zip(gs, xs)):
                rows[k].append(_zeros_if_none(g, x))
    jacs = tuple(stack(r).reshape(out.shape + x.shape) if create_graph
                 else Tensor(np.stack([g._data for g in r]).reshape(out.shape + x.shape))
                 for r, x in zip(rows, xs))
    return jacs[0] if single else jacs


def hessian(fn, inputs, create_graph=False):
    """The Hessian ∂²fn/∂xᵢ∂xⱼ of a scalar function, shape ``xᵢ.shape + xⱼ.shape``: the Jacobian
    of its gradient. For several inputs, a tuple of tuples (``H[i][j]``) as PyTorch."""
    single = isinstance(inputs, Tensor)
    xs = (inputs,) if single else tuple(inputs)

    def gradient_part(i):
        def g(*args):
            gs = grad(fn(*args), args, create_graph=True, allow_unused=True)
            return _zeros_if_none(gs[i], args[i])
        return g

    if single:
        return jacobian(gradient_part(0), inputs, create_graph)
    return tuple(jacobian(gradient_part(i), xs, create_graph) for i in range(len(xs)))


def hvp(fn, inputs, v, create_graph=False):
    """(fn(inputs), H v): the Hessian-vector product, as the gradient of ⟨∇fn, v⟩
    (two backward passes, never forming H)."""
    single, xs = _prepare(inputs, True)
    vs = (v,) if single else tuple(v)
    with enable_grad():
        out = fn(*xs)
        gs = grad(out, xs, create_graph=True, allow_unused=True)
        dot = sum((g * raw_data(vv)).sum()
                  for g, vv in zip(gs, vs) if g is not None)
        hv = grad(dot, xs, create_graph=create_graph, allow_unused=True)
    hv = tuple(_zeros_if_none(h, x) for h, x in zip(hv, xs))
    hv = tuple(h if create_graph else h.detach() for h in hv)
    return (out if create_graph else out.detach()), (hv[0] if single else hv)
