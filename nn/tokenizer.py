"""A character-level tokenizer: every distinct character of a text is one token."""
import numpy as np

from dagrad.autograd import as_array


class CharTokenizer:
    """Maps characters to integer ids and back.

    The vocabulary is ``specials`` (in the order given, ids 0, 1, …) followed by the distinct
    characters of ``text`` in sorted order (so the same text always gives the same ids)::

        tok = CharTokenizer("hello world")
        ids = tok.encode("hello")        # int64 array, shape (5,)
        tok.decode(ids)                  # "hello"

    ``unk``: a token (one of ``specials``) used for characters not in the vocabulary; without
    it, encoding an unknown character raises KeyError naming it.
    """

    def __init__(self, text="", specials=(), unk=None, chars=None):
        specials = list(specials)
        if unk is not None and unk not in specials:
            specials.append(unk)
        found = sorted(set(text)) if chars is None else list(chars)
        self.itos = specials + [c for c in found if c not in specials]
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        if len(self.stoi) != len(self.itos):
            raise ValueError("CharTokenizer: the vocabulary has repeated entries")
        self.specials, self.unk = specials, unk

    @property
    def vocab_size(self):
        return len(self.itos)

    def __len__(self):
        return len(self.itos)

    def __contains__(self, token):
        return token in self.stoi

    def token_id(self, token):
        """The id of one token (a character or a special such as "<bos>")."""
        return self.stoi[token]

    def encode(self, text):
        """Character ids of ``text`` as an int64 array of shape (len(text),)."""
        stoi, unk = self.stoi, self.stoi.get(self.unk)
        try:
            return np.array([stoi[c] if unk is None else stoi.get(c, unk) for c in text],
                            dtype=np.int64)
        except KeyError as e:
            raise KeyError(f"CharTokenizer.encode: character {e.args[0]!r} is not in the "
                           f"vocabulary of {len(self)} tokens; build the tokenizer from a text "
                           f"that contains it or pass unk='<unk>'") from None

    def decode(self, ids, skip_specials=False):
        """The text for a sequence of ids (list, array or 1-D Tensor)."""
        ids = as_array(ids).reshape(-1)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise IndexError(f"CharTokenizer.decode: ids must be in [0, {len(self) - 1}]")
        special = set(self.specials) if skip_specials else ()
        return "".join(s for s in (self.itos[int(i)] for i in ids) if s not in special)

    def __repr__(self):
        return f"CharTokenizer(vocab_size={len(self)}, specials={self.specials})"
