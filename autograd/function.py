"""``Function``: one recorded operation, i.e. one node of the compute graph.

An operation is a subclass with two methods, written next to each other so the local derivative
stands beside the forward computation::

    class Mul(Function):
        '''z = a * b;   dz/da = b,   dz/db = a'''
        def forward(ctx, a, b):          # plain ndarrays in, ndarray out
            ctx.save(a, b)               # what backward needs
            return a * b

        rules = {"a": "δ_a = δ_out · b", "b": "δ_b = δ_out · a"}

        def backward(ctx, grad):         # dL/dz in, one dL/d(input) per input out
            a, b = ctx.saved
            return grad * b, grad * a

``rules`` states the local rule per input in the lessons' notation (δ is ∂L/∂·), the one
statement of the derivative that the quiz, foreign graphs and ``check_backward`` read
(``autograd/rules.py`` gives its form).

The contract between an operation and the engine:

* ``backward`` returns the plain formula. If an input was broadcast by the forward, its
  gradient may come back in the output's shape: the engine sums it down to the input's shape
  (recorded by ``apply``), once, after the call. ``Mul`` above works for ``(3, 4) * (4,)``.
* ``ctx.needs_input_grad[i]`` says whether input ``i`` wants a gradient; a formula may skip
  work for the others by returning None there (the engine ignores what they get anyway).
* Everything ``backward`` reads that is an array goes through ``ctx.save``, so the engine can
  check it for in-place changes and free it after backward: positional values are the
  forward's inputs and its output (the array it returns: ``ctx.save(x, y)``, as PyTorch's
  ``save_for_backward(output)``, or ``ctx.save(x, output=y)``), read back from ``ctx.saved``;
  named ones (``ctx.save(x, mask=m)``, read back as ``ctx.mask``) are constants such as masks,
  indices or activations the fast path reuses. The output is the last positional save, as
  ``output=y`` or as the array itself (``ctx.save(x, y)``: ``link`` knows it by identity);
  any other positional value that is no input is a constant on both paths, as in PyTorch.
  Numbers, shapes and flags stay plain attributes (``ctx.axis = axis``).

``ctx`` is the node itself (an instance of the subclass). ``backward`` is written once for two
paths:

* the fast path (the default): ``grad`` and ``ctx.saved`` are ndarrays and ``ctx.xp`` is NumPy;
  nothing is recorded and no Tensor is created;
* ``create_graph=True`` (``ctx.create_graph`` is True): ``grad`` and ``ctx.saved`` are Tensors
  and ``ctx.xp`` is :mod:`autograd.xp`, whose functions are recorded operations, so the
  gradient itself becomes a graph that can be differentiated again (higher-order derivatives).
  Named saves stay ndarrays: they are constants on both paths.

So a formula may use operators and ``ctx.xp.<function>`` but never call NumPy directly on
``grad`` or on a positional saved value.
"""
import numpy as np

from .accumulate_grad import next_functions
from .anomaly import check_finite
from .errors import describe_failure, real_result
from .grad_mode import STATE
from .lazy_grads import LazyGrad
from .recording import note_values
from .sums import sum_leading
from .tensor import Tensor, make_tensor, new_object
from .versions import WRITES
from .xp import NUMPY, TENSOR

_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)   # results that need no check


class Function:
    """Base class of all operations. See the module docstring for how to write one.

    A node keeps what backward needs: the fields every recorded node sets are in ``__slots__``;
    the rarely set ones (``module``, ``saved_names``, ``saves_output``, ``hooks``,
    ``retained``) read the class's default until set, and then live in the node's own dict with
    the operation's own attributes (``ctx.axis``). After backward (``retain_graph=False``) a
    node holds no array and no tensor. What pictures and export want besides (output values,
    input tensors, keyword attributes) is noted by ``autograd/recording.py`` inside
    ``record()``, not here.

    Set by ``apply`` when the node is recorded:
        parents: one entry per input, the thing its gradient goes to: the Function that
            produced it, the leaf Tensor itself, or None when that input needs no gradient
            (``needs_input_grad`` reads it).
        input_shapes: one entry per input, its shape (None when it needs no gradient); the
            engine sums each gradient down to it (undoing broadcasting).
        inputs: the node's inputs, kept only when it saved something (the differentiable
            path rebuilds its saves from them), else ``()``: a leaf, a constant or a tensor
            that needs no gradient as itself; an input some operation produced as its array
            (its history is its parent), unless the node's positional saves are only its own
            output, or none (named constants only): then ``NOT_KEPT``, as the differentiable
            path rebuilds nothing else. ReLU saves its output, so the convolution's output
            before it is freed as soon as ReLU has run (LeNet's step over its floor 1.21x ->
            1.14x). Freed after backward.
        tick: the clock of in-place writes when the node was recorded (``versions.py``).
        module: the path of the nn.Module that ran this operation (e.g. ``encoder.0``), or
            None; anomaly messages name it and viz groups nodes by it.

    Set by ``save`` (and ``apply``, to nothing) and freed after backward
    (``retain_graph=False``):
        saved: the positional saves (inputs, then the output when ``output=`` was given);
            ``saves_output`` says whether the last one is the output.
        saved_names: the names of the constants saved as ``ctx.save(name=array)``.
        released: True once backward has freed them (``saved`` is then ``RELEASED``).

    Set by ``Tensor`` and by the engine:
        hooks: hooks registered on the output tensor (it is not a leaf), or None.
        retained: a weakref to the output tensor when ``retain_grad()`` was called on it.
        watched: True when backward must do more here than call the formula: the output
            tensor has hooks or retains its gradient, or the saves were released. One flag,
            so the engine's common case reads one field, not three.
        xp: the array namespace backward computes with (NumPy, or recorded operations under
            ``create_graph=True``; ``create_graph`` says which). Not a field of its own: the
            engine sets it on the node for the length of a backward with ``create_graph``.

    Set by the operation's class:
        returns_view: True when the output may share the input's memory (slicing, reshape,
            transpose, flip): the output tensor keeps its input (``views.mark_view``), and
            an in-place change of it records the input's new history through
            ``write_back(base, view)`` (``inplace.py``).
        dtype_rule: how ``apply`` converts or checks the inputs before ``forward``
            (PyTorch's type promotion, ``autograd/dtypes.py``), or None to pass them as they
            are.
        rules: the local rule per input, ``{"a": "δ_a = δ_out · b", ...}`` (``rules.py``).
        saves_read_by: for a binary operation, the positions in ``saved`` that each input's
            gradient reads (``Mul``: ``((1,), (0,))``, dz/da reads b, dz/db reads a), or None
            (every gradient reads everything). When only one input needs a gradient, the
            engine's in-place check looks only at what that gradient reads, as PyTorch saves
            only that: ``z = y * 2.0; y.mul_(2)`` leaves z's backward alone.
        takes_lazy_grad: True when the fast-path backward accepts a lazy gradient
            (``lazy_grads.py``) as it is, instead of the engine making it an array first.
    """

    __slots__ = ("parents", "input_shapes", "inputs", "tick", "saved", "watched", "__weakref__")
    # Set on few nodes: the class's value until set, then in the node's own dict (where an
    # operation's own attributes, ``ctx.axis``, live too). Each field in __slots__ costs a
    # store on every node an operation records.
    module = None
    saved_names = ()
    saves_output = False
    hooks = None
    retained = None
    xp = NUMPY
    returns_view = False
    dtype_rule = None
    rules = {}
    saves_read_by = None
    takes_lazy_grad = False

    def save(ctx, *arrays, output=None, **constants):
        """Keep input ``arrays`` and the forward's ``output`` (last: ``output=y``, or the
        last of ``arrays``, as PyTorch's ``save_for_backward(output)``) for backward, and
        named ``constants`` (masks, indices, cached activations) as attributes of ``ctx``."""
        if output is None:
            ctx.saved = arrays
        else:
            ctx.saved = arrays + (output,)
            ctx.saves_output = True
        if constants:
            ctx.__dict__.update(constants)
            ctx.saved_names = tuple(constants)

    @property
    def needs_input_grad(ctx):
        """One bool per input: does its gradient go anywhere? (PyTorch's name.)"""
        parents = ctx.parents
        if len(parents) == 2:       # binary operations, the common case: 4x faster than below
            return parents[0] is not None, parents[1] is not None
        return tuple([p is not None for p in parents])

    @property
    def released(ctx):
        """True once backward has freed what the node saved (``retain_graph=False``)."""
        return ctx.saved is RELEASED

    @property
    def create_graph(ctx):
        """True inside ``create_graph=True``: backward runs on Tensors and is recorded."""
        return ctx.xp is not NUMPY

    @property
    def next_functions(ctx):
        """PyTorch's ``grad_fn.next_functions``: ``(node, 0)`` per input (``accumulate_grad``)."""
        return next_functions(ctx)

    @property
    def name(ctx):
        """The operation's name as shown in errors and pictures, e.g. ``Mul``."""
        return type(ctx).__name__

    def forward(ctx, *arrays, **attrs):  # pragma: no cover - every operation overrides it
        raise NotImplementedError(f"{type(ctx).__name__} does not define forward")

    def backward(ctx, grad):  # pragma: no cover - every operation overrides it
        raise NotImplementedError(f"{type(ctx).__name__} does not define backward")

    def write_back(ctx, base, view):  # pragma: no cover - every view operation overrides it
        """For an operation that ``returns_view``: the input's values as a recorded operation
        of the (changed) ``view``, given ``base``, a stand-in for the input's old history."""
        raise NotImplementedError(f"{type(ctx).__name__} does not define write_back")

    @classmethod
    def apply(cls, *inputs, **attrs):
        """Run the operation on ``inputs`` (Tensors or constants); returns a Tensor.

        Four steps: convert the inputs (the operation's ``dtype_rule``, PyTorch's type
        promotion: a fast guard, then the rule), run ``forward`` on their arrays, link the
        node into the graph as the output's ``grad_fn`` (when grad mode is on and an input
        requires a gradient), and note what anomaly mode, module paths and ``record()`` ask
        for.
        """
        ctx = cls()
        ctx.saved = ()
        rule = cls.dtype_rule                                                   # 1. convert
        if rule is None:
            arrays = [x._data if isinstance(x, Tensor) else x for x in inputs]
        elif (arrays := rule.fast(inputs)) is None:
            inputs, arrays = rule(cls, inputs)
        try:                                                                    # 2. forward
            out = ctx.forward(*arrays, **attrs)
        except (ValueError, TypeError) as e:
            raise type(e)(describe_failure(ctx.name, arrays, e)) from None
        if type(out) is not np.ndarray or (dt := out.dtype) is not _F32 and dt is not _F64:
            out = real_result(ctx, out, arrays)     # a number, or not floating point: checked
                                                    # (two identity tests: the cheapest check)
        state = STATE
        frame = state.fast            # grad mode on, nothing to note (one thread-local read)
        if frame is not False:
            if frame.path is not None:     # ... but the path of the module running
                ctx.module = frame.path
            return ctx.link(inputs, out)                                        # 3. link
        result = ctx.link(inputs, out) if state.enabled else make_tensor(out, None)
        ctx.note(state, result, inputs, attrs)                                  # 4. note
        return result

    def link(ctx, inputs, out):
        """The output array ``out`` as a Tensor whose history (``grad_fn``) is this node, unless
        no input requires a gradient. The node records where each input's gradient goes
        (``parents``), its shape and, when it saved something, the input itself (``inputs``, see
        the class docstring; a view keeps its input: ``views.mark_view``)."""
        saved = ctx.saved
        saves = saved or ctx.saved_names
        count = len(inputs)
        if count == 2:          # two and one inputs written out: through the loop, W1 (100
            a, b = inputs       # of them) costs 5% and 3% more instructions
            pa = (a.grad_fn or a) if isinstance(a, Tensor) and a.requires_grad else None
            pb = (b.grad_fn or b) if isinstance(b, Tensor) and b.requires_grad else None
            if pa is None and pb is None:
                return make_tensor(out, None)
            ctx.parents = (pa, pb)
            ctx.input_shapes = (None if pa is None else a._data.shape,
                                None if pb is None else b._data.shape)
            keep = saved and saved[0] is not out    # else an operation's output is NOT_KEPT
            ctx.inputs = (a if pa is None or pa is a else a._data if keep else NOT_KEPT,
                          b if pb is None or pb is b else b._data if keep else NOT_KEPT
                          ) if saves else ()
        elif count == 1:
            x, = inputs
            if not (isinstance(x, Tensor) and x.requires_grad):
                return make_tensor(out, None)
            parent = x.grad_fn or x
            ctx.parents, ctx.input_shapes = (parent,), (x._data.shape,)
            ctx.inputs = (x if parent is x else x._data if saved and saved[0] is not out
                          else NOT_KEPT,) if saves else ()
        elif not ctx.link_inputs(inputs, saves, saved, out):
            return make_tensor(out, None)
        if saved and saved[-1] is out:   # ctx.save(x, y): as output=y (save_for_backward(y))
            ctx.saves_output = True
        ctx.tick = WRITES.tick
        ctx.watched = False
        result = new_object(Tensor)     # make_tensor(out, ctx) written out: every recorded
        result._data = out              # operation makes one, and the call is 1% of W1
        result.grad_fn = ctx
        result.requires_grad = True
        result._version = 0
        return result

    def link_inputs(ctx, inputs, saves, saved, out):
        """``link``'s record of any number of inputs: each input's parent, shape and kept
        value, gathered in lists and made tuples once (linear in the number of inputs: a stack
        of 100,000). False, recording nothing, when no input requires a gradient."""
        parents, shapes, kept = [], [], []
        keep = saved and saved[0] is not out
        for x in inputs:
            if isinstance(x, Tensor) and x.requires_grad:
                parent = x.grad_fn or x
                parents.append(parent)
                shapes.append(x._data.shape)
                kept.append(x if parent is x else x._data if keep else NOT_KEPT)
            else:
                parents.append(None)
                shapes.append(None)
                kept.append(x)
        if shapes.count(None) == len(shapes):
            return False
        ctx.parents, ctx.input_shapes = tuple(parents), tuple(shapes)
        ctx.inputs = tuple(kept) if saves else ()
        return True

    def note(ctx, state, result, inputs, attrs):
        """What the switches of ``grad_mode`` ask besides recording: detect_anomaly checks
        the output, the running module's path is kept, and inside ``record()`` the values
        viz and export read are noted (``autograd/recording.py``)."""
        if state.frame.path is not None:
            ctx.module = state.frame.path
        if state.anomaly:
            check_finite(ctx, result._data, "forward", state.hook)
        if state.values and result.grad_fn is ctx:
            note_values(ctx, inputs, result._data, attrs)

    def __repr__(ctx):
        where = f" in {ctx.module}" if ctx.module else ""
        return f"<{ctx.name}{where}>"


class _NotKept:
    """The type of ``NOT_KEPT``, what ``inputs`` holds for an input an operation produced
    when the node saved only its own output or named constants (it would only hold memory)."""
    __slots__ = ()

    def __repr__(self):
        return "NOT_KEPT"


NOT_KEPT = _NotKept()


class _Released(tuple):
    """The type of ``RELEASED``: an empty tuple that says why it is empty."""
    __slots__ = ()


# What a node's ``saved`` becomes when backward frees it. Marking the release in ``saved``
# instead of in a new attribute matters: setting two attributes a node did not have yet
# (``released`` and ``watched``) made Python give every node a full dict of its own, 190 MB
# more for a million-node graph.
RELEASED = _Released()


def unbroadcast(grad, shape):
    """Undo broadcasting: sum ``grad`` down to ``shape``.

    If an input of shape ``shape`` was broadcast to the output's shape, every output element it
    fed contributes to its gradient, so the gradient is the sum over the broadcast axes: the
    leading axes broadcasting added, and the axes where ``shape`` has size 1. Works on ndarrays
    and on Tensors alike. The engine calls it on every gradient an operation returns, so this
    is the one place the library undoes broadcasting. A compact gradient of the fast path
    (``lazy_grads.py``) becomes its array first.
    """
    if isinstance(grad, LazyGrad):
        grad = grad.dense()
    if grad.shape == shape:
        return grad
    lead = len(grad.shape) - len(shape)
    stretched = tuple(lead + i for i, n in enumerate(shape)
                      if n == 1 and grad.shape[lead + i] != 1)
    if not stretched:                 # only added leading axes (a bias): one BLAS product
        return sum_leading(grad, lead).reshape(shape)
    grad = grad.sum(axis=tuple(range(lead)) + stretched, keepdims=True)
    return grad.reshape(shape)


def create_graph_backward(node, grad):
    """Run ``node``'s backward on Tensors with recorded operations (``create_graph=True``):
    ``ctx.xp`` is ``xp.TENSOR`` and ``ctx.saved`` the saves as graph-connected Tensors for the
    length of the call."""
    arrays = node.saved
    node.xp, node.saved = TENSOR, _saved_as_tensors(node)
    try:
        return node.backward(grad)
    finally:
        del node.xp
        node.saved = arrays


def _saved_as_tensors(node):
    """The positional saves as graph-connected Tensors, for the differentiable backward: an
    input's array becomes that input (a tensor with the input's history: its parent), the
    output (the last save, ``ctx.save(x, y)`` or ``ctx.save(x, output=y)``) a tensor produced
    by ``node`` itself; anything else is a constant. Named saves stay ndarrays."""
    saved = node.saved
    result = []
    for k, s in enumerate(saved):
        if node.saves_output and k == len(saved) - 1:
            result.append(make_tensor(s, node))
            continue
        for x, parent in zip(node.inputs, node.parents):
            if x is s and isinstance(s, np.ndarray):   # kept as its array (see Function.inputs)
                result.append(make_tensor(s, parent if isinstance(parent, Function) else None))
                break
            if isinstance(x, Tensor) and x._data is s:
                result.append(x)
                break
        else:
            result.append(make_tensor(s, None) if isinstance(s, np.ndarray) else s)
    return tuple(result)
