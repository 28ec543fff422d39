# Worked solutions to the exercises of notebook 17 (the whole backward pass by hand).
# Each section replaces the answer cell of its exercise; the working is in the comments.
# Rows are examples: a δ has the shape of its value, and a value broadcast over rows or
# columns sums its δ over them.

# %% exercise 17.1
n = len(Yb)
d_logprobs = np.zeros_like(logprobs)           # only the picked entries enter L ...
d_logprobs[np.arange(n), Yb] = -1.0 / n        # ... each with the mean's −1/B
d_probs = d_logprobs / probs                   # d log(x)/dx = 1/x
d_counts_sum_inv = (d_probs * counts).sum(1, keepdims=True)   # (B, 1): broadcast over columns
d_counts_sum = -counts_sum ** -2 * d_counts_sum_inv           # d x⁻¹/dx = −x⁻²
d_counts = d_probs * counts_sum_inv + d_counts_sum            # two uses: probs and counts_sum
d_norm_logits = d_counts * counts                              # d eˣ/dx = eˣ
d_logit_maxes = -d_norm_logits.sum(1, keepdims=True)          # (B, 1), rounding noise
d_logits = d_norm_logits.copy()                                # two uses: norm_logits ...
d_logits[np.arange(n), logits.argmax(1)] += d_logit_maxes[:, 0]   # ... and the max of the row

# %% exercise 17.2
# logits = h W2ᵀ + b2 is Y = X Wᵀ + b: δ_X = δ_Y W, δ_W = δ_Yᵀ X, δ_b = Σ_i δ_Y[i]
d_h = d_logits @ W2                    # (B, V) · (V, H)
d_W2 = d_logits.T @ h                  # (V, H), the shape of W2
d_b2 = d_logits.sum(0)                 # b2 is added to every row
d_hpreact = d_h * (1 - h ** 2)         # tanh' = 1 − tanh², with the output h

# %% exercise 17.3
d_bngain = (d_hpreact * bnraw).sum(0)              # (H,): γ multiplies every row
d_bnbias = d_hpreact.sum(0)                        # (H,)
d_bnraw = bngain * d_hpreact
d_bnvar_inv = (d_bnraw * bndiff).sum(0, keepdims=True)        # (1, H)
d_bnvar = -0.5 * (bnvar + 1e-5) ** -1.5 * d_bnvar_inv
d_bndiff2 = np.ones_like(bndiff2) * d_bnvar / len(bndiff2)    # the mean's 1/B, every row
d_bndiff = d_bnraw * bnvar_inv + 2 * bndiff * d_bndiff2       # two uses: bnraw and bndiff2
d_bnmean = -d_bndiff.sum(0, keepdims=True)                    # (1, H)
d_hprebn = d_bndiff + d_bnmean / len(hprebn)                  # two uses: bndiff and bnmean

# %% exercise 17.4
d_embcat = d_hprebn @ W1               # hprebn = embcat W1ᵀ + b1
d_W1 = d_hprebn.T @ embcat             # (H, 3d)
d_b1 = d_hprebn.sum(0)
d_emb = d_embcat.reshape(emb.shape)    # the view, looked at the other way
d_C = np.zeros_like(C)
np.add.at(d_C, Xb, d_emb)              # every use of a row of C adds its δ


# %% exercise 17.5
def cross_entropy_backward(grad, logits, targets):
    # δ_logits = (softmax(logits) − one_hot(targets)) / B, times δ_L
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(targets)), targets] -= 1
    return grad * p / len(targets), None


# %% exercise 17.6
def batch_norm_backward(grad, z, gamma, beta):
    # the three paths summed, per column: δ_z = (1/s)(δ_ẑ − mean δ_ẑ − ẑ mean(δ_ẑ ẑ))
    s_inv = (z.var(axis=0) + 1e-5) ** -0.5
    zhat = (z - z.mean(axis=0)) * s_inv
    d_zhat = gamma * grad
    d_z = s_inv * (d_zhat - d_zhat.mean(axis=0) - zhat * (d_zhat * zhat).mean(axis=0))
    return d_z, (grad * zhat).sum(axis=0), grad.sum(axis=0)


# %% exercise 17.7
def gradients_by_hand(P, c, Xb, Yb):
    # the fused formulas of 17.5 and 17.6, and Y = X Wᵀ + b backward twice
    W1, W2 = P["W1"].numpy(), P["W2"].numpy()
    d_logits, _ = cross_entropy_backward(1.0, c["logits"], Yb)
    d_hpreact = (d_logits @ W2) * (1 - c["h"] ** 2)
    d_hprebn, d_bngain, d_bnbias = batch_norm_backward(
        d_hpreact, c["hprebn"], P["bngain"].numpy(), P["bnbias"].numpy())
    d_C = np.zeros(P["C"].shape)
    np.add.at(d_C, Xb, (d_hprebn @ W1).reshape(c["emb"].shape))
    return {"C": d_C, "W1": d_hprebn.T @ c["embcat"], "b1": d_hprebn.sum(0),
            "bngain": d_bngain, "bnbias": d_bnbias, "W2": d_logits.T @ c["h"],
            "b2": d_logits.sum(0)}
