# Worked solutions to the exercises of notebook 01 (autograd basics).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 01.1
# f(x) = log(u) with u = 1 + e^x.  df/du = 1/u, du/dx = e^x, so
#   f'(x) = e^x / (1 + e^x) = 1 / (e^-x + 1) = sigmoid(x)     (divide top and bottom by e^x)
softplus_prime = lambda x: 1 / (1 + np.exp(-x))

# %% exercise 01.2
# Top down, each line the δ of the line before times one local derivative:
d_y2 = 2 * (y2_val - t)             # L2 = (y2 - t)^2
d_z2 = d_y2 * (1 - y2_val ** 2)     # tanh'(z2) = 1 - tanh(z2)^2 = 1 - y2^2
d_w2 = d_z2 * y_val                 # z2 = w2 y + b2: ∂z2/∂w2 = y
d_b2 = d_z2                      #                 ∂z2/∂b2 = 1
d_y = d_z2 * w2_val                 #                 ∂z2/∂y  = w2
d_z = d_y * (1 - y_val ** 2)        # y = tanh(z)
d_w = d_z * x_val                   # z = w x + b
d_b = d_z

# %% exercise 01.3
# s_i = e^{x_i} / Σ_k e^{x_k}: ∂s_i/∂x_j = s_i [i = j] - s_i s_j   (quotient rule)
J_softmax = np.diag(s) - np.outer(s, s)
# One backward pass seeded with v gives J^T v.
x4.grad = None
ag.softmax(x4, dim=0).backward(gradient=ag.tensor(v4))
vjp = x4.grad.numpy()

# %% exercise 01.4
# Y_ij = Σ_k X_ik W_jk + b_j, and δ_Y = Y.
#   δ_W[j, k] = Σ_i δ_Y[i, j] X[i, k]   ->  δ_W = δ_Y^T X          (2, 3)
#   δ_b[j]    = Σ_i δ_Y[i, j]          ->  a sum over the batch    (2,)
# b is broadcast to every row, i.e. used n times: its δ's add up.
d_W4 = Y_np.T @ X4_np
d_b4 = Y_np.sum(axis=0)

# %% exercise 01.5
# y = x^-1, dy/dx = -x^-2, so δ_x = δ_y · (-1 / x^2).
class Reciprocal(ag.Function):
    """y = 1/x;  dy/dx = -1/x**2"""
    def forward(ctx, x):
        ctx.save(x)
        return 1 / x

    def backward(ctx, grad):
        (x,) = ctx.saved
        return -grad / x ** 2

# %% exercise 01.6
# float64: truncation ~ε², rounding ~1e-16/ε balance near ε ≈ 1e-5 (the plot's minimum).
# float32: rounding ~6e-8/ε is a billion times larger; the balance moves to ε ≈ 1e-2, where
# the error is still ~1e-4: too coarse to check a gradient to many digits.
best_eps_float64 = 1e-5
best_eps_float32 = 1e-2
