"""``export``: run a model once, read the graph dagrad recorded, and write it as ONNX.

Tracing. The forward runs once with grad mode on, every parameter requiring a gradient, the
floating-point example inputs made leaves that require one, and ``record()`` on, so that
every operation is recorded with all its inputs (constants included), its keyword attributes
and its output. The recorded graph is then walked from the outputs back to the inputs
(iteratively), and each operation is turned into ONNX operators by its emitter in
``ops.EMITTERS``. Parameters and buffers become initializers named as in ``state_dict``.

What is fixed at export time, as in PyTorch's tracer: Python control flow (the branch taken for
the example inputs), sequence lengths of unrolled recurrent networks, and every tensor computed
without recording (masks, positions) -- these become constants. Integer inputs (token ids) are
found where an operation reads them as indices.
"""
import os

import numpy as np

from dagrad.autograd import Tensor, enable_grad
from dagrad.autograd.function import Function
from dagrad.autograd.graph import post_order
from dagrad.autograd.recording import noted, record
from dagrad.autograd.extras import missing_extra
from dagrad.nn.formats.atomic import atomic_write

from .graph import GraphBuilder
from .ops import EMITTERS


class UnsupportedOperationError(NotImplementedError):
    """An operation of the traced forward has no ONNX mapping."""


def export(model_or_fn, example_inputs, path, input_names=None, output_names=None,
           dynamic_axes=None, opset_version=17):
    """Write the computation of ``model_or_fn(*example_inputs)`` to ``path`` as an ONNX model.

    Args (PyTorch's ``torch.onnx.export``):
        model_or_fn: an ``nn.Module`` (traced in evaluation mode, as PyTorch's default
            ``training=TrainingMode.EVAL``, then put back in its mode; its parameters and
            buffers become initializers named as in ``state_dict()``) or any function of
            tensors (call ``model.eval()`` first when it runs a model's parts, e.g.
            ``vae.decode``).
        example_inputs: one Tensor/ndarray or a tuple of them; float inputs become float
            graph inputs, integer inputs (token ids) int64 ones.
        input_names, output_names: names of the graph's inputs and outputs (default
            ``input_0``..., ``output_0``...). Nested outputs (a tuple ``(logits, (h, c))``)
            are flattened in order.
        dynamic_axes: ``{name: {axis: "symbol"}}`` (or ``{name: [axis, ...]}``) for dimensions
            that may change, e.g. ``{"x": {0: "batch"}}``.
        opset_version: the ONNX opset (17 by default; 13 to 20 work).

    Returns the ``onnx.ModelProto`` (also saved to ``path``), checked with ``onnx.checker``.
    Raises ``UnsupportedOperationError`` naming the operation and its module path when an
    operation has no mapping.
    """
    try:
        import onnx
    except ImportError:
        raise missing_extra("dagrad.onnx.export", "onnx", extra="interchange") from None
    inputs = example_inputs if isinstance(example_inputs, (tuple, list)) else (example_inputs,)
    inputs = [x if isinstance(x, Tensor) else Tensor(np.asarray(x)) for x in inputs]
    input_names = _names(input_names, len(inputs), "input")
    leaves = [Tensor(x._data, requires_grad=True) if x.dtype.kind == "f" else x
              for x in inputs]
    named = _named_state(model_or_fn)
    outputs = _run(model_or_fn, leaves, named)
    output_names = _names(output_names, len(outputs), "output")

    b = GraphBuilder(onnx, opset_version)
    for name, x in zip(input_names, leaves):
        b.bind(x, name, x.dtype)
        b.bind(x._data, name, x.dtype)          # integer inputs are read as index arrays
        b.taken.add(name)
    for name, x in zip(input_names, leaves):
        axes = _axes((dynamic_axes or {}).get(name, {}), name)
        b.dynamic += [(x.shape[a], name, a % x.ndim) for a in axes]
    for name, t in named:
        if id(t) not in b.names:
            b.bind(t, name, t.dtype)
            b.taken.add(name)
    graph_outputs = []
    for node in _operations(outputs):
        _emit(b, _Operation(node))
    used = set()
    for name, out in zip(output_names, outputs):
        source = b.value(out)
        b.taken.add(name)
        b.nodes.append(onnx.helper.make_node("Identity", [source], [name], name=name))
        graph_outputs.append(_value_info(onnx, b, name, out, dynamic_axes, output=True))
    for node in b.nodes:
        used.update(node.input)
    initializers = [onnx.numpy_helper.from_array(np.ascontiguousarray(t._data), name)
                    for name, t in named if name in used]
    initializers += [i for i in b.initializers if i.name in used]
    graph = onnx.helper.make_graph(
        b.nodes, "dagrad", [_value_info(onnx, b, name, x, dynamic_axes)
                            for name, x in zip(input_names, leaves)],
        graph_outputs, initializers)
    model = onnx.helper.make_model(graph, producer_name="dagrad",
                                   opset_imports=[onnx.helper.make_opsetid("", opset_version)])
    onnx.checker.check_model(model, full_check=True)
    path = os.fspath(path)
    atomic_write(path, lambda f: f.write(model.SerializeToString()))
    return model


def _names(names, n, prefix):
    names = list(names) if names is not None else []
    if len(names) > n:
        raise ValueError(f"dagrad.onnx.export: {len(names)} {prefix} names given for {n} "
                         f"{prefix}s")
    return names + [f"{prefix}_{k}" for k in range(len(names), n)]


def _named_state(model):
    """(state_dict name, tensor) of a module's parameters and buffers; [] for a function."""
    if not hasattr(model, "named_parameters"):
        return []
    state = list(model.named_parameters())
    if hasattr(model, "named_buffers"):
        state += [(n, t) for n, t in model.named_buffers() if t is not None]
    return state


def _run(fn, inputs, named):
    """Run ``fn`` once recording every operation; returns its outputs, flattened."""
    params = [t for _, t in named if t.dtype.kind == "f"]
    flags = [t.requires_grad for t in params]
    training = getattr(fn, "training", None)
    if training is not None:
        fn.eval()
    try:
        for t in params:
            t.requires_grad = True
        with enable_grad(), record():
            result = fn(*inputs)
    finally:
        for t, flag in zip(params, flags):
            t.requires_grad = flag
        if training is not None:
            fn.train(training)
    outputs = []
    stack = [result]
    while stack:
        r = stack.pop(0)
        if isinstance(r, (tuple, list)):
            stack[:0] = list(r)
        elif isinstance(r, Tensor):
            outputs.append(r)
        else:
            raise TypeError(f"dagrad.onnx.export: the model returned a {type(r).__name__}; "
                            f"it must return Tensors (or tuples of them)")
    return outputs


def _operations(outputs):
    """The recorded operations behind ``outputs``, every one after the operations it reads."""
    roots = [t.grad_fn for t in outputs if t.grad_fn is not None]
    return [v for v in post_order(roots) if isinstance(v, Function)]


class _Operation:
    """A recorded operation as the emitters read it: the node (``node``, whose type picks the
    emitter; ``name`` and ``module`` name it) with what ``record()`` noted of it (its output
    ``value``, its ``inputs`` as passed, its keyword ``attrs``)."""

    __slots__ = ("node", "name", "module", "value", "inputs", "attrs")

    def __init__(self, node):
        note = noted(node)
        self.node, self.name, self.module = node, node.name, node.module
        self.value, self.inputs, self.attrs = ((None, node.inputs, None) if note is None else
                                               (note.value, note.inputs, note.attrs))


def _emit(b, op):
    node = op.node
    emitter = EMITTERS.get(type(node))
    where = f" in module '{node.module}'" if node.module else " (outside any module)"
    if emitter is None:
        raise UnsupportedOperationError(
            f"dagrad.onnx.export: operation '{node.name}'{where} has no ONNX mapping (output "
            f"shape {tuple(op.value.shape)}, {op.value.dtype}). Rewrite that part with supported "
            f"operations, or add an emitter for {type(node).__module__}.{node.name} to "
            f"dagrad.onnx.ops.EMITTERS")
    b.node = op
    try:
        out = emitter(b, op)
    except NotImplementedError as e:
        raise UnsupportedOperationError(f"dagrad.onnx.export: operation '{node.name}'{where}: "
                                        f"{e}") from None
    b.bind(node, out, op.value.dtype)
    b.node = None


def _value_info(onnx, b, name, tensor, dynamic_axes, output=False):
    """The declared type and shape of a graph input or output; dynamic axes get a symbol. An
    output dimension the user did not name but whose size is that of a dynamic input axis is
    declared unknown (it may follow that axis, as an RNN's final state follows the batch)."""
    dynamic_sizes = {size for size, _, _ in b.dynamic} if output else set()
    shape = [None if n in dynamic_sizes else n for n in tensor.shape]
    axes = _axes((dynamic_axes or {}).get(name, {}), name)
    for axis, symbol in axes.items():
        shape[axis] = symbol
    return onnx.helper.make_tensor_value_info(name, b.onnx_type(tensor.dtype), shape)


def _axes(axes, name):
    """{axis: symbol} from PyTorch's two forms of one entry of ``dynamic_axes``."""
    if isinstance(axes, (list, tuple)):
        return {a: f"{name}_dim_{a}" for a in axes}
    return dict(axes)
