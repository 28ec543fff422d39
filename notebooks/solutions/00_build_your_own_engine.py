# Worked solutions to the exercises of notebook 00 (build your own engine).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 00.1
# v = a·b: ∂v/∂a = b, ∂v/∂b = a. Each input ADDS out.grad times its local derivative: in a·a
# the same value is both inputs, and both lines must add into its grad (2a · out.grad in all).
def value_mul(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad += other.data * out.grad
        other.grad += self.data * out.grad

    out._backward = _backward
    return out

# %% exercise 00.2
# tanh' = 1 - tanh² = 1 - y²  (y = out.data);  exp' = exp = y.
def value_tanh(self):
    out = Value(math.tanh(self.data), (self,), "tanh")

    def _backward():
        self.grad += (1 - out.data ** 2) * out.grad

    out._backward = _backward
    return out


def value_exp(self):
    out = Value(math.exp(self.data), (self,), "exp")

    def _backward():
        self.grad += out.data * out.grad

    out._backward = _backward
    return out

# %% exercise 00.3
# (x^k)' = k x^(k-1) (the power rule); relu'(x) = 1 where x > 0, else 0.
def value_pow(self, k):
    out = Value(self.data ** k, (self,), f"**{k}")

    def _backward():
        self.grad += k * self.data ** (k - 1) * out.grad

    out._backward = _backward
    return out


def value_relu(self):
    out = Value(max(0.0, self.data), (self,), "relu")

    def _backward():
        self.grad += (1.0 if self.data > 0 else 0.0) * out.grad

    out._backward = _backward
    return out

# %% exercise 00.4
# Compositions: the graph they build is made of *, + and **, which have their _backward.
# A number is made a Value first (a leaf); b.data would be a constant to the engine.
def value_neg(self):
    return self * -1


def value_sub(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return self + (-other)


def value_truediv(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return self * other ** -1

# %% exercise 00.5
# Depth first: a value is appended after all its inputs; `seen` keeps each value once.
# (Recursion is fine for a lesson's small graphs; dagrad counts consumers instead.)
def topological_order(root):
    order, seen = [], set()

    def visit(v):
        if id(v) not in seen:
            seen.add(id(v))
            for u in v._prev:
                visit(u)
            order.append(v)

    visit(root)
    return order

# %% exercise 00.6
# ∂L/∂L = 1; then every value, after all its consumers, passes its complete grad back.
def backward(root):
    root.grad = 1.0
    for v in reversed(topological_order(root)):
        v._backward()

# %% exercise 00.7
# In the picture the two edges from r into "*" each carry L.grad · r = r (the other input of
# the product is r itself); their sum, in r's box, is 2r = 2(tanh(-0.3) - 0.8) ≈ -2.1826.
x, w, b, r, L = neuron_values()
L.backward()
display(viz.draw(L, grads=True))      # display(): the picture, then the answer
dL_dr = -2.1826
dL_dr_in_r = lambda r: 2 * r          # r + r: the two uses' contributions added

# %% exercise 00.8
# act = w_1 x_1 + ... + w_n x_n + b, built from the Values (sum() starts at self.b);
# relu on top for a hidden neuron.
def neuron_call(self, x):
    act = sum((wi * xi for wi, xi in zip(self.w, x)), self.b)
    return act.relu() if self.relu else act

# %% exercise 00.9
# Zero first (backward adds into .grad), then backward, then the step against the gradient.
def sgd_step(params, loss, lr):
    for p in params:
        p.grad = 0.0
    loss.backward()
    for p in params:
        p.data -= lr * p.grad

# %% exercise 00.10
# The loss before each step, then the step (it moves the parameters of `model`).
for param, initial in zip(model.parameters(), initial_weights):   # every run starts untrained
    param.data = initial
my_losses = []
for step in range(STEPS):
    loss = mse([model(x) for x in X_moons], y_moons)
    my_losses.append(loss.data)
    sgd_step(model.parameters(), loss, LR)
