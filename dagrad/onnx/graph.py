"""``GraphBuilder``: the ONNX graph under construction, with the few helpers every emitter needs
(a fresh name, an operator node, a constant, a cast, a reduction across opset versions).

Values are ONNX names (strings). A dagrad tensor gets its name from what it is: a graph input
(the name the user chose), a parameter or buffer (its ``state_dict`` name, so the file reads
like the model), or the output of a traced operation (``<module path>/<Op>_<k>``). Anything
else an operation reads (a mask, a Python number, an index array) becomes an initializer.
"""
import numpy as np

from dagrad.autograd import Tensor, as_array


class GraphBuilder:
    """Collects nodes and initializers; ``onnx`` is the imported package (it is optional, so it
    is passed in rather than imported here)."""

    def __init__(self, onnx, opset_version):
        self.onnx, self.helper = onnx, onnx.helper
        self.opset = opset_version
        self.nodes, self.initializers = [], []
        self.names = {}        # id(Tensor, ndarray or Function node) -> ONNX name
        self.dtypes = {}       # ONNX name -> NumPy dtype, for casts
        self.taken = set()
        self.node = None       # the dagrad operation being emitted (for names and errors)
        self._keep = []        # objects whose id() is a key of names, kept alive
        self.dynamic = []      # (traced size, input name, axis) of every dynamic input axis

    # ----------------------------------------------------------------- names and values
    def fresh(self, hint):
        name, k = hint, 1
        while name in self.taken:
            name, k = f"{hint}_{k}", k + 1
        self.taken.add(name)
        return name

    def bind(self, obj, name, dtype):
        """Call the value ``obj`` (a Tensor, ndarray or operation node) ``name`` from now on."""
        self.names[id(obj)] = name
        self.dtypes[name] = np.dtype(dtype)
        self._keep.append(obj)

    def value(self, x, dtype=None):
        """The ONNX name of input ``x`` of an operation (None stays None), cast to ``dtype``
        when given. Unknown tensors, arrays and numbers become initializers."""
        if x is None:
            return None
        name = None
        if isinstance(x, Tensor):
            key = x.grad_fn if x.grad_fn is not None else x
            name = self.names.get(id(key))
        elif isinstance(x, np.ndarray):
            name = self.names.get(id(x))
        if name is None:
            data = as_array(x)
            if dtype is None and isinstance(x, (bool, int, float)):
                dtype = self.node.value.dtype       # a number takes its operation's dtype
            data = data if dtype is None else data.astype(dtype)
            filled = self._filled(data)
            name = filled if filled is not None else self.const(data)
            if isinstance(x, (Tensor, np.ndarray)):       # later uses read the same constant
                self.bind(x, name, data.dtype)
            return name
        return self.cast(name, dtype)

    def cast(self, name, dtype):
        if dtype is None or self.dtypes[name] == np.dtype(dtype):
            return name
        return self.op("Cast", [name], dtype=dtype, to=self.onnx_type(dtype))

    def const(self, array, hint="const"):
        """A new initializer holding ``array``."""
        array = np.asarray(array)
        if array.dtype == np.float64 and self.node is not None \
                and self.node.value.dtype == np.float32:
            array = array.astype(np.float32)        # float64 numbers in float32 work
        name = self.fresh(self._prefix() + hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(array, name))
        self.dtypes[name] = array.dtype
        return name

    def _filled(self, data):
        """A constant filled with one value (the zeros of an initial RNN state) whose shape
        holds the traced size of a dynamic input axis: built with that axis's runtime size
        (Expand of the value to a shape read from the input), so it follows the batch. None
        for any other constant."""
        if not self.dynamic or data.size < 2 or data.ndim == 0:
            return None
        sizes = {size: (name, axis) for size, name, axis in reversed(self.dynamic)}
        first = next((k for k, n in enumerate(data.shape) if n in sizes), None)
        if first is None or not (data == data.flat[0]).all():
            return None
        name, axis = sizes[data.shape[first]]
        runtime = self.op("Gather", [self.op("Shape", [name], dtype=np.int64), self.ints([axis])],
                          dtype=np.int64)
        parts = [runtime if k == first else self.ints([n]) for k, n in enumerate(data.shape)]
        shape = self.op("Concat", parts, dtype=np.int64, axis=0)
        return self.op("Expand", [self.const(data.reshape(-1)[:1].reshape(())), shape],
                       dtype=data.dtype)

    def ints(self, values):
        """A 1-D int64 constant (shapes, axes, starts and ends)."""
        return self.const(np.asarray(list(values), dtype=np.int64), "ints")

    def onnx_type(self, dtype):
        return self.helper.np_dtype_to_tensor_dtype(np.dtype(dtype))

    def _prefix(self):
        module = self.node.module if self.node is not None else None
        return f"{module}/" if module else ""

    # ---------------------------------------------------------------------------- nodes
    def op(self, op_type, inputs, dtype=None, **attributes):
        """Add one ``op_type`` node reading ``inputs`` (names; None for a skipped optional
        input) and return the name of its output, whose dtype is ``dtype`` (by default the
        dtype of the dagrad operation being emitted)."""
        out = self.fresh(f"{self._prefix()}{op_type}")
        inputs = ["" if i is None else i for i in inputs]
        while inputs and inputs[-1] == "":
            inputs.pop()
        self.nodes.append(self.helper.make_node(op_type, inputs, [out], name=out, **attributes))
        self.dtypes[out] = np.dtype(dtype if dtype is not None else self.node.value.dtype)
        return out

    def reduce(self, op_type, x, axes, keepdims):
        """A Reduce* node over ``axes`` (None: all). Axes moved from an attribute to an input
        in opset 18 (13 for ReduceSum)."""
        keep = int(bool(keepdims))
        if axes is None:
            return self.op(op_type, [x], keepdims=keep)
        axes = [int(a) for a in np.atleast_1d(axes)]
        if self.opset >= 18 or op_type == "ReduceSum":
            return self.op(op_type, [x, self.ints(axes)], keepdims=keep)
        return self.op(op_type, [x], axes=axes, keepdims=keep)

    def slice(self, x, axes, starts, ends, steps=None):
        ins = [x, self.ints(starts), self.ints(ends), self.ints(axes)]
        return self.op("Slice", ins + ([self.ints(steps)] if steps is not None else []))

    def unsqueeze(self, x, axes):
        return self.op("Unsqueeze", [x, self.ints(axes)])
