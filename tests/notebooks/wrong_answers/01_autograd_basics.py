# Wrong answers to the exercises of notebook 01: the mistakes students make. Each check must
# reject its answer (with the diagnosis named by "# expect:" where there is one).

# %% exercise 01.1
# expect: value
# the outer derivative 1/u without the inner factor e^x: the chain rule stopped one step early
softplus_prime = lambda x: 1 / (1 + np.exp(x))

# %% exercise 01.2
# forgot tanh's local derivative 1 - y2^2 at the second neuron
d_y2 = 2 * (y2_val - t)
d_z2 = d_y2
d_w2 = d_z2 * y_val
d_b2 = d_z2
d_y = d_z2 * w2_val
d_z = d_y * (1 - y_val ** 2)
d_w = d_z * x_val
d_b = d_z

# %% exercise 01.3
# treats softmax as if it acted elementwise (like a sigmoid): only the diagonal s_i (1 - s_i)
J_softmax = np.diag(s * (1 - s))
vjp = J_softmax.T @ v4

# %% exercise 01.4
# expect: shape
# forgot to sum over the batch: δ_b keeps one row per example
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
# "smaller ε is always more accurate"
best_eps_float64 = 1e-11
best_eps_float32 = 1e-8
