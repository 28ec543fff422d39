"""Toy sequence tasks for recurrent networks and attention, generated on the fly (seeded).

Each returns NumPy arrays: int64 token sequences and targets. They isolate one skill each:

- ``copy_task`` / ``reverse_task``: output the input (reversed): sequence to sequence, where
  attention shines (reversal makes the first output depend on the last input);
- ``sum_of_digits``: read a whole sequence and count (a many-to-one regression/classification);
- ``first_token_task``: remember the first token across many distractors (long-term memory:
  where a vanilla RNN's gradient vanishes and an LSTM's does not);
- ``adding_problem``: Hochreiter & Schmidhuber's long-range task on real-valued inputs.
"""
import numpy as np


def _rng(seed):
    return np.random.default_rng(seed)


def _tokens(rng, n, length, vocab_size, low=0):
    if n < 1 or length < 1 or vocab_size < 1:
        raise ValueError(f"need positive num_samples, length and vocab_size, got {n}, {length} "
                         f"and {vocab_size}")
    return rng.integers(low, low + vocab_size, size=(n, length), dtype=np.int64)


def copy_task(num_samples=1000, length=8, vocab_size=10, seed=None):
    """Sources x (num_samples, length) of tokens in [0, vocab_size) and targets y = x."""
    x = _tokens(_rng(seed), num_samples, length, vocab_size)
    return x, x.copy()


def reverse_task(num_samples=1000, length=8, vocab_size=10, seed=None):
    """Sources x (num_samples, length) of tokens in [0, vocab_size) and targets y = x reversed
    (y_t = x_{L-1-t})."""
    x = _tokens(_rng(seed), num_samples, length, vocab_size)
    return x, x[:, ::-1].copy()


def sum_of_digits(num_samples=1000, length=5, seed=None):
    """Digit sequences x (num_samples, length) in [0, 9] and their sums y (num_samples,) in
    [0, 9·length] (int64: a class, or cast to float for regression)."""
    x = _tokens(_rng(seed), num_samples, length, 10)
    return x, x.sum(axis=1)


def first_token_task(num_samples=1000, distractors=40, num_classes=4, num_distractors=4,
                     seed=None):
    """Remember the first token: x (num_samples, 1 + distractors) starts with a class token in
    [0, num_classes), followed by ``distractors`` tokens drawn from [num_classes, num_classes +
    num_distractors); the target y (num_samples,) is the first token. Chance accuracy is
    1/num_classes. Vocabulary size: num_classes + num_distractors."""
    rng = _rng(seed)
    first = _tokens(rng, num_samples, 1, num_classes)
    rest = _tokens(rng, num_samples, distractors, num_distractors, low=num_classes)
    return np.concatenate([first, rest], axis=1), first[:, 0].copy()


def adding_problem(num_samples=1000, length=50, seed=None):
    """The adding problem: x (num_samples, length, 2) float32 holds values in U(0, 1) (channel
    0) and a marker (channel 1) that is 1 at exactly two positions, one in each half; the target
    y (num_samples,) float32 is the sum of the two marked values. Predicting 1 everywhere gives
    a mean squared error of about 0.167."""
    if length < 2:
        raise ValueError(f"adding_problem: length must be at least 2, got {length}")
    rng = _rng(seed)
    values = rng.uniform(0.0, 1.0, (num_samples, length))
    half = length // 2
    rows = np.arange(num_samples)
    a = rng.integers(0, half, num_samples)
    b = rng.integers(half, length, num_samples)
    marks = np.zeros((num_samples, length))
    marks[rows, a] = marks[rows, b] = 1.0
    x = np.stack([values, marks], axis=-1).astype(np.float32)
    return x, (values[rows, a] + values[rows, b]).astype(np.float32)
