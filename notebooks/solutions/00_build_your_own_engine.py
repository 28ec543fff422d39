# Worked solutions to the exercises of notebook 00 (build your own engine).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 00.1
# v = a·b: ∂v/∂a = b, ∂v/∂b = a. Each input adds out.grad times its local derivative.
def value_mul(self, other):
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

# %% exercise 00.4
# ∂L/∂L = 1; then every value, after all its consumers, passes its complete grad back.
def backward(root):
    root.grad = 1.0
    for v in reversed(topological_order(root)):
        v._backward()

# %% exercise 00.5
# In the picture the two edges from r into "*" each carry L.grad · r = r (the other input of
# the product is r itself); their sum, in r's box, is 2r = 2(tanh(-0.3) - 0.8) ≈ -2.1826.
x, w, b, L = neuron_values()
L.backward()
display(viz.draw(L, grads=True))      # display(): the picture, then the answer
dL_dr = -2.1826
