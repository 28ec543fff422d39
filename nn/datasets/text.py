"""A small public-domain text bundled with the package, for character-level language models."""
from pathlib import Path

import numpy as np

from dagrad.autograd import as_array

_DATA = Path(__file__).parent / "data"
TEXTS = {"alice": "alice.txt"}   # Lewis Carroll, Alice's Adventures in Wonderland (1865), ch. I-II


def load_text(name="alice"):
    """The text ``name`` as one string (about 22,000 characters for "alice": chapters I and II
    of Alice's Adventures in Wonderland, public domain). Works offline."""
    if name not in TEXTS:
        raise ValueError(f"load_text: unknown text {name!r}; available: {sorted(TEXTS)}")
    return (_DATA / TEXTS[name]).read_text(encoding="utf-8")


def text_windows(tokens, length, stride=None):
    """Consecutive windows of ``length`` + 1 tokens from a 1-D token array: an int64 array
    (num_windows, length + 1), window k starting at k · stride (default stride: length, so the
    windows tile the text). Split each into inputs and next-token targets with
    ``window[:, :-1], window[:, 1:]``."""
    tokens = as_array(tokens)
    stride = length if stride is None else stride
    if tokens.ndim != 1 or length < 1 or stride < 1 or tokens.size < length + 1:
        raise ValueError(f"text_windows: need a 1-D token array longer than length={length} "
                         f"and positive length and stride, got shape {tokens.shape}, "
                         f"stride={stride}")
    starts = np.arange(0, tokens.size - length, stride)
    return tokens[starts[:, None] + np.arange(length + 1)].astype(np.int64)
