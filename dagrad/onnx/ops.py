"""The one table from dagrad operations to ONNX operators: ``EMITTERS[op class] = emitter``.

An emitter ``emit(b, node)`` receives the ``GraphBuilder`` ``b`` and the traced operation
``node`` (its ``inputs``, keyword ``attrs``, output ``value`` and module path), adds the ONNX
nodes that compute the same output, and returns the name of that output. ``b.value(x, dtype)``
names an input (a traced tensor, a parameter, or a new initializer for a constant).

Fused operations become their ONNX operator where one exists (Linear -> Gemm, Normalize over
the trailing axes -> LayerNormalization, Conv2d -> Conv, MaxPool2d -> MaxPool) and a short
composition otherwise (attention probabilities: MatMul, Mul, Add, Softmax; GELU: Erf).
Recurrent networks export unrolled, one step per time step, as dagrad runs them under
``record()``: each step's product h Wᵀ (MatMul, Add) and its gates' elementary operations.
"""
import math

import numpy as np

from dagrad.autograd.ops import (activation, arithmetic, attention_ops, cast, conv, elementary,
                                 indexing, linalg, nn_ops, piecewise, pool, recurrent, reduction)
from dagrad.autograd.ops import shape as shape_ops   # "shape" names the local shapes below

INT64_MIN = -2 ** 63


def _args(b, node, dtype="output"):
    """The names of every input of ``node``, cast to the output's dtype (ONNX operators want
    operands of one type; dagrad's constants may be float64 or Python numbers)."""
    dtype = node.value.dtype if dtype == "output" else dtype
    return [b.value(x, dtype) for x in node.inputs]


def _elementwise(op_type):
    def emit(b, node):
        return b.op(op_type, _args(b, node))
    emit.__doc__ = f"dagrad's elementwise operation as ONNX {op_type}."
    return emit


def _shape(x):
    return tuple(np.shape(x._data if hasattr(x, "_data") else x))


# ----------------------------------------------------------------------- elementwise
def _leaky_relu(b, node):
    return b.op("LeakyRelu", _args(b, node), alpha=float(node.attrs["negative_slope"]))


def _elu(b, node):
    return b.op("Elu", _args(b, node), alpha=float(node.attrs["alpha"]))


def _softplus(b, node):
    """y = log(1 + exp(βx)) / β, and y = x where βx > threshold (PyTorch's rule)."""
    x, = _args(b, node)
    beta, threshold = node.attrs["beta"], node.attrs["threshold"]
    bx = b.op("Mul", [x, b.value(beta)])
    soft = b.op("Div", [b.op("Softplus", [bx]), b.value(beta)])
    above = b.op("Greater", [bx, b.value(threshold)], dtype=bool)
    return b.op("Where", [above, x, soft])


def _gelu(b, node):
    """½x(1 + erf(x/√2)), or with approximate="tanh" ½x(1 + tanh(√(2/π)(x + 0.044715x³)))."""
    x, = _args(b, node)
    if node.attrs["approximate"] == "tanh":
        cube = b.op("Mul", [b.op("Mul", [x, x]), x])
        inner = b.op("Add", [x, b.op("Mul", [cube, b.value(0.044715)])])
        core = b.op("Tanh", [b.op("Mul", [inner, b.value(math.sqrt(2 / math.pi))])])
    else:
        core = b.op("Erf", [b.op("Mul", [x, b.value(1 / math.sqrt(2))])])
    half_x = b.op("Mul", [x, b.value(0.5)])
    return b.op("Mul", [half_x, b.op("Add", [core, b.value(1.0)])])


def _where(b, node):
    cond, a, c = node.inputs
    return b.op("Where", [b.value(cond, bool), b.value(a, node.value.dtype),
                          b.value(c, node.value.dtype)])


def _clamp(b, node):
    x, = _args(b, node)
    lo, hi = node.attrs.get("lo"), node.attrs.get("hi")
    return b.op("Clip", [x, None if lo is None else b.value(np.asarray(lo, node.value.dtype)),
                         None if hi is None else b.value(np.asarray(hi, node.value.dtype))])


def _clamp_tensor(b, node):
    x, lo, hi = _args(b, node)
    return b.op("Min", [b.op("Max", [x, lo]), hi])


def _cast(b, node):
    x = b.value(node.inputs[0])
    return b.op("Cast", [x], to=b.onnx_type(node.value.dtype))


# ------------------------------------------------------------------------ products
def _linear(b, node):
    """y = x Wᵀ + b: Gemm for a 2-D x, MatMul with Wᵀ (and Add) otherwise."""
    x, weight, *bias = _args(b, node)
    if len(_shape(node.inputs[0])) == 2:
        return b.op("Gemm", [x, weight] + bias, transB=1)
    out = b.op("MatMul", [x, b.op("Transpose", [weight], perm=[1, 0])])
    return b.op("Add", [out] + bias) if bias and bias[0] is not None else out


def _attention_probs(b, node):
    """P = softmax(s · Q Kᵀ + M) over the last axis (a row whose scores are all -inf gives NaN
    in ONNX, 0 in dagrad; causal and padding masks never block a whole row)."""
    q, k, mask = (_args(b, node) + [None])[:3]
    rank = len(_shape(node.inputs[1]))
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    scores = b.op("MatMul", [q, b.op("Transpose", [k], perm=perm)])
    scores = b.op("Mul", [scores, b.value(node.attrs["scale"])])
    if mask is not None:
        scores = b.op("Add", [scores, mask])
    return b.op("Softmax", [scores], axis=-1)


def _recurrent_gates(b, node):
    """a = a_x + h Wᵀ (a_x optional)."""
    x, h, weight = _args(b, node)[:3]
    out = b.op("MatMul", [h, b.op("Transpose", [weight], perm=[1, 0])])
    return out if x is None else b.op("Add", [out, x])


# -------------------------------------------------------------------- normalization
def _normalize(b, node):
    """y = γ x̂ + β over ``axes``: LayerNormalization when the axes are the trailing ones and
    γ, β have their shape; otherwise mean, variance and the division, composed."""
    x, weight, bias = (_args(b, node) + [None, None])[:3]
    rank = len(_shape(node.inputs[0]))
    axes = sorted(a % rank for a in node.attrs["axes"])
    eps = float(node.attrs["eps"])
    trailing = axes == list(range(axes[0], rank))
    normalized = _shape(node.inputs[0])[axes[0]:]
    fits = all(w is None or _shape(w) == normalized for w in node.inputs[1:3])
    if trailing and fits and b.opset >= 17:
        if weight is None:
            weight = b.const(np.ones(normalized, node.value.dtype), "ones")
        return b.op("LayerNormalization", [x, weight, bias], axis=axes[0], epsilon=eps)
    centred = b.op("Sub", [x, b.reduce("ReduceMean", x, axes, True)])
    var = b.reduce("ReduceMean", b.op("Mul", [centred, centred]), axes, True)
    out = b.op("Div", [centred, b.op("Sqrt", [b.op("Add", [var, b.value(eps)])])])
    if weight is not None:
        out = b.op("Mul", [out, weight])
    return out if bias is None else b.op("Add", [out, bias])


# ------------------------------------------------------------------------ reductions
def _reduction(op_type):
    def emit(b, node):
        x, = _args(b, node, dtype=None)
        out = b.reduce(op_type, x, node.attrs.get("axis"), node.attrs.get("keepdims", False))
        return b.cast(out, node.value.dtype)
    emit.__doc__ = f"dagrad's reduction as ONNX {op_type}."
    return emit


def _amax(b, node):
    op_type = "ReduceMin" if node.attrs.get("lowest") else "ReduceMax"
    return _reduction(op_type)(b, node)


def _softmax(op_type):
    def emit(b, node):
        return b.op(op_type, _args(b, node), axis=int(node.attrs["axis"]))
    emit.__doc__ = f"dagrad's {op_type} over one axis."
    return emit


def _pick_along(b, node):
    """y = x[..., indices, ...] along ``axis`` (one index per position): GatherElements."""
    x, indices = node.inputs
    axis, keep = int(node.attrs["axis"]), node.attrs.get("keepdims", False)
    idx = np.asarray(indices._data if hasattr(indices, "_data") else indices, np.int64)
    if idx.ndim < len(_shape(x)):
        idx = np.expand_dims(idx, axis)
    out = b.op("GatherElements", [b.value(x), b.value(idx)], axis=axis)
    return out if keep else b.op("Squeeze", [out, b.ints([axis])])


# -------------------------------------------------------------------------- shapes
def _reshape(b, node):
    """Reshape to the traced output shape, written so that the shape generalises: leading
    dimensions equal to the input's are copied from it (ONNX's 0), and when the first other
    dimension differs it is inferred (-1). A dynamic batch dimension then follows the input."""
    x, = _args(b, node)
    old, new = _shape(node.inputs[0]), list(node.value.shape)
    target, k = list(new), 0
    while k < min(len(old), len(new)) and old[k] == new[k]:
        target[k] = 0
        k += 1
    if k < len(new):
        target[k] = -1
    return b.op("Reshape", [x, b.ints(target)])


def _transpose(b, node):
    return b.op("Transpose", _args(b, node), perm=[int(a) for a in node.attrs["axes"]])


def _broadcast_to(b, node):
    """Expand, with 1 where the input already has the size (so those dimensions may vary)."""
    x, = _args(b, node)
    old, new = _shape(node.inputs[0]), node.value.shape
    lead = len(new) - len(old)
    shape = [1 if k >= lead and old[k - lead] == n else n for k, n in enumerate(new)]
    return b.op("Expand", [x, b.ints(shape)])


def _cat(b, node):
    return b.op("Concat", _args(b, node), axis=int(node.attrs["axis"]))


def _stack(b, node):
    axis = int(node.attrs["axis"])
    return b.op("Concat", [b.unsqueeze(x, [axis]) for x in _args(b, node)], axis=axis)


def _pad(b, node):
    x, = _args(b, node)
    widths = node.attrs["widths"]
    pads = [lo for lo, _ in widths] + [hi for _, hi in widths]
    value = b.value(np.asarray(node.attrs.get("value", 0.0), node.value.dtype))
    return b.op("Pad", [x, b.ints(pads), value], mode="constant")


def _flip(b, node):
    x, = _args(b, node)
    axes = list(node.attrs["axes"])
    n = len(axes)
    return b.slice(x, axes, [-1] * n, [INT64_MIN] * n, [-1] * n)


def _tile(b, node):
    x, = _args(b, node)
    reps = list(node.attrs["reps"])
    rank = len(_shape(node.inputs[0]))
    if len(reps) > rank:
        x = b.unsqueeze(x, list(range(len(reps) - rank)))
    return b.op("Tile", [x, b.ints(reps)])


def _getitem(b, node):
    """y = x[index]: Slice for slices, Gather for ints and one integer array (an embedding
    lookup), Unsqueeze for None. Boolean masks and several index arrays have no mapping."""
    x = b.value(node.inputs[0])
    shape = _shape(node.inputs[0])
    index = node.attrs["index"]
    items = list(index) if isinstance(index, tuple) else [index]
    if any(i is Ellipsis for i in items):
        k = items.index(Ellipsis)
        used = sum(i is not None for i in items) - 1
        items[k:k + 1] = [slice(None)] * (len(shape) - used)
    arrays = [k for k, i in enumerate(items) if isinstance(i, np.ndarray)]
    if len(arrays) > 1 or any(items[k].dtype == np.bool_ for k in arrays) or (
            arrays and any(i is None for i in items)):
        raise NotImplementedError(
            "indexing with boolean masks, several index arrays or index arrays mixed with None "
            "has no ONNX mapping here; index with slices, ints and one integer array")
    axes, starts, ends, steps, gathers, new_axes = [], [], [], [], [], []
    axis = out_axis = 0
    for i in items:
        if i is None:
            new_axes.append(out_axis)
            out_axis += 1
            continue
        n = shape[axis]
        if isinstance(i, slice):
            if i != slice(None):
                start, stop, step = i.indices(n)
                if step < 0 and stop < 0:
                    stop = INT64_MIN
                axes.append(axis), starts.append(start), ends.append(stop), steps.append(step)
            out_axis += 1
        else:
            gathers.append((axis, i))
            out_axis += np.ndim(i)
        axis += 1
    if axes:
        x = b.slice(x, axes, starts, ends, steps)
    for axis, i in reversed(gathers):          # right to left: earlier axes keep their place
        which = b.value(i) if isinstance(i, np.ndarray) else b.const(np.asarray(i, np.int64))
        x = b.op("Gather", [x, b.cast(which, np.int64)], axis=axis)
    if new_axes:
        x = b.unsqueeze(x, new_axes)
    return x


# --------------------------------------------------------------------------- images
def _conv_attributes(win):
    (pt, pb), (pl, pr) = win.padding
    return dict(kernel_shape=list(win.kernel), strides=list(win.stride),
                dilations=list(win.dilation), pads=[pt, pl, pb, pr])


def _conv2d(b, node):
    return b.op("Conv", _args(b, node), group=int(node.attrs.get("groups", 1)),
                **_conv_attributes(node.attrs["win"]))


def _conv_transpose2d(b, node):
    """ConvTranspose with the output size dagrad computed (through output_padding)."""
    win = node.attrs["win"]
    attributes = _conv_attributes(win)
    extra = []
    for size, n, k, s, d, (lo, hi) in zip(win.size, win.out, win.kernel, win.stride,
                                          win.dilation, win.padding):
        extra.append(size - (s * (n - 1) + d * (k - 1) + 1 - lo - hi))
    return b.op("ConvTranspose", _args(b, node), group=int(node.attrs.get("groups", 1)),
                output_padding=extra, **attributes)


def _max_pool2d(b, node):
    win = node.attrs["win"]
    attributes = _conv_attributes(win)
    floor = [(n + lo + hi - d * (k - 1) - 1) // s + 1 for n, (lo, hi), d, k, s in
             zip(win.size, win.padding, win.dilation, win.kernel, win.stride)]
    return b.op("MaxPool", _args(b, node), ceil_mode=int(floor != list(win.out)),
                **attributes)


def _unfold(b, node):
    """im2col as a convolution with one-hot kernels (one output channel per channel and
    kernel offset), reshaped to (N, C, kh, kw, H_out, W_out): each output copies one pixel."""
    x, = _args(b, node)
    win = node.attrs["win"]
    channels = _shape(node.inputs[0])[1]
    kh, kw = win.kernel
    picks = np.eye(kh * kw, dtype=node.value.dtype).reshape(kh * kw, 1, kh, kw)
    weight = b.const(np.tile(picks, (channels, 1, 1, 1)), "onehot")
    cols = b.op("Conv", [x, weight], group=channels, **_conv_attributes(win))
    return b.op("Reshape", [cols, b.ints([0, channels, kh, kw] + list(win.out))])


EMITTERS = {
    arithmetic.Add: _elementwise("Add"), arithmetic.Sub: _elementwise("Sub"),
    arithmetic.Mul: _elementwise("Mul"), arithmetic.Div: _elementwise("Div"),
    arithmetic.Pow: _elementwise("Pow"), arithmetic.Neg: _elementwise("Neg"),
    elementary.Exp: _elementwise("Exp"), elementary.Log: _elementwise("Log"),
    elementary.Sqrt: _elementwise("Sqrt"), piecewise.Abs: _elementwise("Abs"),
    elementary.Sin: _elementwise("Sin"), elementary.Cos: _elementwise("Cos"),
    activation.Tanh: _elementwise("Tanh"), activation.Sigmoid: _elementwise("Sigmoid"),
    activation.Relu: _elementwise("Relu"), activation.Erf: _elementwise("Erf"),
    piecewise.Maximum: _elementwise("Max"), piecewise.Minimum: _elementwise("Min"),
    cast.Clone: _elementwise("Identity"), reduction.SafeSqrt: _elementwise("Sqrt"),
    activation.LeakyRelu: _leaky_relu, activation.Elu: _elu, activation.Softplus: _softplus,
    activation.Gelu: _gelu, piecewise.Where: _where, piecewise.Clamp: _clamp,
    piecewise.ClampTensor: _clamp_tensor, cast.Cast: _cast,
    linalg.MatMul: _elementwise("MatMul"), linalg.Linear: _linear,
    attention_ops.AttentionProbs: _attention_probs,
    recurrent.RecurrentGates: _recurrent_gates, nn_ops.Normalize: _normalize,
    reduction.Sum: _reduction("ReduceSum"), reduction.Mean: _reduction("ReduceMean"),
    reduction.Amax: _amax, reduction.Prod: _reduction("ReduceProd"),
    reduction.LogSumExp: _reduction("ReduceLogSumExp"), reduction.Softmax: _softmax("Softmax"),
    reduction.LogSoftmax: _softmax("LogSoftmax"), reduction.PickAlong: _pick_along,
    shape_ops.Reshape: _reshape, shape_ops.Transpose: _transpose,
    shape_ops.BroadcastTo: _broadcast_to, shape_ops.Cat: _cat, shape_ops.Stack: _stack,
    shape_ops.Pad: _pad, shape_ops.Flip: _flip, shape_ops.Tile: _tile, indexing.GetItem: _getitem,
    conv.Conv2d: _conv2d, conv.ConvTranspose2d: _conv_transpose2d, conv.Unfold: _unfold,
    pool.MaxPool2d: _max_pool2d,
}
