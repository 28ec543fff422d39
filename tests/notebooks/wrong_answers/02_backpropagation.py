# Wrong answers to the exercises of notebook 02: the mistakes students make.

# %% exercise 02.2
# expect: mean_factor
# the sum of the squared errors instead of their mean: the 1/4 left out of the first δ
g_yhat = 2 * (Yhat_b - Yb_np)
grad_W2 = g_yhat.T @ Hb_np
grad_b2 = g_yhat.sum(axis=0)
g_h = g_yhat @ W2
g_z = g_h * (1 - Hb_np ** 2)
grad_W1 = g_z.T @ Xb_np
grad_b1 = g_z.sum(axis=0)

# %% exercise 02.3
# expect: kept_tanh_derivative largest_z
# kept tanh's local derivative 1 - h^2 after switching to ReLU, and picked the largest z
r_h = 2 * (yhat_relu - 1.0) @ W2
relu_d_z = r_h * (1 - hr_np ** 2)
relu_d_W1 = relu_d_z.T @ xv
dead_unit = 1

# %% exercise 02.4
# expect: rows_mixed
# the dot product s·δ summed over the whole batch, not row by row: right for one row alone
class SoftmaxRows(ag.Function):
    def forward(ctx, o):
        e = np.exp(o - o.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True)
        ctx.save(output=s)
        return s

    def backward(ctx, grad):
        (s,) = ctx.saved
        return s * (grad - (s * grad).sum())

# %% exercise 02.5
# expect: swapped inner_derivative_only
# swapped the two modes, and forgot tanh's derivative in the Jacobian
passes_forward_mode = 64
passes_reverse_mode = 1
J_wide = a_wide.numpy()
