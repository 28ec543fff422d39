"""Text: a small public-domain text bundled with the package, the one vocabulary class
(``Vocab``: tokens <-> ids, for words and characters alike), its character-level form
(``CharTokenizer``), a word tokenizer and fixed-length windows for language models."""
import re
from collections import Counter
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
                         f"and positive length and stride, got shape {tuple(tokens.shape)}, "
                         f"stride={stride}")
    starts = np.arange(0, tokens.size - length, stride)
    return tokens[starts[:, None] + np.arange(length + 1)].astype(np.int64)


_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?")
ORDERS = ("frequency", "sorted", "given")


def tokenize(text):
    """Lower-case words of ``text`` (letters, with an inner apostrophe kept: "don't")."""
    return _WORD.findall(text.lower())


class Vocab:
    """Tokens <-> integer ids: the library's one vocabulary, for words (``Word2Vec``) and for
    characters (``CharTokenizer``: the character language models and GPT).

    Ids: ``specials`` first (in the order given, e.g. "<pad>", "<bos>"), then the distinct
    ``tokens`` seen at least ``min_count`` times, at most ``max_size`` of them, in ``order``:
    "frequency" (most frequent first, ties alphabetical), "sorted", or "given" (as they come;
    a repeated entry is an error). ``counts`` (V,) int64 holds each entry's frequency in
    ``tokens`` (0 for specials).

    ``encode`` maps a token that is not in the vocabulary to ``unk`` (a special, added when
    missing) when given; otherwise it skips it (``skip_unknown=True``: word2vec drops the rare
    words) or raises a KeyError naming it::

        vocab = Vocab(tokenize(text), min_count=5)
        ids = vocab.encode(tokenize(text))           # int64 ids of the kept words
        vocab.decode(ids)                            # the words, a list
    """

    def __init__(self, tokens=(), min_count=1, max_size=None, specials=(), unk=None,
                 order="frequency", skip_unknown=True):
        if order not in ORDERS:
            raise ValueError(f"Vocab: order must be one of {ORDERS}, got {order!r}")
        specials = list(specials)
        if unk is not None and unk not in specials:
            specials.append(unk)
        tokens = list(tokens)
        counts = Counter(tokens)
        if order == "given":
            if len(counts) != len(tokens):
                raise ValueError("Vocab: the vocabulary has repeated entries")
            found = tokens
        else:
            key = (lambda t: (-counts[t], t)) if order == "frequency" else None
            found = sorted(counts, key=key)
        found = [t for t in found if counts[t] >= min_count and t not in specials][:max_size]
        if not found and tokens:
            raise ValueError(f"Vocab: no token occurs at least min_count={min_count} times")
        self.itos = specials + found
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.counts = np.array([counts[t] if t not in specials else 0 for t in self.itos],
                               dtype=np.int64)
        self.specials, self.unk, self.skip_unknown = specials, unk, skip_unknown
        self.min_count = min_count

    @property
    def vocab_size(self):
        return len(self.itos)

    def __len__(self):
        return len(self.itos)

    def __contains__(self, token):
        return token in self.stoi

    def __getitem__(self, token):
        """The id of one token (a word, a character or a special such as "<bos>")."""
        try:
            return self.stoi[token]
        except KeyError:
            rare = (f" (it may occur fewer than min_count={self.min_count} times)"
                    if self.min_count > 1 else "")
            raise KeyError(f"{type(self).__name__}: {token!r} is not in the vocabulary of "
                           f"{len(self)} tokens{rare}; build the vocabulary from data that "
                           f"contains it or pass unk='<unk>'") from None

    token_id = __getitem__

    def encode(self, tokens):
        """The ids of ``tokens`` (a sequence of tokens; a string is a sequence of characters)
        as an int64 array, unknown tokens handled as the class docstring says."""
        stoi = self.stoi
        if self.unk is not None:
            unk = stoi[self.unk]
            ids = [stoi.get(t, unk) for t in tokens]
        elif self.skip_unknown:
            ids = [stoi[t] for t in tokens if t in stoi]
        else:
            ids = [stoi[t] if t in stoi else self[t] for t in tokens]
        return np.array(ids, dtype=np.int64)

    def decode(self, ids, skip_specials=False):
        """The tokens for a sequence of ids (list, array or 1-D Tensor), as a list."""
        ids = as_array(ids).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise IndexError(f"{type(self).__name__}.decode: ids must be in "
                             f"[0, {len(self) - 1}], got {ids.min()}..{ids.max()}")
        special = set(self.specials) if skip_specials else ()
        return [t for t in (self.itos[i] for i in ids.tolist()) if t not in special]

    def __repr__(self):
        return f"{type(self).__name__}(vocab_size={len(self)}, specials={self.specials})"


class CharTokenizer(Vocab):
    """A character-level tokenizer: the ``Vocab`` of the distinct characters of ``text``, sorted
    (so the same text always gives the same ids), after ``specials``; ``chars`` gives the
    characters (in that order) instead. Encoding an unknown character raises a KeyError naming
    it unless ``unk`` is given; ``decode`` joins the characters back into a string::

        tok = CharTokenizer("hello world")
        ids = tok.encode("hello")        # int64 array, shape (5,)
        tok.decode(ids)                  # "hello"
    """

    def __init__(self, text="", specials=(), unk=None, chars=None):
        super().__init__(text if chars is None else chars, specials=specials, unk=unk,
                         order="sorted" if chars is None else "given", skip_unknown=False)

    def decode(self, ids, skip_specials=False):
        """The text for a sequence of ids (list, array or 1-D Tensor)."""
        return "".join(super().decode(ids, skip_specials))
