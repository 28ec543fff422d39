"""nn.datasets.text: one vocabulary class for words and characters (Vocab, and CharTokenizer as
its character form): id order, specials and counts, unknown tokens, windows of a token array."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.nn.datasets import CharTokenizer, Vocab, text_windows, tokenize


def test_word_vocab_with_specials_orders_and_unknown_words():
    words = tokenize("b a c a b a")
    vocab = Vocab(words, specials=["<pad>"], unk="<unk>")
    assert vocab.itos == ["<pad>", "<unk>", "a", "b", "c"]          # specials, then by frequency
    assert list(vocab.counts) == [0, 0, 3, 2, 1]
    np.testing.assert_array_equal(vocab.encode(["a", "zebra", "c"]), [2, 1, 4])
    assert vocab.decode(ag.tensor([0, 2, 1]), skip_specials=True) == ["a"]
    assert Vocab(words, order="sorted").itos == ["a", "b", "c"]
    assert Vocab(["c", "a"], order="given").itos == ["c", "a"]
    assert Vocab(words, max_size=2).itos == ["a", "b"]
    strict = Vocab(words, skip_unknown=False)
    with pytest.raises(KeyError, match="'zebra' is not in the vocabulary of 3 tokens"):
        strict.encode(["a", "zebra"])
    np.testing.assert_array_equal(Vocab(words).encode(["zebra", "c"]), [2])   # skipped


def test_vocab_refuses_bad_arguments():
    with pytest.raises(ValueError, match="order must be one of"):
        Vocab(["a"], order="random")
    with pytest.raises(ValueError, match="repeated entries"):
        Vocab(["a", "a"], order="given")
    with pytest.raises(ValueError, match="min_count=5"):
        Vocab(["a", "b"], min_count=5)
    with pytest.raises(IndexError, match=r"ids must be in \[0, 1\]"):
        Vocab(["a", "b"]).decode([2])


def test_char_tokenizer_is_the_vocabulary_of_characters():
    tok = CharTokenizer("hello")
    assert isinstance(tok, Vocab) and tok.itos == ["e", "h", "l", "o"]
    assert tok["l"] == tok.token_id("l") == 2 and tok.counts[2] == 2
    assert tok.decode(tok.encode("hole")) == "hole"
    assert CharTokenizer(chars="zyx").itos == ["z", "y", "x"]        # the order given


def test_text_windows_tile_the_tokens():
    windows = text_windows(np.arange(10), length=3)
    np.testing.assert_array_equal(windows, [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9]])
    assert windows.dtype == np.int64
    with pytest.raises(ValueError, match="text_windows"):
        text_windows(np.arange(3), length=3)
