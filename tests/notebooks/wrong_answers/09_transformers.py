"""Wrong answers to the exercises of notebook 09: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 09.1
# expect: missing_scale
# the scaling by 1/√d_k forgotten
S_ex = np.array([[1.0, 1.0], [0.0, 1.0]])
A_ex = np.exp(S_ex) / np.exp(S_ex).sum(1, keepdims=True)

# %% exercise 09.2
# expect: diagonal_only
A_s, V_s, G_s = parts["A"].numpy(), parts["V"].numpy(), G.numpy()
delta_V = A_s.T @ G_s
delta_A = G_s @ V_s.T
# the softmax treated as elementwise (only the diagonal of its Jacobian)
delta_S = A_s * (1 - A_s) * delta_A

# %% exercise 09.3
# expect: missing_scale
class Scores(ag.Function):
    """S = Q Kᵀ / √d_k"""
    def forward(ctx, Q, K):
        ctx.save(Q, K)
        ctx.scale = 1 / np.sqrt(Q.shape[-1])
        return Q @ K.T * ctx.scale

    def backward(ctx, grad):
        Q, K = ctx.saved
        # the scale 1/√d forgotten on the way back
        return grad @ K, grad.T @ Q

# %% exercise 09.4
# expect: std_for_variance
# the standard deviation √d given instead of the variance
score_variances = [8, 1]

# %% exercise 09.5
# expect: projections_per_head
# as if every head had its own full-width projections
mha_params = [2 * (3 * 64 + 24) + 72, 4 * (3 * 64 + 24) + 72]

# %% exercise 09.6
# expect: mask_after_softmax
# the blocked entries zeroed without renormalising the rows
A_causal = np.tril(np.ones((4, 4))) / 4

# %% exercise 09.7
# expect: period_in_radians
# the 2π forgotten: 10000^(2i/d) is in radians, not in turns
period = 10000 ** (2 * 4 / 32)

# %% exercise 09.9
# expect: no_causal_mask
# the causal mask forgotten: every position also attends to the ones after it
def gpt_block(layer, h):
    B, T, d = h.shape
    heads = layer.self_attn.num_heads
    d_h = d // heads
    x = layer.norm1(h)
    W, b = layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
    q, k, v = ((x @ W[i * d:(i + 1) * d].T + b[i * d:(i + 1) * d]).reshape(B, T, heads, d_h).transpose(1, 2)
               for i in range(3))
    heads_out = ag.softmax(q @ k.transpose(-2, -1) / np.sqrt(d_h), dim=-1) @ v
    h = h + layer.self_attn.out_proj(heads_out.transpose(1, 2).reshape(B, T, d))
    return h + layer.linear2(F.gelu(layer.linear1(layer.norm2(h))))
