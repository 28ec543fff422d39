"""How a tensor prints: PyTorch's ``repr``, character for character.

``tensor([0.3932, 0.2100, 0.0904])``: every element of a tensor is written with one format,
chosen from all of them (what ``_Formatter`` decides, as PyTorch's ``torch/_tensor_str.py``):

- integers and bools as Python writes them, right-aligned to the widest;
- floating point with ``precision`` digits after the point (``0.2100``), or as whole numbers
  with a trailing point (``tensor([1., 2.])``) when every finite value is whole, or in
  scientific notation (``1.0000e-05``) when the largest magnitude is over 1000 times the
  smallest, over 1e8, or the smallest under 1e-4 (``sci_mode`` forces it on or off);
- ``inf`` and ``nan`` as Python writes them, left out of the choice;
- more than ``threshold`` elements are summarised: ``edgeitems`` at each end of every
  dimension, ``...`` between;
- rows wrap at ``linewidth``; then come ``dtype=`` (unless float32, int64 or bool, or the
  default dtype), ``grad_fn=<...>`` or ``requires_grad=True``.

``set_printoptions`` / ``get_printoptions`` / ``printoptions`` change the five settings as
PyTorch's do. The one difference from PyTorch: a node's name in ``grad_fn=<...>`` is PyTorch's
for the operations in ``_BACKWARD_NAMES`` and ``<Name>Backward0`` for the others (where
PyTorch's kernel differs from dagrad's composition, e.g. ``mse_loss``, the names differ).
"""
import contextlib
import dataclasses
import math

import numpy as np

from .default_dtype import DEFAULT


@dataclasses.dataclass
class PrintOptions:
    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: object = None


OPTIONS = PrintOptions()
_PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
             "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
             "full": dict(precision=4, threshold=math.inf, edgeitems=3, linewidth=80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """PyTorch's ``torch.set_printoptions``: ``precision`` digits after the point (4),
    summarise beyond ``threshold`` elements (1000) showing ``edgeitems`` at each end (3), wrap
    at ``linewidth`` characters (80); ``profile`` "default", "short" or "full" sets the four;
    ``sci_mode`` True/False forces scientific notation on/off (None: chosen per tensor, and
    reset by every call, as in PyTorch)."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of "
                             f"{', '.join(_PROFILES)}, got {profile!r}")
        for name, value in _PROFILES[profile].items():
            setattr(OPTIONS, name, value)
    for name, value in (("precision", precision), ("threshold", threshold),
                        ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            setattr(OPTIONS, name, value)
    OPTIONS.sci_mode = sci_mode


def get_printoptions():
    """The current options as a dict that ``set_printoptions(**options)`` takes back."""
    return dataclasses.asdict(OPTIONS)


@contextlib.contextmanager
def printoptions(**options):
    """``with printoptions(precision=2): ...`` changes the options for the block only."""
    old = get_printoptions()
    set_printoptions(**options)
    try:
        yield
    finally:
        set_printoptions(**old)


class _Formatter:
    """One format for every element of ``values`` (an ndarray, summarised if the tensor is):
    integer mode, scientific mode and the common width, decided as PyTorch decides them."""

    def __init__(self, values):
        self.floating = values.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = values.reshape(-1)
        if not self.floating:
            self.max_width = max([1] + [len(str(v)) for v in flat.tolist()])
            return
        finite = flat[np.isfinite(flat) & (flat != 0)]
        if finite.size == 0:
            return
        magnitudes = np.abs(finite).astype(np.float64)
        smallest, largest = magnitudes.min(), magnitudes.max()
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        self.sci_mode = (largest / smallest > 1000.0 or largest > 1.0e8 or smallest < 1.0e-4
                         if OPTIONS.sci_mode is None else OPTIONS.sci_mode)
        p = OPTIONS.precision
        numbers = finite.tolist()
        if self.sci_mode:
            widths = [len(f"{v:.{p}e}") for v in numbers]
        elif self.int_mode:
            widths = [len(f"{v:.0f}") + 1 for v in numbers]     # + 1 for the point
        else:
            widths = [len(f"{v:.{p}f}") for v in numbers]
        self.max_width = max(self.max_width, *widths)

    def format(self, value):
        """``value`` (a Python number) written in this format, right-aligned."""
        if not self.floating:
            text = f"{value}"
        elif self.sci_mode:
            text = f"{value:{self.max_width}.{OPTIONS.precision}e}"
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = f"{value:.{OPTIONS.precision}f}"
        return " " * (self.max_width - len(text)) + text


def _summarised(values):
    """The elements a summarised print shows: ``edgeitems`` at each end of every dimension."""
    edge = OPTIONS.edgeitems
    if values.ndim == 0:
        return values
    if values.ndim == 1:
        long = values.shape[0] > 2 * edge
        return np.concatenate((values[:edge], values[-edge:])) if long else values
    if not edge:
        return np.empty((0,) * values.ndim, values.dtype)
    return np.stack([_summarised(values[i]) for i in _rows(len(values), True) if i is not None])


def _rows(n, summarise):
    """The row indices shown of a dimension of length ``n``, None where ``...`` goes."""
    edge = OPTIONS.edgeitems
    if summarise and n > 2 * edge:
        return list(range(edge)) + [None] + list(range(n - edge, n))
    return list(range(n))


def _vector(values, indent, summarise, formatter):
    """``[a, b, c]`` for a 1-d array, wrapped to the line width."""
    per_line = max(1, math.floor((OPTIONS.linewidth - indent) / (formatter.max_width + 2)))
    edge = OPTIONS.edgeitems
    if summarise and not edge:
        items = ["..."]
    elif summarise and values.shape[0] > 2 * edge:
        items = ([formatter.format(v) for v in values[:edge].tolist()] + [" ..."]
                 + [formatter.format(v) for v in values[-edge:].tolist()])
    else:
        items = [formatter.format(v) for v in values.tolist()]
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _nested(values, indent, summarise, formatter):
    """The bracketed text of ``values`` (any number of dimensions), ``indent`` columns in."""
    if values.ndim == 0:
        return formatter.format(values.item())
    if values.ndim == 1:
        return _vector(values, indent, summarise, formatter)
    parts = ["..." if i is None else _nested(values[i], indent + 1, summarise, formatter)
             for i in _rows(len(values), summarise)]
    return "[" + ("," + "\n" * (values.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def array_text(values, indent):
    """The elements of ``values`` as PyTorch writes them inside ``tensor(...)``."""
    if values.size == 0:
        return "[]"
    summarise = values.size > OPTIONS.threshold
    formatter = _Formatter(_summarised(values) if summarise else values)
    return _nested(values, indent, summarise, formatter)


def dtype_name(dtype):
    """PyTorch's name of a dtype: ``torch.float64``."""
    return "torch." + np.dtype(dtype).name


def _with_suffixes(text, suffixes, indent):
    """``text`` closed with ``, suffix`` for each suffix, on a new line when it would pass the
    line width."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > OPTIONS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    return "".join(parts) + ")"


def tensor_repr(tensor):
    """``repr(tensor)`` as PyTorch writes it: ``tensor([1., 2.], requires_grad=True)``."""
    values = tensor.numpy()
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    default = DEFAULT.dtype
    if values.size == 0:
        if values.ndim != 1:
            suffixes.append(f"size={tuple(values.shape)}")
        if values.dtype != default:
            suffixes.append("dtype=" + dtype_name(values.dtype))
        text = "[]"
    else:
        if not OPTIONS.edgeitems:
            suffixes.append(f"size={tuple(values.shape)}")
        if values.dtype not in (default, np.int64, np.bool_):
            suffixes.append("dtype=" + dtype_name(values.dtype))
        text = array_text(values, indent)
    if tensor.grad_fn is not None:
        suffixes.append(f"grad_fn=<{backward_name(tensor.grad_fn)}>")
    elif tensor.requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + text, suffixes, indent)


# PyTorch's node names where they are not dagrad's operation name + "Backward0".
_BACKWARD_NAMES = {
    "MatMul": "MmBackward0", "Linear": "AddmmBackward0", "Reshape": "ViewBackward0",
    "Transpose": "TransposeBackward0", "BroadcastTo": "ExpandBackward0",
    "Cast": "ToCopyBackward0", "Clamp": "ClampBackward1", "Pad": "ConstantPadNdBackward0",
    "CrossEntropy": "NllLossBackward0", "Conv2d": "ConvolutionBackward0",
    "ConvTranspose2d": "ConvolutionBackward0", "MaxPool2d": "MaxPool2DWithIndicesBackward0",
    "Normalize": "NativeLayerNormBackward0", "IndexPut": "CopySlices",
    "Relu": "ReluBackward0", "LeakyRelu": "LeakyReluBackward0",
}


def backward_name(node):
    """The name PyTorch prints for the node that made a tensor (``grad_fn=<AddBackward0>``):
    a whole-tensor ``sum``/``mean`` is ``SumBackward0``, one over dimensions ``SumBackward1``;
    a power with a tensor exponent ``PowBackward1``."""
    name = type(node).__name__
    if name in ("Sum", "Mean"):      # (a reduction over every dimension reads as the first)
        whole = all(n == 1 for n in getattr(node, "kshape", ()))
        return f"{name}Backward{0 if whole else 1}"
    if name == "Pow" and len(getattr(node, "parents", ())) == 2 and node.parents[1] is not None:
        return "PowBackward1"
    if name == "GetItem":
        return _indexing_name(getattr(node, "index", None))
    return _BACKWARD_NAMES.get(name, name + "Backward0")


def _indexing_name(index):
    """PyTorch's node for ``x[index]``: the last step it takes, reading the index left to
    right (an int selects, a slice other than ``:`` slices, None unsqueezes; index arrays and
    masks index)."""
    name = "AliasBackward0"
    for item in index if isinstance(index, tuple) else (index,):
        if isinstance(item, (int, np.integer)):
            name = "SelectBackward0"
        elif isinstance(item, slice):
            name = name if item == slice(None) else "SliceBackward0"
        elif item is None:
            name = "UnsqueezeBackward0"
        elif item is not Ellipsis:
            return "IndexBackward0"
    return name


def format_tensor(tensor, spec):
    """``format(tensor, spec)`` as PyTorch: a 0-d tensor formats as its number (``f"{loss:.4f}"``,
    ``f"{loss}"`` gives ``0.25``); any other tensor only with an empty spec (its ``str``)."""
    if tensor.ndim == 0:
        return format(tensor.item(), spec)
    if spec:
        raise TypeError(f"unsupported format string passed to Tensor.__format__ (a tensor of "
                        f"shape {tuple(tensor.shape)}: format its number, "
                        f"f\"{{t.item():{spec}}}\", for a one-element tensor)")
    return str(tensor)
