"""One recurrent layer in one direction over a whole sequence as one operation, for any cell
(``cell.py``): the skeleton every cell's sequence operation is.

Why one operation: per step, an unrolled graph costs a few recorded operations, gate gradients
assembled from zero blocks and summed by the engine, and a slice of the input projections. On
the W4 benchmark (hidden 256, 32 steps, batch 32) the LSTM layer took 1.32x the CPU time of the
same step written by hand in NumPy unrolled, and about 1.1x as one operation
(docs/performance.md).
"""
import numpy as np

from ...blas import product
from ...dtypes import floating
from ...function import Function
from ...xp import NUMPY, tensor_namespace
from .cell import stack_steps
from .product import RecurrentGates


class Weights:
    """A cell's weights, ``w[k]``, and the product a step makes with its k-th: ``times``.

    ``transposed``: Wₖᵀ of each matrix as a C-contiguous array (made once per sequence: BLAS
    multiplies by it faster than by W's transposed view), or None. ``recorded``: the weights
    are Tensors and each product is one recorded ``RecurrentGates`` operation; otherwise they
    are ndarrays and the product is computed on the spot."""

    __slots__ = ("values", "transposed", "recorded")

    def __init__(self, values, transposed=None, recorded=False):
        self.values, self.transposed, self.recorded = values, transposed, recorded

    def __getitem__(self, k):
        return self.values[k]

    def times(self, v, k, plus=None):
        """plus + v Wₖᵀ (``plus`` may be None: then v Wₖᵀ)."""
        w_t = None if self.transposed is None else self.transposed[k]
        if self.recorded:
            return RecurrentGates.apply(plus, v, self.values[k], weight_t=w_t)
        out = product(v, self.values[k].T if w_t is None else w_t)
        if plus is not None:
            out += plus                 # in place: ``out`` is the product's new array
        return out


class Joins:
    """Where ``cell.step_grads`` puts a step's gradients: ``join(k, parts)`` concatenates
    ``parts`` along the last axis into slot k at step ``t`` and returns it. On the fast path
    each slot is one (T, N, width) buffer written in place; recorded, a list of T steps."""

    def __init__(self, xp, steps):
        self.xp, self.steps, self.t, self.slots = xp, steps, steps - 1, {}

    def __call__(self, k, parts):
        slot = self.slots.get(k)
        if self.xp is NUMPY:
            if slot is None:
                first = parts[0]
                width = sum(p.shape[-1] for p in parts)
                slot = self.slots[k] = np.empty((self.steps,) + first.shape[:-1] + (width,),
                                                first.dtype)
            return np.concatenate(parts, axis=-1, out=slot[self.t])
        if slot is None:
            slot = self.slots[k] = [None] * self.steps
        slot[self.t] = (parts[0] if len(parts) == 1 else
                        self.xp.concatenate(parts, axis=parts[0].ndim - 1))
        return slot[self.t]

    def stacked(self):
        """Every slot as one (T, N, width) array or recorded tensor, in slot order."""
        return [self.slots[k] if self.xp is NUMPY else stack_steps(self.xp, self.slots[k])
                for k in sorted(self.slots)]


def unroll(xp, cell, xs, state, w):
    """``cell``'s steps over ``xs`` (one x_t per step, in the order they run) from ``state``:
    the state before every step and after the last (T + 1 tuples), and what each step kept."""
    states, kept = [state], []
    for x in xs:
        state, k = cell.step(xp, x, state, w)
        states.append(state)
        kept.append(k)
    return states, kept


def run_steps(cell, xs, state, weights, transposed=None):
    """``cell``'s steps as recorded operations, one ``RecurrentGates`` per product and the
    gate arithmetic as the elementary operations (what ``viz.record()`` draws): xs a list of
    (N, G·H) Tensors in the order the steps run, ``state`` a tuple of (N, H) Tensors. Returns
    the state after every step (T + 1 tuples, the initial one first)."""
    w = Weights(weights, transposed, recorded=True)
    return unroll(tensor_namespace(), cell, xs, state, w)[0]


class Sequence(Function):
    """A recurrent layer in one direction over T steps as one operation, for the cell
    ``cell`` (each cell's file names its own subclass, e.g. ``LSTMSequence``)::

        (h_t, …) = cell.step(xs_t, (h_{t-1}, …)),   t = 1 … T

    Inputs: xs (T, N, G·H), the input projections of all steps (with the biases a cell does
    not read itself); the initial state, one (N, H) array per part (h0, and c0 for an LSTM);
    the cell's weights (``cell.weights``). ``weight_t``: the transposes of the cell's matrices
    as C-contiguous arrays (they must hold the weights' values), or None. Other keyword
    options configure the cell (``nonlinearity`` for the RNN). Returns h₁ … h_T, then the last
    value of every other part of the state: (T, N, H), for an LSTM (T+1, N, H) ending in c_T.

    Backward: backpropagation through time, ``cell.step_grads`` at each step from t = T down
    to 1, starting from the output's gradient at T; at each t - 1 the output's gradient there
    joins dL/dh_{t-1}. Then ``cell.weight_grads`` once over all steps. Under
    ``create_graph=True`` the forward runs again as recorded operations and the same loop runs
    on them, so the gradient can be differentiated again.
    """

    cell = None
    dtype_rule = floating

    def forward(ctx, xs, *inputs, weight_t=None, **options):
        cell = ctx.cell = ctx.cell.configured(**options)
        parts = len(cell.states)
        w = Weights(inputs[parts:], weight_t)
        states, kept = unroll(NUMPY, cell, xs, tuple(inputs[:parts]), w)
        hs = np.stack([s[0] for s in states] + list(states[-1][1:]))   # h0 … h_T (, c_T)
        states = [(hs[t],) + s[1:] for t, s in enumerate(states)]     # keep the stacked h's
        out = hs[1:]
        ctx.save(xs, *inputs, output=out, states=states, kept=kept, hs=hs)
        return out

    def backward(ctx, grad):
        cell, xp = ctx.cell, ctx.xp
        xs, *inputs = ctx.saved[:-1]
        parts, steps = len(cell.states), xs.shape[0]
        if ctx.differentiable:      # the forward again, as recorded operations
            w = Weights(inputs[parts:], recorded=True)
            states, kept = unroll(xp, cell, [xs[t] for t in range(steps)],
                                  tuple(inputs[:parts]), w)
            hs = stack_steps(xp, [s[0] for s in states[:steps]])
        else:
            w = Weights(inputs[parts:])
            states, kept, hs = ctx.states, ctx.kept, ctx.hs[:steps]
        join = Joins(xp, steps)
        d_state = (grad[steps - 1],) + tuple(grad[steps + j] for j in range(parts - 1))
        for t in range(steps - 1, -1, -1):
            join.t = t
            d_state = cell.step_grads(xp, d_state, states[t], kept[t], w, join)
            if t:
                d_state = (d_state[0] + grad[t - 1],) + d_state[1:]
        grads = join.stacked()
        return (grads[0], *d_state, *cell.weight_grads(xp, grads, hs, states, kept, w))
