# Wrong answers to the exercises of notebook 02: the mistakes students make.

# %% exercise 02.2
# expect: shape
# forgot to sum the biases' δ's over the batch: one row per example
g_yhat = 2 * (Yhat_b - Yb_np) / len(Xb_np)
grad_W2 = g_yhat.T @ Hb_np
grad_b2 = g_yhat
g_h = g_yhat @ W2
g_z = g_h * (1 - Hb_np ** 2)
grad_W1 = g_z.T @ Xb_np
grad_b1 = g_z

# %% exercise 02.3
# kept tanh's local derivative 1 - h^2 after switching to ReLU, and picked the largest z
r_h = 2 * (yhat_relu - 1.0) @ W2
relu_d_z = r_h * (1 - hr_np ** 2)
relu_d_W1 = relu_d_z.T @ xv
dead_unit = 1

# %% exercise 02.4
# treats softmax as elementwise: only the diagonal s (1 - s) of the Jacobian
class SoftmaxRows(ag.Function):
    def forward(ctx, o):
        e = np.exp(o - o.max(axis=-1, keepdims=True))
        s = e / e.sum(axis=-1, keepdims=True)
        ctx.save(output=s)
        return s

    def backward(ctx, grad):
        (s,) = ctx.saved
        return grad * s * (1 - s)

# %% exercise 02.5
# swapped the two modes, and forgot tanh's derivative in the Jacobian
passes_forward_mode = 64
passes_reverse_mode = 1
J_wide = a_wide.numpy()
