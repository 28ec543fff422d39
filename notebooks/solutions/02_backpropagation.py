# Worked solutions to the exercises of notebook 02 (backpropagation step by step).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 02.2
# L = (1/4) Σ_i (ŷ_i - y_i)^2: the 1/4 enters at the very first δ, and every later δ inherits it.
g_yhat = 2 * (Yhat_b - Yb_np) / len(Xb_np)   # (4, 1): one row per example
grad_W2 = g_yhat.T @ Hb_np                    # (1, 3) = Σ_i δ_ŷi h_iᵀ: the sum over the batch
grad_b2 = g_yhat.sum(axis=0)                  # (1,)  b2 was added to every row: its δ's add up
g_h = g_yhat @ W2                             # (4, 3)
g_z = g_h * (1 - Hb_np ** 2)                  # (4, 3)
grad_W1 = g_z.T @ Xb_np                       # (3, 2)
grad_b1 = g_z.sum(axis=0)                     # (3,)

# %% exercise 02.3
# ReLU's local derivative is [z > 0] (1 where the unit is on, 0 where it is off).
r_yhat = 2 * (yhat_relu - 1.0)        # y = 1
r_h = r_yhat @ W2                     # (1, 3)
relu_d_z = r_h * (zr_np > 0)          # the only line that changed
relu_d_W1 = relu_d_z.T @ xv           # (3, 2)
# z = [0.57, 0.68, -0.30]: unit 2 is off (z < 0), so its δ_z, and its row of δ_W1, are 0.
dead_unit = 2

# %% exercise 02.4
# (δ J)_j = Σ_i (s_i [i=j] - s_i s_j) δ_i = s_j δ_j - s_j Σ_i s_i δ_i = s_j (δ_j - s·δ).
class SoftmaxRows(ag.Function):
    """s = softmax(o) over the last axis;  δ_o = s ⊙ (δ_s - (s·δ_s) 1)"""
    def forward(ctx, o):
        e = np.exp(o - o.max(axis=-1, keepdims=True))     # shifted: never overflows
        s = e / e.sum(axis=-1, keepdims=True)
        ctx.save(output=s)
        return s

    def backward(ctx, grad):
        (s,) = ctx.saved
        return s * (grad - (s * grad).sum(axis=-1, keepdims=True))

# %% exercise 02.5
# One input: forward mode needs one JVP (direction e_1 = 1); reverse mode needs one backward
# pass per output, 64. By the chain rule ∂f_i/∂t = a_i (1 - tanh²(a_i t)).
passes_forward_mode = 1
passes_reverse_mode = 64
_, J_wide = ag.functional.jvp(f_wide, t0, ag.tensor(1.0, dtype=ag.float64))
J_wide = J_wide.numpy()
