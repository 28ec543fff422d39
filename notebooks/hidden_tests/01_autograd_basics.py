# Hidden tests of notebook 01: each section sets its exercise up at inputs the student never
# saw, as the lesson's own cell does, so that the answer cell, run again, must follow them
# (an answer typed in as numbers does not). The course's hidden tests run them
# (dagrad.exercises.grading.grade_at_other_inputs; docs/teaching.md).

# %% exercise 01.2
with viz.record():
    x, w, b, z, y, _ = neuron(x_value=-0.9, w_value=0.7, b_value=0.4)
    w2 = ag.tensor(-1.1, dtype=ag.float64, requires_grad=True)
    b2 = ag.tensor(0.25, dtype=ag.float64, requires_grad=True)
    w2.name, b2.name = "w2", "b2"
    z2 = w2 * y + b2
    y2 = ag.tanh(z2)
    t = 0.3
    L2 = (y2 - t) ** 2
given("01.2", x=x, w=w, b=b, z=z, y=y, w2=w2, b2=b2, z2=z2, y2=y2, L2=L2)
x_val, w_val, y_val = x.item(), w.item(), y.item()
w2_val, y2_val = w2.item(), y2.item()

# %% exercise 01.3
x4 = ag.tensor([-0.3, 1.2, 0.4, -2.0], dtype=ag.float64, requires_grad=True)
v4 = np.array([0.5, -2.0, 1.0, 0.0])
s = ag.softmax(x4, dim=0).detach().numpy()
given("01.3", x=x4, v=v4)

# %% exercise 01.4
ex_rng = np.random.default_rng(40)
X4_np = ex_rng.standard_normal((5, 3))
W4 = ag.tensor(ex_rng.standard_normal((2, 3)), requires_grad=True)
b4 = ag.tensor(ex_rng.standard_normal(2), requires_grad=True)
with viz.record():
    Y4 = ag.tensor(X4_np) @ W4.T + b4
    L4 = (Y4 ** 2).sum() / 2
Y_np = Y4.detach().numpy()
given("01.4", W=W4, b=b4, Y=Y4, L=L4)
