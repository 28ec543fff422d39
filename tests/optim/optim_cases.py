"""Shared test problem and optimizer cases for tests/optim.

The problem: a small non-convex function of two parameter tensors A (3x4) and b (3,),

    f(A, b) = Σ sin(A x + b)² + 0.1 tanh(Σ A²) + 0.01 Σ exp(b)      (x fixed, float64)

written with operators and methods that autograd Tensors and torch tensors share, so the
same code builds the loss for both.
"""
import numpy as np

from dagrad import autograd as ag

_rng = np.random.default_rng(0)
A0 = _rng.normal(size=(3, 4))
B0 = _rng.normal(size=3)
X0 = _rng.normal(size=4)


def loss(A, b, x):
    """f(A, b) for A of shape (3, 4), b of shape (3,), x of shape (4,); returns a scalar."""
    z = A @ x + b
    return (z.sin() ** 2).sum() + 0.1 * (A ** 2).sum().tanh() + 0.01 * b.exp().sum()


def make_params(values=(A0, B0), dtype=np.float64):
    """Fresh leaf tensors [A, b] holding copies of ``values``."""
    return [ag.tensor(np.array(v, dtype=dtype), requires_grad=True) for v in values]


def arrange(params, groups):
    """The ``params`` argument of an optimizer: a plain list, or one group per tensor."""
    if groups is None:
        return list(params)
    return [dict(options, params=[p]) for p, options in zip(params, groups)]


def train(optimizer, params, steps, x=None, snapshot=lambda p: p.numpy().copy()):
    """Run ``steps`` optimizer steps on the problem; return [[A, b] after each step].

    ``x`` (default ``ag.tensor(X0)``) and ``snapshot`` (parameter -> ndarray) let the same
    loop drive torch.optim.
    """
    x = ag.tensor(X0) if x is None else x
    path = []
    for _ in range(steps):
        optimizer.zero_grad()
        loss(*params, x).backward()
        optimizer.step()
        path.append([snapshot(p) for p in params])
    return path


# (optimizer name, constructor kwargs, per-group options for [A, b] or None)
CASES = [
    ("SGD", {}, None),
    ("SGD", {"lr": 0.1}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.9}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "dampening": 0.3}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True}, None),
    ("SGD", {"lr": 0.1, "weight_decay": 0.1}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.5, "maximize": True}, None),
    ("SGD", {"lr": 0.05, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01},
     ({"lr": 0.02, "momentum": 0.5}, {"nesterov": False, "dampening": 0.5})),

    ("Adagrad", {}, None),
    ("Adagrad", {"lr": 0.1, "lr_decay": 0.05}, None),
    ("Adagrad", {"lr": 0.1, "weight_decay": 0.1}, None),
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.5}, None),
    ("Adagrad", {"lr": 0.1, "eps": 1e-3}, None),
    ("Adagrad", {"lr": 0.1, "maximize": True}, None),
    # (torch ignores a group's own initial_accumulator_value; see test_optimizer.py)
    ("Adagrad", {"lr": 0.1, "initial_accumulator_value": 0.3},
     ({"lr": 0.2, "lr_decay": 0.01}, {"eps": 1e-6, "weight_decay": 0.05})),

    ("RMSprop", {}, None),
    ("RMSprop", {"alpha": 0.9}, None),
    ("RMSprop", {"centered": True}, None),
    ("RMSprop", {"momentum": 0.5}, None),
    ("RMSprop", {"centered": True, "momentum": 0.9}, None),
    ("RMSprop", {"weight_decay": 0.1}, None),
    ("RMSprop", {"eps": 1e-3}, None),
    ("RMSprop", {"maximize": True}, None),
    ("RMSprop", {"lr": 0.01},
     ({"lr": 0.005, "centered": True}, {"momentum": 0.3, "alpha": 0.95})),

    ("Adadelta", {}, None),
    ("Adadelta", {"lr": 0.5, "rho": 0.5}, None),
    ("Adadelta", {"eps": 1e-4}, None),
    ("Adadelta", {"weight_decay": 0.1}, None),
    ("Adadelta", {"maximize": True}, None),
    ("Adadelta", {}, ({"lr": 1.5, "rho": 0.95}, {"eps": 1e-5, "weight_decay": 0.05})),

    ("Adam", {}, None),
    ("Adam", {"lr": 0.05}, None),
    ("Adam", {"lr": 0.05, "betas": (0.5, 0.9)}, None),
    ("Adam", {"lr": 0.05, "eps": 1e-3}, None),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1}, None),
    ("Adam", {"lr": 0.05, "amsgrad": True}, None),
    ("Adam", {"lr": 0.05, "maximize": True}, None),
    ("Adam", {"lr": 0.05, "weight_decay": 0.1, "decoupled_weight_decay": True}, None),
    ("Adam", {"lr": 0.05},
     ({"lr": 0.01, "amsgrad": True}, {"betas": (0.8, 0.99), "weight_decay": 0.01})),

    ("AdamW", {}, None),
    ("AdamW", {"lr": 0.05, "weight_decay": 0.5}, None),
    ("AdamW", {"lr": 0.05, "amsgrad": True}, None),
    ("AdamW", {"lr": 0.05, "maximize": True}, None),
    ("AdamW", {"lr": 0.05},
     ({"lr": 0.02, "weight_decay": 0.0}, {"weight_decay": 0.2, "amsgrad": True})),

    ("NAdam", {}, None),
    ("NAdam", {"lr": 0.02}, None),
    ("NAdam", {"lr": 0.02, "betas": (0.8, 0.99)}, None),
    ("NAdam", {"lr": 0.02, "momentum_decay": 0.02}, None),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1}, None),
    ("NAdam", {"lr": 0.02, "weight_decay": 0.1, "decoupled_weight_decay": True}, None),
    ("NAdam", {"lr": 0.02, "eps": 1e-3}, None),
    ("NAdam", {"lr": 0.02, "maximize": True}, None),
    ("NAdam", {"lr": 0.02},
     ({"lr": 0.01, "momentum_decay": 0.01}, {"betas": (0.7, 0.9), "weight_decay": 0.05})),
]

NAMES = sorted({name for name, _, _ in CASES})


def case_id(case):
    name, kwargs, groups = case
    parts = [f"{k}={v}" for k, v in kwargs.items()] + (["groups"] if groups else [])
    return f"{name}({','.join(parts)})"
