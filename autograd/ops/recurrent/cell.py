"""What a recurrent cell is to dagrad: one time step and that step's gradients, written once
over an array namespace ``xp`` (NumPy on the fast path, recorded operations otherwise; see
``Function``), plus the gradients of its weights summed over all steps.

The operations run a cell three ways, always through these functions:

* ``Sequence`` (``sequence.py``): a whole layer in one direction as one operation; the steps
  over NumPy arrays, backpropagation through time in one loop of ``step_grads``, and under
  ``create_graph=True`` the same two loops over recorded operations;
* step by step as recorded operations (``run_steps``), where each step is wanted in the graph
  (``viz.record()``: pictures and ONNX export draw every gate);
* a single step (``nn.LSTMCell`` and the others) is a ``Sequence`` of one step.
"""
from ...blas import product
from ...sums import sum_leading


class Cell:
    """A recurrent cell: a subclass states its shape and writes three methods.

    Shape (class attributes):
        name: the layer family, e.g. "LSTM"; its sequence operation is ``LSTMSequence``.
        gates: G, the number of H-wide blocks of its input projection x Wᵢₕᵀ (…, G·H).
        states: the names of the state's parts, ("h",) or ("h", "c"); h comes first.
        weights: the names of the operation's inputs after the state, e.g. ("w_hh", "b_hh");
            the first ``products`` of them are matrices W that a step multiplies by
            (``w.times(v, k)`` = v Wₖᵀ), the others enter elementwise (a bias, peepholes) and
            may be None.

    The three methods, each for one step t except the last (``w`` holds the weights: ``w[k]``,
    and ``w.times(v, k, plus=a)`` = a + v Wₖᵀ, one product on whichever path):
        step(xp, x, state, w, out) -> (new state, kept): x (N, G·H) is the step's input
            projection and state a tuple of (N, H) arrays; ``kept`` is what the step's
            backward reads (the gates). ``out`` has one entry per part of the state: on the
            fast path the row of the operation's output where the new value goes, for the
            last function computing it (``xp.add``, ``xp.subtract``, ``xp.multiply``,
            ``xp.tanh``, ``xp.relu`` and ``w.times`` take ``out=``; a value computed elsewhere
            is copied there), recorded None.
        step_grads(xp, d_state, state, kept, w, join) -> d_state before the step: d_state is
            dL/d(new state) (a tuple like the state), ``state`` the state before the step.
            The step's gradients that the operation returns or sums over the steps are given
            to ``join(k, parts)``, which concatenates ``parts`` (…, width) into slot k of this
            step and returns the result; slot 0 is dL/dx, the gradient of the input projection.
            A one-part gradient may be computed into ``join.row(k, like)`` (``out=``; None
            when recorded), so that ``join`` copies nothing. The returned d_state holds new
            arrays: on the fast path the operation adds the output's gradient into dL/dh in
            place.
        weight_grads(xp, grads, history, kept, w) -> one gradient per weight (None where the
            weight is None): ``grads`` the slots, each (T, N, width) over all steps;
            ``history`` the state over time, one (T + 1, N, H) array per part (h₀ … h_T, ...);
            ``kept`` the list of every step's.
    """

    name = None
    gates = 1
    states = ("h",)
    weights = ()
    products = 0

    def configured(self, **options):
        """The cell with ``options`` (keyword attributes of its sequence operation) applied;
        a cell without options accepts none."""
        if options:
            raise TypeError(f"{self.name} cell takes no options, got {sorted(options)}")
        return self

    def layer_weights(self, w_hh, b_hh, peephole):
        """The operation's weights from a layer's parameters in PyTorch's layout: Wₕₕ
        (G·H, H), bₕₕ (G·H,) and the peephole weights (3H,), the last two possibly None.
        By default each weight is the parameter of its name (``w_hh``, ``b_hh``,
        ``peephole``)."""
        given = {"w_hh": w_hh, "b_hh": b_hh, "peephole": peephole}
        return tuple(given[name] for name in self.weights)

    def step(self, xp, x, state, w, out):  # pragma: no cover - every cell overrides it
        raise NotImplementedError(f"{self.name} cell does not define step")

    def step_grads(self, xp, d_state, state, kept, w, join):  # pragma: no cover
        raise NotImplementedError(f"{self.name} cell does not define step_grads")

    def weight_grads(self, xp, grads, history, kept, w):  # pragma: no cover
        raise NotImplementedError(f"{self.name} cell does not define weight_grads")


def blocks(a, n):
    """The n equal blocks of the last axis of ``a`` (views on the fast path)."""
    size = a.shape[-1] // n
    return [a[..., k * size:(k + 1) * size] for k in range(n)]


def transpose(xp, a):
    """aᵀ of a matrix (a view on the fast path)."""
    return xp.transpose(a, (1, 0))


def stack_steps(xp, steps):
    """A list of T (N, K) steps as one (T, N, K) array or recorded tensor."""
    return xp.concatenate([s[None] for s in steps], axis=0)


def weight_grad(xp, dgates, inputs):
    """Σ_t dgates_tᵀ inputs_t as one product over all steps: (T, N, G), (T, N, K) -> (G, K)."""
    flat = dgates.reshape((-1, dgates.shape[-1]))
    return product(transpose(xp, flat), inputs.reshape((-1, inputs.shape[-1])))


def step_sum(a):
    """Σ over the steps and the batch: (T, N, K) -> (K,) (a BLAS product on the fast path)."""
    return sum_leading(a, 2)
