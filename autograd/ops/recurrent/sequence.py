"""One recurrent layer in one direction over a whole sequence as one operation, for any cell
(``cell.py``): the skeleton every cell's sequence operation is.

Why one operation: per step, an unrolled graph costs a few recorded operations, gate gradients
assembled from zero blocks and summed by the engine, and a slice of the input projections. On
the W4 benchmark (hidden 256, 32 steps, batch 32) the LSTM layer took 1.32x the CPU time of the
same step written by hand in NumPy unrolled, and about 1.1x as one operation
(docs/performance.md).
"""
from types import SimpleNamespace

import numpy as np

from ...blas import product
from ...dtypes import floating
from ...function import Function
from ...xp import NUMPY, TENSOR
from .cell import stack_steps
from .product import RecurrentGates

# What a step computes with: the namespace's functions, plus add, subtract, multiply, tanh and
# relu that take ``out=``, so that a step writes each part of its new state (and a gradient)
# straight into its row of the operation's output on the fast path (recorded, ``out`` is None
# and ignored).
FAST = SimpleNamespace(**vars(NUMPY), add=np.add, subtract=np.subtract, multiply=np.multiply,
                       relu=lambda a, out=None: np.maximum(a, 0, out=out))
_RECORDED = []


def recorded():
    """The step namespace of recorded operations (made on first use: ``ops/__init__.py``
    installs them into ``xp.TENSOR`` after this module is imported)."""
    if not _RECORDED:
        xp = TENSOR
        _RECORDED.append(SimpleNamespace(
            **{**vars(xp), "tanh": lambda a, out=None: xp.tanh(a)},
            add=lambda a, b, out=None: a + b, subtract=lambda a, b, out=None: a - b,
            multiply=lambda a, b, out=None: a * b,
            relu=lambda a, out=None: a.relu()))
    return _RECORDED[0]


class Weights(tuple):
    """A cell's weights, ``w[k]``, and the product a step makes with its k-th: ``times``.

    ``transposed``: Wₖᵀ of each matrix as a C-contiguous array (made once per sequence: BLAS
    multiplies by it faster than by W's transposed view), or None. ``recorded``: the weights
    are Tensors and each product is one recorded ``RecurrentGates`` operation; otherwise they
    are ndarrays and the product is computed on the spot."""

    def __new__(cls, values, transposed=None, recorded=False):
        w = super().__new__(cls, values)
        w.transposed, w.recorded = transposed, recorded
        return w

    def times(self, v, k, plus=None, out=None):
        """plus + v Wₖᵀ (``plus`` may be None: then v Wₖᵀ), written into ``out`` if given."""
        w_t = None if self.transposed is None else self.transposed[k]
        if self.recorded:
            return RecurrentGates.apply(plus, v, self[k], weight_t=w_t)
        out = product(v, self[k].T if w_t is None else w_t, out=out)
        if plus is not None:
            out += plus                 # in place: ``out`` is the product's own array
        return out


class Joins:
    """Where ``cell.step_grads`` puts a step's gradients: ``join(k, parts)`` concatenates
    ``parts`` along the last axis into slot k at step ``t`` and returns it. On the fast path
    each slot is one (T, N, width) buffer written in place; recorded, a list of T steps.
    ``join.row(k, like)`` hands out slot k's row of this step, for a one-part gradient to be
    computed straight into it (``out=``), so that ``join`` then copies nothing."""

    def __init__(self, xp, steps):
        self.xp, self.steps, self.t, self.slots = xp, steps, steps - 1, {}
        self.given = None

    def buffer(self, k, parts):
        """Slot k's (T, N, width) buffer on the fast path, made at first use."""
        slot = self.slots.get(k)
        if slot is None:
            first = parts[0]
            width = sum(p.shape[-1] for p in parts)
            slot = self.slots[k] = np.empty((self.steps,) + first.shape[:-1] + (width,),
                                            first.dtype)
        return slot

    def row(self, k, like):
        """Slot k's row of this step, shaped like ``like`` (fast path), or None (recorded)."""
        if self.xp is not FAST:
            return None
        self.given = self.buffer(k, (like,))[self.t]
        return self.given

    def __call__(self, k, parts):
        if self.xp is FAST:
            if len(parts) == 1 and parts[0] is self.given:      # already in its row
                return parts[0]
            row = self.buffer(k, parts)[self.t]
            if len(parts) == 1:
                row[...] = parts[0]
                return row
            return np.concatenate(parts, axis=-1, out=row)
        slot = self.slots.get(k)
        if slot is None:
            slot = self.slots[k] = [None] * self.steps
        slot[self.t] = (parts[0] if len(parts) == 1 else
                        self.xp.concatenate(parts, axis=parts[0].ndim - 1))
        return slot[self.t]

    def stacked(self):
        """Every slot as one (T, N, width) array or recorded tensor, in slot order."""
        return [self.slots[k] if self.xp is FAST else stack_steps(self.xp, self.slots[k])
                for k in sorted(self.slots)]


def unroll(xp, cell, xs, state, w, rows=None):
    """``cell``'s steps over ``xs`` (one x_t per step, in the order they run) from ``state``:
    the state before every step and after the last (T + 1 tuples), and what each step kept.
    ``rows``: on the fast path, one (T + 1, N, H) buffer per part of the state, whose row
    t + 1 receives the state after step t (the step writes it there, else it is copied)."""
    states, kept = [state], []
    outs = zip(*(r[1:] for r in rows)) if rows is not None else [(None,) * len(state)] * len(xs)
    for x, out in zip(xs, outs):
        state, k = cell.step(xp, x, state, w, out)
        if rows is not None:
            for s, o in zip(state, out):
                if s is not o:
                    o[...] = s
            state = out
        states.append(state)
        kept.append(k)
    return states, kept


def run_steps(cell, xs, state, weights, transposed=None):
    """``cell``'s steps as recorded operations, one ``RecurrentGates`` per product and the
    gate arithmetic as the elementary operations (what ``viz.record()`` draws): xs a list of
    (N, G·H) Tensors in the order the steps run, ``state`` a tuple of (N, H) Tensors. Returns
    the state after every step (T + 1 tuples, the initial one first)."""
    w = Weights(weights, transposed, recorded=True)
    return unroll(recorded(), cell, xs, state, w)[0]


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
        parts, (steps, batch) = len(cell.states), xs.shape[:2]
        shape = (batch, inputs[0].shape[-1])
        # h0 … h_T, then the last value of the other parts (c_T); the other parts' own rows
        hs = np.empty((steps + parts,) + shape, xs.dtype)
        rows = [hs] + [np.empty((steps + 1,) + shape, xs.dtype) for _ in range(parts - 1)]
        for row, initial in zip(rows, inputs):
            row[0] = initial
        _, kept = unroll(FAST, cell, xs, tuple(r[0] for r in rows), Weights(inputs[parts:],
                                                                           weight_t), rows)
        for k, row in enumerate(rows[1:]):
            hs[steps + 1 + k] = row[steps]
        out = hs[1:]
        ctx.save(xs, *inputs, output=out, history=(hs[:steps + 1], *rows[1:]), kept=kept)
        return out

    def backward(ctx, grad):
        cell, xp = ctx.cell, ctx.xp
        xs, *inputs = ctx.saved[:-1]
        parts, steps = len(cell.states), xs.shape[0]
        if ctx.create_graph:      # the forward again, as recorded operations
            xp = recorded()
            w = Weights(inputs[parts:], recorded=True)
            states, kept = unroll(xp, cell, [xs[t] for t in range(steps)],
                                  tuple(inputs[:parts]), w)
            history = tuple(stack_steps(xp, [s[k] for s in states]) for k in range(parts))
        else:
            xp, w, history, kept = FAST, Weights(inputs[parts:]), ctx.history, ctx.kept
            states = list(zip(*history))
        join = Joins(xp, steps)
        d_state = (grad[steps - 1],) + tuple(grad[steps + k] for k in range(parts - 1))
        for t in range(steps - 1, -1, -1):
            join.t = t
            d_state = cell.step_grads(xp, d_state, states[t], kept[t], w, join)
            if t:       # in place on the fast path: step_grads returns new arrays
                d_state = (xp.add(d_state[0], grad[t - 1], out=d_state[0]),) + d_state[1:]
        grads = join.stacked()
        return (grads[0], *d_state, *cell.weight_grads(xp, grads, history, kept, w))
