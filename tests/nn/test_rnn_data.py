"""Toy sequence tasks and the bundled text: shapes, dtypes, what the targets mean, seeding."""
import numpy as np
import pytest

from dagrad import nn
from dagrad.nn.datasets.sequences import (adding_problem, copy_task, first_token_task, reverse_task,
                                   sum_of_digits)
from dagrad.nn.datasets.text import load_text, text_windows


def test_copy_and_reverse_tasks():
    x, y = copy_task(20, length=6, vocab_size=5, seed=0)
    assert x.shape == y.shape == (20, 6) and x.dtype == np.int64
    assert x.min() >= 0 and x.max() < 5
    np.testing.assert_array_equal(x, y)
    x, y = reverse_task(20, length=6, vocab_size=5, seed=0)
    np.testing.assert_array_equal(y, x[:, ::-1])
    np.testing.assert_array_equal(reverse_task(20, 6, 5, seed=0)[0], x)      # seeded
    assert not np.array_equal(reverse_task(20, 6, 5, seed=1)[0], x)


def test_sum_of_digits_and_first_token_task():
    x, y = sum_of_digits(30, length=4, seed=0)
    assert x.shape == (30, 4) and y.shape == (30,) and x.max() <= 9
    np.testing.assert_array_equal(y, x.sum(axis=1))
    x, y = first_token_task(50, distractors=10, num_classes=3, num_distractors=5, seed=0)
    assert x.shape == (50, 11) and y.dtype == np.int64
    np.testing.assert_array_equal(y, x[:, 0])
    assert y.max() < 3 and x[:, 1:].min() >= 3 and x[:, 1:].max() < 8
    assert len(np.unique(y)) == 3


def test_adding_problem():
    x, y = adding_problem(40, length=10, seed=0)
    assert x.shape == (40, 10, 2) and x.dtype == y.dtype == np.float32
    marks = x[..., 1]
    assert (marks.sum(axis=1) == 2).all()
    assert (marks[:, :5].sum(axis=1) == 1).all()           # one marker in each half
    np.testing.assert_allclose(y, (x[..., 0] * marks).sum(axis=1), rtol=1e-6)


def test_task_errors():
    with pytest.raises(ValueError, match="positive"):
        copy_task(0)
    with pytest.raises(ValueError, match="at least 2"):
        adding_problem(5, length=1)


def test_bundled_text_and_windows():
    text = load_text()
    assert text.startswith("ALICE'S ADVENTURES IN WONDERLAND")
    assert 20_000 < len(text) < 50_000 and "Down the Rabbit-Hole" in text
    with pytest.raises(ValueError, match="available"):
        load_text("hamlet")
    ids = nn.datasets.CharTokenizer(text).encode(text)
    windows = text_windows(ids, 10)
    assert windows.shape == ((len(ids) - 11) // 10 + 1, 11) and windows.dtype == np.int64
    np.testing.assert_array_equal(windows[1], ids[10:21])
    overlapping = text_windows(ids, 10, stride=3)
    np.testing.assert_array_equal(overlapping[2], ids[6:17])
    with pytest.raises(ValueError, match="longer than length"):
        text_windows(ids[:5], 10)
