"""Lesson 00, build your own engine: the exercises' expected values, reasons and misconceptions.

00.1 the product (a·b, and a·a: a value used twice); 00.2 tanh and exp; 00.3 powers and ReLU;
00.4 −, − and / composed of the operations before; 00.5 the topological order; 00.6 backward;
00.7 ∂L/∂r read off the student's own graph, and as a formula in r; 00.8 a neuron; 00.9 one
SGD step (zeroing the gradients: accumulation); 00.10 the training loop, on the student's
whole engine, against the same network on dagrad.

Each piece the student writes is run on small graphs by the ``run_*`` functions of
``engine_00`` and its numbers compared with dagrad's; a misconception is the same run with
the lesson's own piece flagged to make the mistake the lesson warns about. A piece after the
first ones runs on values with the lesson's own operations (``engine_00.isolated``), so that
an earlier exercise's mistake is not blamed on it; the training loop runs on the student's
whole engine and names the earlier exercises to fix first (``builds_on``).
"""
import numpy as np

from ..detectors import Misconception
from ..tutor import Exercise, Value, define
from . import engine_00 as E


def _tensor(x, grad=True):
    from dagrad import autograd as ag
    return ag.tensor(x, dtype=ag.float64, requires_grad=grad)


def _backward_from(out, seed):
    from dagrad import autograd as ag
    out.backward(gradient=ag.tensor(seed, dtype=ag.float64))


# --------------------------------------------------------------------- 00.1 the product
MUL_LABELS = ["a·b", "a.grad after a·b", "b.grad after a·b", "a·a",
              "a.grad after a·a (a used twice)"]


def mul_by_dagrad(g):
    a, b, c = _tensor(2.0), _tensor(-3.0), _tensor(1.5)
    out, square = a * b, c * c
    _backward_from(out, E.SEED)
    _backward_from(square, E.SEED)
    return [out.item(), a.grad.item(), b.grad.item(), square.item(), c.grad.item()]


OVERWRITE = ("your _backward sets the input's grad with `=`, so in a·a (a is both inputs) "
             "the second line replaces what the first sent: a value used twice must receive "
             "the sum of both uses' gradients (the chain rule sums over the uses), so add "
             "with `+=`")
OVERWRITE_ONE = ("your _backward sets x.grad with `=`, so what another use of x had already "
                 "sent is lost: a value used several times must receive the sum of all its "
                 "uses' gradients (the chain rule sums over the uses), so add with `+=`")
NO_UPSTREAM = ("the incoming out.grad ({seed} in the check) is missing: the chain rule "
               "multiplies the local derivative by the gradient that arrives at the output")


def flagged(run, make, words):
    """Misconceptions, one per combination of a piece's flags: ``words`` maps each flag to
    its sentence; ``run(g, piece)`` gives the numbers the flagged piece computes."""
    from itertools import combinations
    found = []
    flags = list(words)
    for n in range(1, len(flags) + 1):
        for chosen in combinations(flags, n):
            piece = make(**{f: True for f in chosen})
            found.append(Misconception(
                "_".join(chosen) if n == 1 else "several",
                lambda g, piece=piece: run(g, piece),
                "; and ".join(words[f].format(seed=E.SEED) for f in chosen)))
    return found


def run_mul(g, piece):
    return E.run_mul(g.Value, piece)


MUL_MISTAKES = flagged(run_mul, E.mul, {
    "overwrite": OVERWRITE,
    "own": "each input receives its own value times out.grad: ∂(a·b)/∂a is the other input, "
           "b, and ∂(a·b)/∂b is a",
    "no_upstream": NO_UPSTREAM})


# --------------------------------------------------------------------- 00.2 tanh and exp
ROW_LABELS = [f"x = {x:g}" for x, _ in E.UNARY_CASES[:-1]] + [
    f"x = {E.UNARY_CASES[-1][0]:g} with x.grad already {E.EARLIER:g} (another use)"]
UNARY_COORDS = (lambda i: ROW_LABELS[i], lambda j: ("the output", "x.grad")[j])


def unary_by_dagrad(function, cases=E.UNARY_CASES):
    rows = []
    for x_value, before in cases:
        x = _tensor(x_value)
        out = function(x)
        _backward_from(out, E.SEED)
        rows.append([out.item(), before + x.grad.item()])
    return rows


def run_unary(g, piece):
    return E.run_unary(g.Value, piece)


TANH_MISTAKES = flagged(run_unary, E.tanh, {
    "of_input": "your local derivative is 1 − x², with the input x: tanh's derivative is "
                "1 − y², with the output y = tanh x (out.data)",
    "no_upstream": NO_UPSTREAM, "overwrite": OVERWRITE_ONE})
EXP_MISTAKES = flagged(run_unary, E.exp, {
    "power_rule": "your local derivative is x · e^(x − 1), the power rule: eˣ is not a power "
                  "of x, and it is its own derivative",
    "no_upstream": NO_UPSTREAM, "overwrite": OVERWRITE_ONE})


# --------------------------------------------------------------------- 00.3 powers, ReLU
POWER_LABELS = [f"x = {x:g}, k = {k:g}" + (f" with x.grad already {rest[0]:g} (another use)"
                                           if rest else "")
                for x, k, *rest in E.POWER_CASES]


def power_by_dagrad(g):
    rows = []
    for x_value, k, *before in E.POWER_CASES:
        x = _tensor(x_value)
        out = x ** k
        _backward_from(out, E.SEED)
        rows.append([out.item(), (before[0] if before else 0.0) + x.grad.item()])
    return rows


def run_power(g, piece):
    return E.run_power(g.Value, piece)


POWER_MISTAKES = flagged(run_power, E.power, {
    "keep_exponent": "your local derivative is k · xᵏ, the exponent kept: the power rule "
                     "lowers it by one",
    "no_factor": "your local derivative leaves out the factor k of the power rule",
    "no_upstream": NO_UPSTREAM, "overwrite": OVERWRITE_ONE})
RELU_MISTAKES = flagged(run_unary, E.relu, {
    "value_as_derivative": "your local derivative is relu(x) itself: the derivative of "
                           "max(0, x) is the step [x > 0]",
    "always_one": "your local derivative is 1 everywhere: where x < 0 the output is the "
                  "constant 0, whose derivative is 0",
    "no_upstream": NO_UPSTREAM, "overwrite": OVERWRITE_ONE})


# --------------------------------------------------------------------- 00.4 compositions
COMPOSED_LABELS = {1: ["−a, a = 1.5"], 2: ["a = 1.5, b = −0.5 (a Value)",
                                          "a = 1.5, b = 2 (a number)"]}
COMPOSED_COLS = ("the output", "a.grad", "b.grad")


def composed_by_dagrad(function, arity):
    rows = []
    for other in ((-0.5, 2.0) if arity == 2 else (None,)):
        a = _tensor(1.5)
        b = _tensor(other) if other == -0.5 else other
        out = function(a, b) if arity == 2 else function(a)
        _backward_from(out, E.SEED)
        rows.append([out.item(), a.grad.item(),
                     b.grad.item() if hasattr(b, "grad") and b.grad is not None else 0.0])
    return rows


def composed(answer, arity, function, make, mistake, sentence, rule, why):
    coords = (lambda i: COMPOSED_LABELS[arity][i], lambda j: COMPOSED_COLS[j])
    return Value(answer, lambda g: composed_by_dagrad(function, arity), name=f"The result of your {answer}",
                 run=lambda g, piece: E.run_composed(g.Value, piece, arity), coords=coords,
                 misconceptions=[Misconception(
                     mistake, lambda g: E.run_composed(g.Value, make(**{mistake: True}),
                                                       arity), sentence)],
                 rule=rule, why=why)


# --------------------------------------------------------------------- 00.5 the order
ORDER_LABELS = ("entries in your list", "different values in it", "values of the graph it "
                "misses", "values listed before one of their inputs")


def order_rule(g, answers):
    names = E.order_names(g.Value, answers["topological_order"])
    return (f"Your list for c = a + b, d = c · a, e = d + c is [{names}]. A depth-first walk "
            f"appends a value after visiting its inputs, and skips a value it has already "
            f"visited (a and c are each used twice)")


# --------------------------------------------------------------------- 00.6 backward
def neuron_by_dagrad(g):
    x, w, b = (_tensor(E.NEURON[k]) for k in "xwb")
    r = (x * w + b).tanh() - E.NEURON["t"]
    r.retain_grad()
    (r * r).backward()
    return [r.grad.item(), x.grad.item(), w.grad.item(), b.grad.item()]


def run_backward(g, piece):
    return E.run_backward(g.Value, piece)


BACKWARD_LABELS = ("∂L/∂r", "∂L/∂x", "∂L/∂w", "∂L/∂b")


# --------------------------------------------------------------------- 00.7 the picture
R_GRID = np.linspace(-2.0, 2.0, 9)


def r_of_the_neuron(g):
    return np.tanh(E.NEURON["x"] * E.NEURON["w"] + E.NEURON["b"]) - E.NEURON["t"]


def square_derivative(r_values):
    r = _tensor(r_values)
    (r * r).sum().backward()
    return r.grad.numpy()


# --------------------------------------------------------------------- 00.8 the neuron
NEURON_ROWS = ("a ReLU neuron with w·x + b > 0", "a linear neuron (relu=False)",
               "a ReLU neuron with w·x + b < 0")
NEURON_COLS = ("the output", "∂out/∂w_1", "∂out/∂w_2", "∂out/∂b", "∂out/∂x_1", "∂out/∂x_2")


def neuron_cases_by_dagrad(g):
    from dagrad import autograd as ag
    rows = []
    for w_values, b_value, use_relu in E.NEURON_CASES:
        w, b, x = _tensor(w_values), _tensor(b_value), _tensor(E.NEURON_INPUT)
        out = (w * x).sum() + b
        out = ag.relu(out) if use_relu else out
        out.backward()
        rows.append([out.item(), *w.grad.numpy(), b.grad.item(), *x.grad.numpy()])
    return rows


def neuron_mistake(no_bias=False, no_activation=False, cut=False):
    return E.neuron_call(bias=not no_bias, activation=not no_activation, cut=cut)


def run_neuron(g, piece):
    return E.run_neuron(g.Value, g.Neuron, piece)


# --------------------------------------------------------------------- 00.9, 00.10 training
def twin(sizes, weights):
    """The lesson's MLP as dagrad modules, float64, with the given weights: ``nn.Linear``'s
    weight is (out, in), so row j holds neuron j's weights."""
    from dagrad import autograd as ag
    from dagrad import nn
    layers, it = [], iter(weights)
    for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:])):
        rows = [[next(it) for _ in range(n_in + 1)] for _ in range(n_out)]
        linear = nn.Linear(n_in, n_out, dtype=ag.float64)
        linear.load_state_dict({"weight": np.array([r[:-1] for r in rows]),
                                "bias": np.array([r[-1] for r in rows])})
        layers.append(linear)
        if k < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


def dagrad_losses(sizes, weights, X, y, lr, steps, zero_grad=True):
    """The mean squared error before each of ``steps`` full-batch SGD steps of the twin, and
    after the last."""
    from dagrad import autograd as ag
    from dagrad import nn, optim
    model = twin(sizes, weights)
    opt = optim.SGD(model.parameters(), lr=lr)
    X, y = ag.tensor(np.asarray(X, dtype=np.float64)), ag.tensor(
        np.asarray(y, dtype=np.float64)[:, None])
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(X), y)
        losses.append(loss.item())
        if zero_grad:
            opt.zero_grad()
        loss.backward()
        opt.step()
    losses.append(nn.functional.mse_loss(model(X), y).item())
    return losses


SGD_STEPS = 4            # 00.9 runs the student's step this many times


def sgd_by_dagrad(g, lr_scale=1.0, zero_grad=True):
    return dagrad_losses(g.sizes, g.weights, g.X, g.y, g.lr * lr_scale, SGD_STEPS, zero_grad)


def run_sgd(g, piece):
    return E.run_sgd(g.Value, piece, g.sizes, g.weights, g.X, g.y, g.lr, SGD_STEPS)


def step_labels(n, last_after=True):
    return lambda i: (f"after step {i}" if last_after and i == n else f"step {i + 1}")


def train_by_dagrad(g, shifted=False):
    losses = dagrad_losses(g.sizes, g.weights, g.X, g.y, g.lr, g.steps)
    return losses[1:] if shifted else losses[:-1]


define(
    Exercise("00.1", Value(
        "value_mul", mul_by_dagrad, name="The result of your value_mul", run=run_mul,
        coords=(lambda i: MUL_LABELS[i],), misconceptions=MUL_MISTAKES,
        rule=f"out = a·b; its _backward adds out.grad · b into a.grad and out.grad · a into "
             f"b.grad, with out.grad = {E.SEED}. In a·a both lines add into the same a.grad",
        why="∂(a·b)/∂a = b and ∂(a·b)/∂b = a: self.grad += other.data * out.grad and "
            "other.grad += self.data * out.grad. For a·a both lines add into a.grad, "
            "2a · out.grad in all, the derivative of a²")),

    Exercise(
        "00.2",
        Value("value_tanh", lambda g: unary_by_dagrad(lambda t: t.tanh()),
              name="The result of your value_tanh", run=run_unary, coords=UNARY_COORDS,
              misconceptions=TANH_MISTAKES,
              rule=f"y = tanh x; its _backward adds out.grad · (1 − y²) into x.grad, with "
                   f"out.grad = {E.SEED} and y = out.data",
              why="dy/dx = 1 − tanh²x = 1 − y²: self.grad += (1 - out.data ** 2) * out.grad"),
        Value("value_exp", lambda g: unary_by_dagrad(lambda t: t.exp()),
              name="The result of your value_exp", run=run_unary, coords=UNARY_COORDS,
              misconceptions=EXP_MISTAKES,
              rule=f"y = eˣ; its _backward adds out.grad · eˣ into x.grad, with out.grad = "
                   f"{E.SEED} and eˣ = out.data",
              why="dy/dx = eˣ = y: self.grad += out.data * out.grad")),

    Exercise(
        "00.3",
        Value("value_pow", power_by_dagrad, name="The result of your value_pow", run=run_power,
              coords=(lambda i: POWER_LABELS[i], lambda j: ("the output", "x.grad")[j]),
              misconceptions=POWER_MISTAKES,
              rule=f"y = xᵏ; its _backward adds out.grad · k · x^(k − 1) into x.grad, with "
                   f"out.grad = {E.SEED}",
              why="the power rule: dy/dx = k x^(k − 1), so self.grad += k * self.data ** (k - 1)"
                  " * out.grad"),
        Value("value_relu", lambda g: unary_by_dagrad(lambda t: t.relu()),
              name="The result of your value_relu", run=run_unary, coords=UNARY_COORDS,
              misconceptions=RELU_MISTAKES,
              rule=f"y = max(0, x); its _backward adds out.grad · [x > 0] into x.grad, with "
                   f"out.grad = {E.SEED}",
              why="dy/dx is 1 where x > 0 and 0 where x < 0: self.grad += (self.data > 0) * "
                  "out.grad")),

    Exercise(
        "00.4",
        composed("value_neg", 1, lambda a: -a, E.neg, "new_leaf",
                 "yours makes a new leaf Value(−a.data): it has no inputs, so no gradient "
                 "reaches a. Compose −a of the operations you have, and the graph remembers a",
                 "−a = a · (−1): the product's _backward sends out.grad · (−1) to a",
                 "return self * -1"),
        composed("value_sub", 2, lambda a, b: a - b, E.sub, "new_leaf",
                 "yours subtracts b's number, a + Value(−b.data): that new leaf has no inputs, "
                 "so no gradient reaches b. Negate the Value b itself, −b",
                 "a − b = a + (−b): the sum sends out.grad to a and to −b, and −b = b · (−1) "
                 "sends it on to b times −1",
                 "return self + (-other), with a number other made a Value first"),
        composed("value_truediv", 2, lambda a, b: a / b, E.truediv, "constant",
                 "yours divides by b's number, a · (1 / b.data): to the engine that is a "
                 "constant, so no gradient reaches b. Compose a / b = a · b⁻¹ of the Value b",
                 "a / b = a · b⁻¹: the product sends out.grad · b⁻¹ to a and out.grad · a to "
                 "b⁻¹, and the power sends that on to b times −b⁻²",
                 "return self * other ** -1, with a number other made a Value first")),

    Exercise("00.5", Value(
        "topological_order", lambda g: [len(E.diamond(g.Value)[1])] * 2 + [0, 0], name="The tally of your order of c = a + b, "
        "d = c · a, e = d + c", run=lambda g, piece: E.run_order(g.Value, piece),
        coords=(lambda i: ORDER_LABELS[i],),
        misconceptions=[
            Misconception("listed_twice", lambda g: E.run_order(
                g.Value, E.topological_order(seen=False)),
                "a value used by two operations (a and c here) is listed once per use: the "
                "walk reaches it twice, and backward would then run its _backward twice. "
                "Keep a set of the values already visited and skip them"),
            Misconception("inputs_after", lambda g: E.run_order(
                g.Value, E.topological_order(preorder=True)),
                "your list puts each value before its inputs (the output first): append a "
                "value after visiting its inputs, so that every value comes after what it "
                "was computed from")],
        rule=order_rule,
        why="visit(v): if v was visited, return; mark it; visit each input in v._prev; "
            "then append v. Each value is appended once, after all of its inputs")),

    Exercise("00.6", Value(
        "backward", neuron_by_dagrad, name="The result of your backward on the neuron",
        run=run_backward, coords=(lambda i: BACKWARD_LABELS[i],),
        misconceptions=[
            Misconception("forward_order", lambda g: run_backward(g, E.backward(reverse=False)),
                          "yours walks the order forwards: a value then runs its _backward "
                          "before the operations that use it have sent their gradients, so "
                          "only the last operation's step counts. Walk it in reverse"),
            Misconception("no_seed", lambda g: run_backward(g, E.backward(seed=False)),
                          "every gradient stays 0: the loss's own grad must be set to "
                          "∂L/∂L = 1 before the loop, or every product of the chain rule "
                          "starts from 0")],
        rule="root.grad = 1.0, then for v in reversed(topological_order(root)): "
             "v._backward()",
        why="set root.grad = 1.0, then call v._backward() for every v of "
            "reversed(topological_order(root)): each value's grad is complete before it is "
            "passed on")),

    Exercise(
        "00.7",
        Value("dL_dr", lambda g: square_derivative(r_of_the_neuron(g)).item(),
              name="∂L/∂r read off the picture",
              tol=1e-3,
              misconceptions=[Misconception(
                  "one_edge", lambda g: r_of_the_neuron(g),
                  "yours is the gradient on one of the two edges: r is used twice by the "
                  "product, and its gradient is the sum of what both uses send back")],
              rule="∂L/∂r is the sum of the two numbers on r's edges into the product (its "
                   "box shows the sum)",
              why="L = r · r: each edge carries L.grad · r = r (the other input is r), and "
                  "the two add up to 2r"),
        Value("dL_dr_in_r", lambda g: square_derivative(R_GRID), name="Your ∂L/∂r as a "
              "function of r", at=R_GRID, coords=("r", R_GRID),
              misconceptions=[Misconception(
                  "one_edge", lambda g: R_GRID,
                  "yours is what one edge carries, r: the two uses of r add up")],
              rule="L = r · r: the product sends out.grad · (the other input) to each input",
              why="∂(r · r)/∂r = r + r = 2r, the two uses' contributions added")),

    Exercise("00.8", Value(
        "neuron_call", neuron_cases_by_dagrad, name="The result of your neuron_call", run=run_neuron,
        coords=(lambda i: NEURON_ROWS[i], lambda j: NEURON_COLS[j]),
        misconceptions=flagged(run_neuron, neuron_mistake, {
            "no_bias": "your neuron leaves out the bias b",
            "no_activation": "your neuron ignores self.relu: a ReLU neuron applies relu() to "
                             "w·x + b",
            "cut": "your neuron computes with the weights' numbers (w.data): new leaves with "
                   "no inputs, so no gradient reaches self.w. Compute with the Values self.w"}),
        rule="act = w_1 x_1 + w_2 x_2 + b, built with your * and + on the Values; the output "
             "is act.relu() when self.relu, else act",
        why="act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b); return act.relu() if "
            "self.relu else act")),

    Exercise("00.9", Value(
        "sgd_step", sgd_by_dagrad, name="The loss curve of your sgd_step", tol=1e-9, run=run_sgd,
        coords=(step_labels(SGD_STEPS),),
        misconceptions=[
            Misconception("accumulation", lambda g: sgd_by_dagrad(g, zero_grad=False),
                          "from the second step on, yours moves too far: every parameter's "
                          ".grad still holds the gradients of the steps before, because "
                          "backward adds (+=) into .grad. Set each parameter's grad to 0 "
                          "before backward"),
            Misconception("zero_after", lambda g: sgd_by_dagrad(g, lr_scale=0.0),
                          "your parameters never move: their gradients are cleared between "
                          "backward and the update (or the update changes a copy, not "
                          "p.data)"),
            Misconception("ascent", lambda g: sgd_by_dagrad(g, lr_scale=-1.0),
                          "your step goes up the gradient: the loss grows. A step goes "
                          "against it, p.data −= lr · p.grad"),
            Misconception("no_lr", lambda g: sgd_by_dagrad(g, lr_scale=1.0 / g.lr),
                          "your step leaves out the learning rate lr")],
        rule="for each p: p.grad = 0.0; then loss.backward(); then for each p: p.data -= lr "
             "* p.grad",
        why="zero every parameter's grad (backward adds into it), run loss.backward(), then "
            "move every parameter against its gradient: p.data -= lr * p.grad")),

    Exercise("00.10", Value(
        "my_losses", train_by_dagrad, name="Your loss curve", tol=1e-9,
        coords=(step_labels(0, last_after=False),),
        misconceptions=[Misconception(
            "recorded_after", lambda g: train_by_dagrad(g, shifted=True),
            "yours are the losses after each step: record loss.data of the loss the step "
            "was computed from, before the parameters move")],
        rule="for each of the steps: loss = mse([model(x) for x in X_moons], y_moons); "
             "sgd_step(model.parameters(), loss, lr); my_losses.append(loss.data)",
        why="each step computes the loss on all the points, records loss.data, and takes one "
            "sgd_step; dagrad's nn.Linear/SGD twin of the same network, from the same weights, "
            "gives the same losses to rounding"),
        builds_on=("00.1", "00.3", "00.4", "00.5", "00.6", "00.8", "00.9")),
)
