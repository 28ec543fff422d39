# Wrong answers to the exercises of notebook 00: the mistakes students make.

# %% exercise 00.1
# expect: overwrite
# = instead of +=: right for a·b, but in a·a the second line replaces what the first sent
def value_mul(self, other):
    other = other if isinstance(other, Value) else Value(other)
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad = other.data * out.grad
        other.grad = self.data * out.grad

    out._backward = _backward
    return out

# %% exercise 00.2
# expect: no_upstream power_rule
# tanh: forgot the incoming out.grad (the chain rule's first factor); exp' written as x·e^(x-1)
def value_tanh(self):
    out = Value(math.tanh(self.data), (self,), "tanh")

    def _backward():
        self.grad += 1 - out.data ** 2

    out._backward = _backward
    return out


def value_exp(self):
    out = Value(math.exp(self.data), (self,), "exp")

    def _backward():
        self.grad += self.data * math.exp(self.data - 1) * out.grad

    out._backward = _backward
    return out

# %% exercise 00.3
# expect: keep_exponent value_as_derivative
# the power rule without lowering the exponent; relu's output used as its derivative
def value_pow(self, k):
    out = Value(self.data ** k, (self,), f"**{k}")

    def _backward():
        self.grad += k * self.data ** k * out.grad

    out._backward = _backward
    return out


def value_relu(self):
    out = Value(max(0.0, self.data), (self,), "relu")

    def _backward():
        self.grad += out.data * out.grad

    out._backward = _backward
    return out

# %% exercise 00.4
# expect: new_leaf new_leaf constant
# numbers taken out of the Values: new leaves and constants, cut off from the graph
def value_neg(self):
    return Value(-self.data)


def value_sub(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return self + Value(-other.data)


def value_truediv(self, other):
    other = other if isinstance(other, Value) else Value(other)
    return self * (1 / other.data)

# %% exercise 00.5
# expect: listed_twice
# no record of visited values: a value used twice is listed twice
def topological_order(root):
    order = []

    def visit(v):
        for u in v._prev:
            visit(u)
        order.append(v)

    visit(root)
    return order

# %% exercise 00.6
# expect: forward_order
# walked the order forwards: values pass on their grad before their consumers have sent it
def backward(root):
    root.grad = 1.0
    for v in topological_order(root):
        v._backward()

# %% exercise 00.7
# expect: one_edge one_edge
# read one edge only (r), not the sum of the two uses
dL_dr = -1.0913
dL_dr_in_r = lambda r: r

# %% exercise 00.8
# expect: no_bias
# forgot the bias
def neuron_call(self, x):
    act = sum(wi * xi for wi, xi in zip(self.w, x))
    return act.relu() if self.relu else act

# %% exercise 00.9
# expect: accumulation
# never cleared the gradients: each step's backward adds to the last one's
def sgd_step(params, loss, lr):
    loss.backward()
    for p in params:
        p.data -= lr * p.grad

# %% exercise 00.10
# expect: recorded_after
# the loss recorded after each step, not the loss the step was computed from
for param, initial in zip(model.parameters(), initial_weights):
    param.data = initial
my_losses = []
for step in range(STEPS):
    loss = mse([model(x) for x in X_moons], y_moons)
    sgd_step(model.parameters(), loss, LR)
    my_losses.append(mse([model(x) for x in X_moons], y_moons).data)
