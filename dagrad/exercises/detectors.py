"""Naming the student's wrong procedure rather than the distance to the right value (the "buggy
rules" of intelligent tutoring systems): the misconceptions an exercise lists, and the generic
detectors beside them. Each returns ``(diagnosis, sentence)`` or None; no sentence states the
right value.

* ``Misconception``: a wrong variant the lesson teaches against, computed, and its name;
* ``accumulation``: exactly k times the right value, read from a ``.grad`` that backward()
  filled k times;
* ``size_factor``: off by a size of the problem (the batch size: a mean's 1/B);
* ``missing_term``: a sum over time steps or batch rows with one term left out (or only one);
* ``swapped``: two answers each equal to the other's right value;
* ``normalisation``: the right value sums to 0 along an axis (softmax rows, batch norm
  columns) and the answer does not.
"""
import numpy as np

from .compare import all_close, exact_integer, factor, fmt_number


class Misconception:
    """A named wrong answer of an exercise.

    Args:
        tag: the diagnosis the check gives when the answer matches ("direct_path_only").
        compute: a function of the exercise's given objects (a ``Given``: ``g.x``, ``g["x"]``)
            returning the wrong value; for an exercise of several gradients a dict
            {answer name: wrong value} (the answers it leaves out are not compared); for
            ``check_backward`` a NumPy backward ``(grad_out, *inputs, out) -> gradients``;
            for a choice, the wrong option itself (a constant).
        sentence: what the student did, in the lesson's words ("yours is the direct path only:
            μ and s depend on every z_j too").
    """

    def __init__(self, tag, compute, sentence):
        self.tag, self.compute, self.sentence = tag, compute, sentence

    def value(self, given):
        """The wrong variant, or None when it cannot be computed here."""
        if not callable(self.compute):
            return self.compute
        try:
            return self.compute(given)
        except Exception:             # a misconception that does not apply to these inputs
            return None

    def __repr__(self):
        return f"Misconception({self.tag!r})"


def matching(misconceptions, answer, given, tol, to_array):
    """The first misconception whose wrong value the ``answer`` array equals, as
    ``(tag, sentence)``."""
    for m in misconceptions or ():
        wrong = m.value(given)
        if wrong is None or isinstance(wrong, dict):
            continue
        try:
            wrong = to_array(wrong)
        except TypeError:
            continue
        if wrong.shape != answer.shape and wrong.size == answer.size == 1:
            wrong = wrong.reshape(answer.shape)
        if all_close(answer, wrong, tol):
            return m.tag, m.sentence
    return None


def accumulation(answer_object, answer, expected, tol, given=None):
    """Exactly k ≥ 2 times the right value, and the answer is (a view of) some tensor's
    ``.grad``: backward() ran k times and added up."""
    c = factor(answer, expected, tol)
    k = None if c is None else exact_integer(c)
    if k is None:
        return None
    owner = grad_owner(answer_object, given)
    if owner is None:
        return None
    name = owner or "the tensor"
    return "accumulation", (
        f"it is exactly {k} times the right value, and it is {name}.grad: backward() adds "
        f"into .grad (that is how the δ's of several uses add up), so after {k} runs of "
        f"backward() it holds {k} gradients. Set {name}.grad = None (what zero_grad() does) "
        f"before backward(), or run the cells again from the one that builds the graph")


def grad_owner(answer_object, given=None):
    """The name of a tensor whose ``.grad`` the answer is (shares memory with), looked for
    among the exercise's given objects and the notebook's variables; "" when the answer is a
    ``.grad`` of an unnamed tensor; None when it is not a ``.grad``."""
    from dagrad.autograd import Tensor
    try:
        mine = answer_object.numpy() if isinstance(answer_object, Tensor) else \
            np.asarray(answer_object)
    except Exception:
        return None
    if not isinstance(mine, np.ndarray) or mine.dtype == object or mine.size == 0:
        return None
    for name, t in _candidate_tensors(given):
        g = t.grad
        if g is not None and np.shares_memory(mine, g.numpy()):
            return name
    return None


def _candidate_tensors(given):
    from dagrad.autograd import Tensor
    seen = set()
    spaces = []
    try:                              # the notebook's names first: the ones the student wrote
        from IPython import get_ipython
        ip = get_ipython()
        if ip is not None:
            spaces.append(ip.user_ns)
    except ImportError:
        pass
    if given is not None:
        spaces.append(given.objects)
    for space in spaces:
        for name, t in list(space.items()):
            if isinstance(t, Tensor) and id(t) not in seen and not name.startswith("_"):
                seen.add(id(t))
                yield name, t


def size_factor(answer, expected, tol, sizes):
    """Off by exactly one of the problem's ``sizes`` ({"the batch size B": 4}): the 1/B of a
    mean left out, or applied twice."""
    c = factor(answer, expected, tol)
    if c is None and answer.size == expected.size == 1 and np.isfinite(answer).all() and \
            np.isfinite(expected).all() and np.abs(expected).min() > tol:
        c = float(answer.reshape(-1)[0] / expected.reshape(-1)[0])   # one number: its ratio
    if c is None or not sizes:
        return None
    for words, n in sizes.items():
        if n in (0, 1):
            continue
        if abs(abs(c) - n) <= 1e-6 * n:
            return "mean_factor", (f"it is exactly {n} times the right value, and {n} is "
                                   f"{words}: a 1/{n} is missing (the mean divides by it)")
        if abs(abs(c) - 1 / n) <= 1e-6 / n:
            return "mean_factor", (f"it is exactly 1/{n} of the right value, and {n} is "
                                   f"{words}: divided by {n} once too often")
    return None


def missing_term(answer, terms, tol):
    """``terms`` is [(label, array)] whose sum is the right value (one term per time step or
    batch row): the answer equals the sum without one of them, or one of them alone."""
    if not terms or len(terms) < 2:
        return None
    arrays = [np.asarray(t, dtype=np.float64) for _, t in terms]
    total = sum(arrays)
    if answer.shape != total.shape:
        return None
    for (label, _), t in zip(terms, arrays):
        if np.any(np.abs(t) > tol) and all_close(answer, total - t, tol):
            return "missing_term", (f"it is the sum without the term of {label}: that term "
                                    f"of the sum is missing")
    for (label, _), t in zip(terms, arrays):
        if all_close(answer, t, tol) and not all_close(t, total, tol):
            return "missing_term", (f"it is the term of {label} alone: the gradient is the "
                                    f"sum of the terms of all {len(terms)}")
    return None


def swapped(answers, rights, tol, names):
    """Two answers each equal to the other's right value (or its transpose): ``answers`` and
    ``rights`` are dicts name -> array, ``names`` name -> the words for it."""
    keys = [k for k in answers if k in rights and answers[k] is not None]
    for i, a in enumerate(keys):
        for b in keys[i + 1:]:
            if _same(answers[a], rights[b], tol) and _same(answers[b], rights[a], tol) \
                    and not _same(rights[a], rights[b], tol):
                return a, b, (f"yours for {names[a]} is the right value of {names[b]} and the "
                              f"other way round: the two are swapped")
    return None


def _same(x, y, tol):
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    if x.shape == y.shape:
        return all_close(x, y, tol)
    return x.ndim == 2 and x.shape == y.shape[::-1] and all_close(x.T, y, tol)


def normalisation(answer, expected, tol):
    """The right value sums to 0 along an axis (every row of softmax's δ, every column of
    batch norm's) but the answer does not: named with the first offending row or column."""
    if answer.shape != expected.shape or answer.ndim == 0:
        return None
    for axis in reversed(range(answer.ndim)):
        if answer.shape[axis] < 2:
            continue
        right_sums = expected.sum(axis=axis)
        scale = np.abs(expected).sum(axis=axis) + 1e-12
        if not np.all(np.abs(right_sums) <= 1e-6 * scale + tol):
            continue
        sums = answer.sum(axis=axis)
        bad = np.abs(sums) > 1e-6 * (np.abs(answer).sum(axis=axis) + 1e-12) + 10 * tol
        if not np.any(bad):
            continue
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        along = _axis_words(axis, answer.ndim)
        where = f" ({', '.join(str(i) for i in first)})" if first else ""
        return "normalisation", (
            f"the right value sums to 0 {along} (adding the same number to every element "
            f"there would change nothing), but yours does not: it sums to "
            f"{fmt_number(sums[first] if first else sums)}{where}")
    return None


def _axis_words(axis, ndim):
    if ndim == 1:
        return "over its elements"
    if ndim == 2:
        return "along each row" if axis == 1 else "down each column"
    return f"along axis {axis}"
