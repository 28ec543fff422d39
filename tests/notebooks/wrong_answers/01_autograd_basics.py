# Wrong answers to the exercises of notebook 01: the mistakes students make. Each check must
# reject its answer (with the diagnosis named by "# expect:" where there is one).

# %% exercise 01.1
# expect: outer_derivative_only
# the outer derivative 1/u without the inner factor e^x: the chain rule stopped one step early
softplus_prime = lambda x: 1 / (1 + np.exp(x))

# %% exercise 01.2
# expect: missing_local_derivative
# forgot tanh's local derivative 1 - y2^2 at the second neuron: δ_z2 is δ_y2 passed on, and
# every δ below follows from it
d_y2 = 2 * (y2_val - t)
d_z2 = d_y2
d_w2 = d_z2 * y_val
d_b2 = d_z2
d_y = d_z2 * w2_val
d_z = d_y * (1 - y_val ** 2)
d_w = d_z * x_val
d_b = d_z

# %% exercise 01.3
# expect: diagonal_only accumulation
# treats softmax as if it acted elementwise (like a sigmoid): only the diagonal s_i (1 - s_i);
# and runs backward twice without clearing x4.grad (the cell run twice): the δ's accumulate
J_softmax = np.diag(s * (1 - s))
for _ in range(2):
    ag.softmax(x4, dim=0).backward(gradient=ag.tensor(v4))
vjp = x4.grad.numpy()

# %% exercise 01.4
# expect: missing_batch_sum
# forgot to sum over the batch: δ_b keeps one row per example (b is used once per row)
d_W4 = Y_np.T @ X4_np
d_b4 = Y_np

# %% exercise 01.5
# expect: sign
# d(1/x)/dx written as +1/x^2: the minus sign of x^-2's derivative lost
class Reciprocal(ag.Function):
    def forward(ctx, x):
        ctx.save(x)
        return 1 / x

    def backward(ctx, grad):
        (x,) = ctx.saved
        return grad / x ** 2

# %% exercise 01.6
# expect: smallest_epsilon
# "smaller ε is always more accurate"
best_eps_float64 = 1e-11
best_eps_float32 = 1e-8
