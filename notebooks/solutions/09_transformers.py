"""Solutions to the exercises of notebook 09 (Transformers). Each section replaces the answer
cell of the exercise it names; the working is in the comments."""

# %% exercise 09.1
# S = Q Kᵀ / √2 = [[1, 1], [0, 1]] / √2
S_ex = np.array([[1.0, 1.0], [0.0, 1.0]]) / np.sqrt(2)
# row softmax: row 0 has equal scores -> (1/2, 1/2); row 1: (1, e^{1/√2}) / (1 + e^{1/√2})
A_ex = np.exp(S_ex) / np.exp(S_ex).sum(1, keepdims=True)

# %% exercise 09.2
A_s, V_s, G_s = parts["A"].numpy(), parts["V"].numpy(), G.numpy()
delta_O = G_s                                     # L = Σ G ⊙ O
delta_V = A_s.T @ delta_O                         # O = A V
delta_A = delta_O @ V_s.T
# the softmax's Jacobian, row by row: δ_s = a ⊙ (δ_a - Σ_j a_j δ_a_j)
delta_S = A_s * (delta_A - (delta_A * A_s).sum(1, keepdims=True))

# %% exercise 09.3
class Scores(ag.Function):
    """S = Q Kᵀ / √d_k"""
    def forward(ctx, Q, K):
        ctx.save(Q, K)
        ctx.scale = 1 / np.sqrt(Q.shape[-1])
        return Q @ K.T * ctx.scale

    def backward(ctx, grad):
        Q, K = ctx.saved
        # S_ij = Σ_l Q_il K_jl / √d: δ_Q = δ_S K / √d (n_q x d), δ_K = δ_Sᵀ Q / √d (n_k x d)
        return grad @ K * ctx.scale, grad.T @ Q * ctx.scale

# %% exercise 09.4
# each product q_l k_l has variance E[q_l²] E[k_l²] = 1, and the 64 are independent: 64
# dividing by √64 = 8 divides the variance by 64
score_variances = [64, 1]

# %% exercise 09.5
# in_proj_weight (3·8, 8) = 192 and in_proj_bias 24; out_proj 8·8 + 8 = 72: 288 in all
# the heads share those matrices (each uses d/h of the columns): 288 for any number of heads
mha_params = [288, 288]

# %% exercise 09.6
# row i: the i + 1 visible tokens share the weight equally; the future gets exactly 0
A_causal = np.tril(np.ones((4, 4))) / np.arange(1, 5)[:, None]

# %% exercise 09.7
# frequency 1 / 10000^(2·4/32) = 1 / 10000^(1/4) = 1/10 radian per token: one turn is 2π·10 tokens
period = 2 * np.pi * 10000 ** (2 * 4 / 32)

# %% exercise 09.9
def gpt_block(layer, h):
    B, T, d = h.shape
    heads = layer.self_attn.num_heads
    d_h = d // heads
    x = layer.norm1(h)                                        # pre-norm: the residual stream stays as it is
    W, b = layer.self_attn.in_proj_weight, layer.self_attn.in_proj_bias
    # rows 0:d of in_proj are W_q, d:2d W_k, 2d:3d W_v; each (B, T, d) -> (B, heads, T, d_h)
    q, k, v = ((x @ W[i * d:(i + 1) * d].T + b[i * d:(i + 1) * d]).reshape(B, T, heads, d_h).transpose(1, 2)
               for i in range(3))
    # the mask goes on the scores, before the softmax; each head divides by √d_h
    scores = q @ k.transpose(-2, -1) / np.sqrt(d_h) + nn.functional.attention.causal_mask(T, dtype=h.dtype)
    heads_out = ag.softmax(scores, dim=-1) @ v                # (B, heads, T, d_h)
    h = h + layer.self_attn.out_proj(heads_out.transpose(1, 2).reshape(B, T, d))
    return h + layer.linear2(F.gelu(layer.linear1(layer.norm2(h))))
