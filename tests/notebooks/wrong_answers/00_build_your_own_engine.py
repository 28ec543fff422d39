# Wrong answers to the exercises of notebook 00: the mistakes students make.

# %% exercise 00.1
# expect: value
# each input gets its own value instead of the other input's (and = instead of +=)
def value_mul(self, other):
    out = Value(self.data * other.data, (self, other), "*")

    def _backward():
        self.grad = self.data * out.grad
        other.grad = other.data * out.grad

    out._backward = _backward
    return out

# %% exercise 00.2
# expect: value
# forgot the incoming out.grad (the chain rule's first factor), and exp' written as x·e^(x-1)
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
# expect: value
# no record of visited values: a value used twice is listed twice
def topological_order(root):
    order = []

    def visit(v):
        for u in v._prev:
            visit(u)
        order.append(v)

    visit(root)
    return order

# %% exercise 00.4
# expect: value
# walked the order forwards: values pass on their grad before their consumers have sent it
def backward(root):
    root.grad = 1.0
    for v in topological_order(root):
        v._backward()

# %% exercise 00.5
# expect: value
# read one edge only (r), not the sum of the two uses
dL_dr = -1.0913
