"""Run one PyTorch program's source twice: with PyTorch, and with dagrad after the only edit a
CPU PyTorch program needs (its torch imports point at ``dagrad.torch``).

A program reads its inputs from the globals it is given (NumPy arrays, e.g. initial weights, so
both runs start from the same numbers) and leaves its results in ``result`` (a dict of numbers,
lists and tensors), which ``compare`` checks element by element.
"""
import re

import numpy as np

from tests.helpers import torch_or_skip

IMPORTS = [
    (r"^import torch$", "from dagrad import torch"),
    (r"^import torch\.nn as nn$", "from dagrad.torch import nn"),
    (r"^import torch\.nn\.functional as F$", "import dagrad.torch.nn.functional as F"),
    (r"^import torch\.optim as optim$", "from dagrad.torch import optim"),
    (r"^from torch(\.[\w.]+)? import", r"from dagrad.torch\1 import"),
]


def to_dagrad(source):
    """The program with its torch imports pointed at dagrad.torch, every other line as is."""
    lines = []
    for line in source.splitlines():
        for pattern, replacement in IMPORTS:
            line = re.sub(pattern, replacement, line)
        lines.append(line)
    return "\n".join(lines)


BACK_TO_TORCH = [
    (r"^from dagrad import torch$", "import torch"),
    (r"^from dagrad\.torch import (\w+)$", r"from torch import \1"),
    (r"^import dagrad\.torch(\.[\w.]+) as (\w+)$", r"import torch\1 as \2"),
    (r"^from dagrad\.torch(\.[\w.]+) import", r"from torch\1 import"),
]


def to_torch(source):
    """A program written with ``from dagrad import torch`` with its imports changed back to
    PyTorch's (the way out to GPUs), every other line as is."""
    lines = []
    for line in source.splitlines():
        for pattern, replacement in BACK_TO_TORCH:
            line = re.sub(pattern, replacement, line)
        lines.append(line)
    return "\n".join(lines) + "\n"


def run(source, framework, **inputs):
    """Execute ``source`` with ``framework`` "torch" or "dagrad"; return its ``result``."""
    if framework == "torch":
        torch_or_skip()
    else:
        source = to_dagrad(source)
        assert "import torch" not in source.replace("from dagrad import torch", "")
    namespace = dict(inputs)
    exec(compile(source, f"<{framework} program>", "exec"), namespace)
    return namespace["result"]


def as_numbers(value):
    if hasattr(value, "detach"):
        return np.asarray(value.detach().numpy(), dtype=np.float64)
    if isinstance(value, (list, tuple)):
        return np.asarray([as_numbers(v) for v in value], dtype=np.float64)
    return np.asarray(value, dtype=np.float64)


def compare(source, rtol=1e-5, atol=1e-6, **inputs):
    """Run ``source`` in both frameworks and assert every entry of ``result`` agrees."""
    theirs = run(source, "torch", **inputs)
    ours = run(source, "dagrad", **inputs)
    assert sorted(ours) == sorted(theirs)
    for key in theirs:
        np.testing.assert_allclose(as_numbers(ours[key]), as_numbers(theirs[key]), rtol=rtol,
                                   atol=atol, err_msg=f"result[{key!r}]")
    return ours, theirs
