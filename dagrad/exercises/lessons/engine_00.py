"""Lesson 00's scalar engine, as the lesson's answers write it and with the mistakes the lesson
names.

Every piece is a function that works on any micrograd-shaped value class (fields ``data``,
``grad``, ``_prev``, ``_op``, ``_backward``; constructor ``Value(data, _prev=(), _op="")``),
made by a factory whose flags switch one mistake on: ``mul(overwrite=True)`` is the product
whose ``_backward`` writes ``=`` where ``+=`` belongs. The checks of lesson 00 run a student's
piece on small graphs (the ``run_*`` functions, each returning the numbers compared with
dagrad's) and name a mistake by running the flagged reference piece the same way.

``isolated(Value)`` is a subclass of the notebook's class with every reference operation and
``backward``: a later exercise's piece (backward, the neuron, the training step) is judged on
it alone, so that a mistake of an earlier exercise is not blamed on it. ``stand_in(name)`` is
the reference piece a notebook uses for an exercise not answered yet, so that the cells below
it run.
"""
import math
import types


def as_value(self, x):
    """``x`` as a value of ``self``'s class: a number becomes a leaf."""
    return x if hasattr(x, "_prev") else type(self)(x)


def _send(node, amount, overwrite):
    """Add ``amount`` into ``node.grad`` (or, the mistake, overwrite it)."""
    if overwrite:
        node.grad = amount
    else:
        node.grad += amount


# --------------------------------------------------------------------- the operations
def add():
    def value_add(self, other):
        other = as_value(self, other)
        out = type(self)(self.data + other.data, (self, other), "+")

        def _backward():
            self.grad += out.grad
            other.grad += out.grad
        out._backward = _backward
        return out
    return value_add


def mul(overwrite=False, own=False, no_upstream=False):
    """v = a · b: ∂v/∂a = b, ∂v/∂b = a. Mistakes: ``=`` for ``+=``, each input's own value for
    the other's, the incoming out.grad left out."""
    def value_mul(self, other):
        other = as_value(self, other)
        out = type(self)(self.data * other.data, (self, other), "*")

        def _backward():
            up = 1.0 if no_upstream else out.grad
            _send(self, (self.data if own else other.data) * up, overwrite)
            _send(other, (other.data if own else self.data) * up, overwrite)
        out._backward = _backward
        return out
    return value_mul


def _unary(op, forward, local, overwrite, no_upstream):
    """An operation of one input whose local derivative is ``local(x, y)``."""
    def operation(self):
        out = type(self)(forward(self.data), (self,), op)

        def _backward():
            up = 1.0 if no_upstream else out.grad
            _send(self, local(self.data, out.data) * up, overwrite)
        out._backward = _backward
        return out
    return operation


def tanh(overwrite=False, no_upstream=False, of_input=False):
    """y = tanh x: dy/dx = 1 − y². Mistake ``of_input``: 1 − x², the input squared."""
    return _unary("tanh", math.tanh,
                  (lambda x, y: 1 - x * x) if of_input else (lambda x, y: 1 - y * y),
                  overwrite, no_upstream)


def exp(overwrite=False, no_upstream=False, power_rule=False):
    """y = eˣ: dy/dx = eˣ = y. Mistake ``power_rule``: x · e^(x − 1), as if eˣ were a power."""
    return _unary("exp", math.exp,
                  (lambda x, y: x * math.exp(x - 1)) if power_rule else (lambda x, y: y),
                  overwrite, no_upstream)


def relu(overwrite=False, no_upstream=False, value_as_derivative=False, always_one=False):
    """y = max(0, x): dy/dx = [x > 0]. Mistakes: y itself as the derivative, 1 everywhere."""
    if value_as_derivative:
        local = lambda x, y: y                                  # noqa: E731
    elif always_one:
        local = lambda x, y: 1.0                                # noqa: E731
    else:
        local = lambda x, y: float(x > 0)                       # noqa: E731
    return _unary("relu", lambda x: max(0.0, x), local, overwrite, no_upstream)


def power(overwrite=False, no_upstream=False, keep_exponent=False, no_factor=False):
    """y = xᵏ for a number k: dy/dx = k xᵏ⁻¹. Mistakes: k xᵏ (the exponent kept), xᵏ⁻¹ (the
    factor k left out)."""
    def value_pow(self, k):
        def local(x, y):
            return (1.0 if no_factor else k) * x ** (k if keep_exponent else k - 1)
        return _unary(f"**{k:g}", lambda x: x ** k, local, overwrite, no_upstream)(self)
    return value_pow


def neg(new_leaf=False):
    """−a = a · (−1), composed. Mistake: a new leaf Value(−a.data), which forgets a."""
    def value_neg(self):
        return type(self)(-self.data) if new_leaf else self * -1
    return value_neg


def sub(new_leaf=False):
    """a − b = a + (−b), composed. Mistake: b's number taken, a + (−b.data)."""
    def value_sub(self, other):
        other = as_value(self, other)
        return self + (type(self)(-other.data) if new_leaf else -other)
    return value_sub


def truediv(constant=False):
    """a / b = a · b⁻¹, composed. Mistake: dividing by b's number, a · (1 / b.data)."""
    def value_truediv(self, other):
        other = as_value(self, other)
        return self * (1 / other.data) if constant else self * other ** -1
    return value_truediv


def reflected():
    """The reflected operators, a number on the left: 0 + v (as ``sum`` starts), 2 · v,
    1 − v, 1 / v."""
    return {"__radd__": lambda self, other: self + other,
            "__rmul__": lambda self, other: self * other,
            "__rsub__": lambda self, other: as_value(self, other) - self,
            "__rtruediv__": lambda self, other: as_value(self, other) / self}


# --------------------------------------------------------------------- order and backward
def topological_order(seen=True, preorder=False):
    """Depth first, each value appended after its inputs, once. Mistakes: no set of visited
    values (a value used twice is listed twice), appending before the inputs (preorder)."""
    def order_of(root):
        order, visited = [], set()

        def visit(v):
            if seen and id(v) in visited:
                return
            visited.add(id(v))
            if preorder:
                order.append(v)
            for u in v._prev:
                visit(u)
            if not preorder:
                order.append(v)
        visit(root)
        return order
    return order_of


def backward(reverse=True, seed=True, order=None):
    """root.grad = 1, then every ``_backward`` in the reverse topological order. Mistakes: the
    order walked forwards, the seed left out."""
    order = order or topological_order()

    def run_backward(root):
        if seed:
            root.grad = 1.0
        values = order(root)
        for v in (reversed(values) if reverse else values):
            v._backward()
    return run_backward


def propagate(out, seed):
    """The lesson's backward from ``out`` with ∂L/∂out = ``seed`` (an operation's check)."""
    out.grad = seed
    for v in reversed(topological_order()(out)):
        v._backward()


def rebound(fn, **names):
    """The student's function ``fn`` reading ``names`` (the notebook's ``Value`` class, its
    ``topological_order``) as the lesson's own: a piece is judged on the lesson's operations
    even where it makes a Value of a number itself. Not a Python function (a lambda is one):
    ``fn`` as it is."""
    if not isinstance(fn, types.FunctionType):
        return fn
    return types.FunctionType(fn.__code__, dict(fn.__globals__, **names), fn.__name__,
                              fn.__defaults__, fn.__closure__)


# --------------------------------------------------------------------- the network
def neuron_call(bias=True, activation=True, cut=False):
    """relu(Σ_i w_i x_i + b), or the sum alone when ``self.relu`` is False. Mistakes: the bias
    or the activation left out, the weights' numbers used (the graph cut)."""
    def call(self, x):
        weights = [type(w)(w.data) for w in self.w] if cut else self.w
        act = sum((wi * xi for wi, xi in zip(weights, x)), self.b if bias else 0)
        return act.relu() if (self.relu and activation) else act
    return call


def mse(scores, targets):
    """The mean squared error (1/n) Σ_i (s_i − t_i)²."""
    return sum((s - t) ** 2 for s, t in zip(scores, targets)) / len(targets)


def sgd_step(zero="before", ascent=False, use_lr=True):
    """Zero every parameter's grad, backward, then p ← p − lr · ∂L/∂p. Mistakes: no zeroing
    (the gradients accumulate), zeroing after backward, a step up the gradient, lr left out."""
    def step(params, loss, lr):
        if zero == "before":
            for p in params:
                p.grad = 0.0
        loss.backward()
        if zero == "after":
            for p in params:
                p.grad = 0.0
        for p in params:
            p.data += (1 if ascent else -1) * (lr if use_lr else 1.0) * p.grad
    return step


def train(step=None, record_after=False):
    """``steps`` steps of full-batch SGD on the mean squared error; the loss before each step
    (or, the mistake, after it)."""
    step = step or sgd_step()

    def run(model, X, y, steps, lr):
        losses = []
        for _ in range(steps):
            loss = mse([model(x) for x in X], y)
            step(model.parameters(), loss, lr)
            losses.append(mse([model(x) for x in X], y).data if record_after else loss.data)
        return losses
    return run


class Network:
    """The lesson's MLP on any value class: layers of neurons (weights ``w``, bias ``b``, ReLU
    on all but the last layer), parameters in the lesson's order (layer by layer, neuron by
    neuron: w_1 ... w_n, b)."""

    class Neuron:
        def __init__(self, w, b, relu):
            self.w, self.b, self.relu = w, b, relu

        def __call__(self, x):
            return neuron_call()(self, x)

    def __init__(self, Value, sizes, weights):
        it = iter(weights)
        self.layers = [[self.Neuron([Value(next(it)) for _ in range(n_in)], Value(next(it)),
                                    k < len(sizes) - 2)
                        for _ in range(n_out)]
                       for k, (n_in, n_out) in enumerate(zip(sizes, sizes[1:]))]

    def __call__(self, x):
        for layer in self.layers:
            x = [n(x) for n in layer]
        return x[0] if len(x) == 1 else x

    def parameters(self):
        return [p for layer in self.layers for n in layer for p in [*n.w, n.b]]


# --------------------------------------------------------------------- the pieces by name
def _operations():
    return {"__add__": add(), "__mul__": mul(), "tanh": tanh(), "exp": exp(),
            "__pow__": power(), "relu": relu(), "__neg__": neg(), "__sub__": sub(),
            "__truediv__": truediv(), **reflected()}


def isolated(Value):
    """A subclass of the notebook's ``Value`` with every reference operation and backward."""
    return type(Value.__name__, (Value,), {**_operations(), "backward": backward()})


STAND_INS = {"value_mul": mul, "value_tanh": tanh, "value_exp": exp, "value_pow": power,
             "value_relu": relu, "value_neg": neg, "value_sub": sub,
             "value_truediv": truediv, "backward": backward, "neuron_call": neuron_call,
             "sgd_step": sgd_step, "train": train}


def stand_in(name):
    """The lesson's own piece for the answer ``name`` ("value_mul", "backward", ...), used by
    the notebook until the student's answer is written."""
    if name not in STAND_INS:
        raise ValueError(f"stand_in: no piece called {name!r}; the pieces are "
                         f"{', '.join(STAND_INS)}")
    return STAND_INS[name]()


# --------------------------------------------------------------------- the checks' runs
SEED = 0.5               # the incoming ∂L/∂out of an operation's check
EARLIER = 0.25           # what "another use" already sent to an input


def run_mul(Value, fn):
    """[a·b, a.grad, b.grad] for a = 2, b = −3, then [a·a, a.grad] for a = 1.5 (a used twice),
    each with ∂L/∂out = 0.5."""
    a, b = Value(2.0), Value(-3.0)
    out = fn(a, b)
    out.grad = SEED
    out._backward()
    c = Value(1.5)
    square = fn(c, c)
    square.grad = SEED
    square._backward()
    return [out.data, a.grad, b.grad, square.data, c.grad]


UNARY_CASES = [(-1.5, 0.0), (0.3, 0.0), (2.0, 0.0), (0.3, EARLIER)]     # (x, x.grad before)


def run_unary(Value, fn, cases=UNARY_CASES):
    """Rows [y, x.grad] of y = fn(x) with ∂L/∂y = 0.5, at each (x, the grad x already holds)."""
    rows = []
    for x_value, before in cases:
        x = Value(x_value)
        x.grad = before
        out = fn(x)
        out.grad = SEED
        out._backward()
        rows.append([out.data, x.grad])
    return rows


POWER_CASES = [(-1.5, 2), (0.5, 3), (2.0, -1), (0.5, 2, EARLIER)]        # (x, k[, before])


def run_power(Value, fn):
    """Rows [xᵏ, x.grad] with ∂L/∂y = 0.5, at each (x, k, the grad x already holds)."""
    rows = []
    for x_value, k, *before in POWER_CASES:
        x = Value(x_value)
        x.grad = before[0] if before else 0.0
        out = fn(x, k)
        out.grad = SEED
        out._backward()
        rows.append([out.data, x.grad])
    return rows


def run_composed(Value, fn, arity):
    """Rows [out, a.grad, b.grad] of a composed operation on the lesson's operations, with
    ∂L/∂out = 0.5 sent back through the whole composition: with a Value b = −0.5 and with
    the number 2 (b.grad is then 0). For −a: rows [−a, a.grad, 0]."""
    Iso = isolated(Value)
    fn = rebound(fn, Value=Iso)
    rows = []
    for other in ((-0.5, 2.0) if arity == 2 else (None,)):
        a = Iso(1.5)
        b = Iso(other) if other == -0.5 else other
        out = fn(a, b) if arity == 2 else fn(a)
        propagate(out, SEED)
        rows.append([out.data, a.grad, b.grad if hasattr(b, "grad") else 0.0])
    return rows


def diamond(Value):
    """The graph of the order's check: c = a + b, d = c · a, e = d + c (a and c used twice)."""
    a, b = Value(1.0), Value(2.0)
    c = Value(3.0, (a, b), "+")
    d = Value(3.0, (c, a), "*")
    e = Value(6.0, (d, c), "+")
    for v, name in zip((a, b, c, d, e), "abcde"):
        v.label = name
    return e, [a, b, c, d, e]


def run_order(Value, fn):
    """[entries in the list, different values in it, values of the graph missing, values whose
    first place is before the first place of one of their inputs] for the diamond graph."""
    root, values = diamond(Value)
    order = list(fn(root))
    first = {}
    for k, v in enumerate(order):
        first.setdefault(id(v), k)
    missing = sum(id(v) not in first for v in values)
    early = sum(any(first.get(id(u), math.inf) > first[id(v)] for u in v._prev)
                for v in values if id(v) in first)
    return [len(order), len(first), missing, early]


def order_names(Value, fn):
    """The student's order as the values' names ("a, b, c, a, d, ...")."""
    root, _ = diamond(Value)
    return ", ".join(getattr(v, "label", "?") or "?" for v in fn(root))


NEURON = dict(x=0.5, w=-1.2, b=0.3, t=0.8)


def neuron_graph(Value):
    """Notebook 01's neuron with the square written r · r: (x, w, b, r, L)."""
    x, w, b = Value(NEURON["x"]), Value(NEURON["w"]), Value(NEURON["b"])
    y = (x * w + b).tanh()
    r = y - NEURON["t"]
    return x, w, b, r, r * r


def run_backward(Value, fn):
    """[∂L/∂r, ∂L/∂x, ∂L/∂w, ∂L/∂b] of the neuron built with the lesson's operations, by the
    student's backward with the lesson's topological order."""
    Iso = isolated(Value)
    x, w, b, r, L = neuron_graph(Iso)
    rebound(fn, Value=Iso, topological_order=topological_order())(L)
    return [r.grad, x.grad, w.grad, b.grad]


NEURON_CASES = [([0.5, -1.0], 0.2, True), ([0.5, -1.0], 0.2, False), ([-0.5, 1.0], -0.2, True)]
NEURON_INPUT = [1.5, 0.25]


def run_neuron(Value, Neuron, fn):
    """Rows [out, ∂out/∂w_1, ∂out/∂w_2, ∂out/∂b, ∂out/∂x_1, ∂out/∂x_2] of the student's neuron
    on values with the lesson's operations, for (weights, bias, ReLU?) in ``NEURON_CASES``."""
    Iso = isolated(Value)
    fn = rebound(fn, Value=Iso)
    rows = []
    for w, b, use_relu in NEURON_CASES:
        neuron = Neuron.__new__(Neuron)
        neuron.w, neuron.b, neuron.relu = [Iso(v) for v in w], Iso(b), use_relu
        x = [Iso(v) for v in NEURON_INPUT]
        out = as_value(x[0], fn(neuron, x))
        propagate(out, 1.0)
        rows.append([out.data, *(p.grad for p in neuron.w), neuron.b.grad,
                     *(v.grad for v in x)])
    return rows


def run_sgd(Value, fn, sizes, weights, X, y, lr, steps):
    """The loss before each of ``steps`` steps of the student's ``sgd_step`` and after the
    last, on the lesson's network with the lesson's operations and backward."""
    net = Network(isolated(Value), sizes, weights)
    losses = []
    for _ in range(steps):
        loss = mse([net(x) for x in X], y)
        losses.append(loss.data)
        fn(net.parameters(), loss, lr)
    losses.append(mse([net(x) for x in X], y).data)
    return losses
