# Hidden tests of notebook 02: each section sets its exercise up at inputs the student never
# saw, as the lesson's own cell does, so that the answer cell, run again, must follow them
# (an answer typed in as numbers does not). The course's hidden tests run them
# (dagrad.exercises.grading.grade_at_other_inputs; docs/teaching.md).

# %% exercise 02.2
Xb = ag.tensor([[-0.3, 0.9], [0.8, -0.6], [0.1, 0.4], [-1.2, -0.2], [0.6, 1.1]],
               dtype=ag.float64)
Yb = ag.tensor([[0.2], [-0.7], [1.0], [0.4], [-0.1]], dtype=ag.float64)
with viz.record():
    loss_batch = nn.functional.mse_loss(layer2(act(layer1(Xb))), Yb)
Xb_np, Yb_np = Xb.numpy(), Yb.numpy()
Hb_np = np.tanh(Xb_np @ W1.T + b1)
Yhat_b = Hb_np @ W2.T + b2
given("02.2", loss=loss_batch, W1=layer1.weight, b1=layer1.bias, W2=layer2.weight,
      b2=layer2.bias, X=Xb, Y=Yb)

# %% exercise 02.3
# re-checks: relu_d_z
x = ag.tensor([[0.9, -0.4]], dtype=ag.float64)
xv = x.numpy()
with viz.record():
    z_relu = layer1(x)
    h_relu = ag.relu(z_relu)
    loss_relu = nn.functional.mse_loss(layer2(h_relu), y)
zr_np, hr_np = z_relu.detach().numpy(), h_relu.detach().numpy()
yhat_relu = hr_np @ W2.T + b2
given("02.3", z=z_relu, W1=layer1.weight, W2=layer2.weight, b2=layer2.bias, y=y, loss=loss_relu)

# %% exercise 02.5
# re-checks: J_wide
a_wide = ag.tensor(np.linspace(-1.5, 2.5, 64))
t0 = ag.tensor(-0.7, dtype=ag.float64)

def f_wide(t):
    return ag.tanh(a_wide * t)

given("02.5", a=a_wide, t=t0)
