"""Every misconception a lesson's exercise lists is recognised: the wrong answer it computes,
given to the exercise's check (the other answers right), gets the misconception's own tag, and
the message of that first attempt holds no right value. A misconception that another one, or
a generic detector, shadows, or that equals the right answer, fails here.

The exercises are set up as their lessons set them up (``given``), on the same objects.
"""
import importlib

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import viz
from dagrad.exercises import Misconception, check, given, tutor
from dagrad.exercises.compare import fmt_array
from tests.test_exercises_notebooks import shows

LESSONS = ("06", "07", "08")


# --------------------------------------------------------------------- the lessons' set-ups
def unrolled_scalar_rnn():
    """Lesson 08, §1: the three-step scalar RNN and its loss L = (h_3 − y)²."""
    w, u, b = (ag.tensor(v, dtype=ag.float64, requires_grad=True) for v in (0.8, -1.3, 0.1))
    h, states = ag.zeros((), dtype=ag.float64), []
    for x in (1.0, -0.5, 2.0):
        h = ag.tanh(w * ag.tensor(x, dtype=ag.float64) + u * h + b)
        states.append(h)
    L = (states[-1] - 0.4) ** 2
    return dict(h_1=states[0], h_2=states[1], h_3=states[2], u=u, y=0.4, L=L)


def vector_rnn():
    """Lesson 08, Exercise 3: a 3-unit RNN over 4 steps, L = c · h_4."""
    rng = np.random.default_rng(1)
    W_xh = ag.tensor(0.5 * rng.normal(size=(3, 2)), dtype=ag.float64, requires_grad=True)
    W_hh = ag.tensor(0.5 * rng.normal(size=(3, 3)), dtype=ag.float64, requires_grad=True)
    b_h = ag.tensor(np.full(3, 0.1), dtype=ag.float64, requires_grad=True)
    x_steps, c = rng.normal(size=(4, 2)), np.array([1.0, -2.0, 0.5])
    h = ag.zeros(3, dtype=ag.float64)
    with viz.record():
        for x_t in x_steps:
            h = ag.tanh(W_xh @ ag.tensor(x_t) + W_hh @ h + b_h)
        loss = (h * ag.tensor(c)).sum()
    return dict(W_xh=W_xh, W_hh=W_hh, b_h=b_h, x_steps=x_steps, c=c, rnn_loss=loss)


def deep_networks():
    """Lesson 06, §1 and §2: make_net (sigmoid or ReLU, default or given initialisation), the
    first step's weight-gradient norms, and the digits."""
    from dagrad import nn
    X, y = nn.datasets.load_digits()
    X_train, _, y_train, _ = nn.datasets.train_test_split(X, y, test_size=0.2, seed=0)
    acts = {"sigmoid": nn.Sigmoid, "relu": nn.ReLU}

    def make_net(activation, depth=10, init=None):
        layers = [nn.Linear(64, 64), acts[activation]()]
        for _ in range(depth):
            layers += [nn.Linear(64, 64), acts[activation]()]
        net = nn.Sequential(*layers, nn.Linear(64, 10))
        if init is not None:
            for m in net.modules():
                if isinstance(m, nn.Linear):
                    init(m.weight)
                    nn.init.zeros_(m.bias)
        return net

    def first_step(net):
        xb, yb = next(iter(nn.data.DataLoader(nn.data.TensorDataset(X_train, y_train),
                                              batch_size=64, shuffle=True, seed=0)))
        nn.functional.cross_entropy(net(xb), yb).backward()
        return np.array([np.linalg.norm(m.weight.grad.numpy()) for m in net.modules()
                         if isinstance(m, nn.Linear)])
    return dict(make_net=make_net, first_step=first_step,
                init=lambda w: nn.init.normal_(w, 0.0, 1.0), data=(X_train, y_train))


def normalise_rows(z, axis):
    return (z - z.mean(axis=axis, keepdims=True)) / np.sqrt(z.var(axis=axis, keepdims=True) + 1e-5)


def convolution():
    """Lesson 07, Exercise 2: a 3×3 input, a 2×2 kernel, L = Σ G ⊙ (X ⋆ K)."""
    import dagrad.nn.functional as F
    X = ag.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, 1.0, 1.0]], dtype=ag.float64,
                  requires_grad=True)
    K = ag.tensor([[1.0, -1.0], [2.0, 0.5]], dtype=ag.float64, requires_grad=True)
    G = np.array([[1.0, 0.5], [-2.0, 1.0]])
    with viz.record():
        loss = (F.conv2d(X[None, None], K[None, None])[0, 0] * ag.tensor(G)).sum()
    return dict(X=X, K=K, G=G, loss=loss)


def max_pooling():
    """Lesson 07, Exercise 5: 2×2 max pooling of a 4×4 input, L = Σ G ⊙ pool(X)."""
    import dagrad.nn.functional as F
    X = ag.tensor([[1.0, 5.0, 2.0, 0.0], [3.0, 2.0, 8.0, 1.0], [0.0, 4.0, 1.0, 1.0],
                   [6.0, 2.0, 3.0, 7.0]], dtype=ag.float64, requires_grad=True)
    G = np.array([[1.0, -2.0], [3.0, 0.5]])
    with viz.record():
        loss = (F.max_pool2d(X[None, None], 2)[0, 0] * ag.tensor(G)).sum()
    return dict(X=X, G=G, loss=loss)


def dense_layer():
    """Lesson 07, §10: y = [x, relu(conv(x))] along the channels."""
    from dagrad import nn

    class DenseLayer(nn.Module):
        def __init__(self, channels, growth):
            super().__init__()
            self.conv = nn.Conv2d(channels, growth, 3, padding=1)

        def forward(self, x):
            return ag.cat([x, ag.relu(self.conv(x))], dim=1)
    return dict(DenseLayer=DenseLayer)


SETUPS = {"07.2": convolution, "07.5": max_pooling, "07.11": dense_layer,
          "08.1": unrolled_scalar_rnn, "08.3": vector_rnn,
          "06.1": lambda: {k: v for k, v in deep_networks().items()
                           if k in ("make_net", "first_step")},
          "06.3": lambda: {k: v for k, v in deep_networks().items()
                           if k in ("make_net", "init", "data")}}

# the right forward of each operation a Backward part judges, for the misconceptions'
# backwards to run beside
FORWARDS = {"08.2": np.tanh, "06.6": lambda z: normalise_rows(z, 0),
            "06.7": lambda z, gamma: gamma * normalise_rows(z, -1)}


# ------------------------------------------------------------------------------ the cases
def lesson_exercises():
    for lesson in LESSONS:
        importlib.import_module(f"dagrad.exercises.lessons.lesson_{lesson}")
    return {k: ex for k, ex in tutor.REGISTRY.items() if k[:2] in LESSONS}


def cases():
    found = []
    for ident, ex in sorted(lesson_exercises().items()):
        for p, part in enumerate(ex.parts):
            seen = set()
            for m in part.misconceptions:
                key = (m.tag, m.sentence)
                if key in seen:
                    continue
                seen.add(key)
                found.append(pytest.param(ident, p, m, id=f"{ident}-{m.tag}-{len(seen)}"))
    return found


def set_up(ident):
    objects = SETUPS[ident]() if ident in SETUPS else {}
    if objects:
        given(ident, **objects)
    return tutor.GIVEN.get(ident, tutor.Given())


def right_answers(ident, g):
    """{answer name: the right answer} for every part of exercise ``ident``."""
    answers = {}
    for part in tutor.REGISTRY[ident].parts:
        if isinstance(part, tutor.Grads):
            if id(part) not in g.cache:
                part.prepare(g)
            answers.update(g.cache[id(part)].right)
        elif isinstance(part, tutor.Backward):
            answers[part.answers[0]] = None                 # filled in by the case
        else:
            expected = part.expected(g) if callable(part.expected) else part.expected
            if isinstance(expected, (set, frozenset)):
                expected = sorted(expected)[0]
            answers[part.answers[0]] = expected
    return answers


def as_operation(ident, wrong_backward):
    """A NumPy (forward, backward) pair whose backward is ``wrong_backward(grad, *x, out)``."""
    forward = FORWARDS[ident]
    return (forward, lambda grad, *x: wrong_backward(grad, *x, forward(*x))[0]
            if len(x) == 1 else wrong_backward(grad, *x, forward(*x)))


@pytest.mark.parametrize("ident, p, m", cases())
def test_each_misconception_is_named_when_made(ident, p, m):
    g = set_up(ident)
    part = tutor.REGISTRY[ident].parts[p]
    answers = right_answers(ident, g)
    wrong = m.value(g)
    assert wrong is not None, f"{ident}: misconception {m.tag!r} computes nothing here"
    if isinstance(part, tutor.Backward):
        answers[part.answers[0]] = as_operation(ident, wrong)
    elif isinstance(wrong, dict):
        answers.update(wrong)
    else:
        answers[part.answers[0]] = wrong
    result = check(ident, **answers)
    assert not result.ok, f"{ident}: the misconception {m.tag!r} is judged right"
    found = result.diagnoses or [result.diagnosis]
    assert m.tag in found, f"{ident}: {m.tag!r} made, diagnosed {found}: {result.message}"
    said = m.sentence.split(":")[0][:40].lower()
    assert said in result.message.replace("\n", " ").lower(), result.message
    for secret in result.secrets:
        if len(secret) >= 2 and secret not in result.yours:
            assert not shows(secret, result.message), f"{ident}: the first attempt shows {secret!r}"


def test_every_lesson_exercise_lists_a_misconception():
    """The lessons teach against named mistakes: each checked exercise names at least one."""
    bare = [k for k, ex in lesson_exercises().items()
            if not any(p.misconceptions for p in ex.parts)]
    assert not bare, f"exercises without a misconception: {bare}"


def test_right_answers_are_right():
    """The set-ups above agree with the exercises: the right answers pass (Backward parts are
    checked by the notebooks' solutions)."""
    for ident, ex in lesson_exercises().items():
        if any(isinstance(p, tutor.Backward) for p in ex.parts):
            continue
        g = set_up(ident)
        result = check(ident, **right_answers(ident, g))
        assert result.ok, f"{ident}: {result.message}"


def test_a_bptt_step_missing_is_named_by_its_step():
    """08.3 with the loop stopping before t = 1: the message names step t = 1."""
    from dagrad.exercises.lessons.lesson_08 import bptt
    g = set_up("08.3")
    wrong = bptt(g, skip=(1,))
    result = check("08.3", wrong["d_W_xh"], wrong["d_W_hh"], wrong["d_b"])
    assert result.diagnosis == "missing_term" and "t = 1" in result.message
    assert fmt_array(bptt(g)["d_b"]) not in result.message


def test_going_back_to_a_check_after_backward_and_reused_names():
    """08.1's check after L.backward() freed the graph, 08.3's after its names were reused."""
    objects = unrolled_scalar_rnn()
    given("08.1", **objects)
    objects["L"].backward()
    from dagrad.exercises.lessons.lesson_08 import _delta_h1
    assert check("08.1", _delta_h1(tutor.GIVEN["08.1"])).ok
    objects = vector_rnn()
    given("08.3", **objects)
    W_hh = ag.zeros(5, 5)                                     # noqa: F841  (§3 reuses the name)
    from dagrad.exercises.lessons.lesson_08 import bptt
    right = bptt(tutor.GIVEN["08.3"])
    assert check("08.3", right["d_W_xh"], right["d_W_hh"], right["d_b"]).ok


def test_misconception_keys_name_real_answers():
    for ident, ex in lesson_exercises().items():
        for part in ex.parts:
            for m in part.misconceptions:
                assert isinstance(m, Misconception)
                if isinstance(part, tutor.Grads):
                    g = set_up(ident)
                    wrong = m.value(g)
                    if isinstance(wrong, dict):
                        assert set(wrong) <= set(part.answers), (ident, m.tag, set(wrong))


def test_a_gradient_read_after_two_backward_passes_is_named_accumulation():
    """07.5 answered with X.grad after the cell that runs backward() ran twice."""
    objects = max_pooling()
    given("07.5", **objects)
    for _ in range(2):
        objects["loss"].backward(retain_graph=True)
    result = check("07.5", objects["X"].grad)
    assert result.diagnosis == "accumulation" and "2 times" in result.message
