# Wrong answers to the exercises of notebook 17, as a student makes them: each step computed
# from the student's own δ's of the steps before, mistakes and all. Each check must name the
# mistakes of its own step, where they enter, and the δ's that only follow from them.

# %% exercise 17.1
# expect: mean_factor one_path_only
n = len(Yb)
d_logprobs = np.zeros_like(logprobs)
d_logprobs[np.arange(n), Yb] = -1.0            # the mean's 1/B forgotten
d_probs = d_logprobs / probs
d_counts_sum_inv = (d_probs * counts).sum(1, keepdims=True)
d_counts_sum = -counts_sum ** -2 * d_counts_sum_inv
d_counts = d_probs * counts_sum_inv            # counts is used twice: the other path forgotten
d_norm_logits = d_counts * counts
d_logit_maxes = -d_norm_logits.sum(1, keepdims=True)
d_logits = d_norm_logits.copy()
d_logits[np.arange(n), logits.argmax(1)] += d_logit_maxes[:, 0]

# %% exercise 17.2
# expect: missing_batch_sum tanh_of_the_input
d_h = d_logits @ W2
d_W2 = d_logits.T @ h
d_b2 = d_logits                                # the sum over the batch forgotten
d_hpreact = d_h * (1 - hpreact ** 2)           # tanh's derivative taken at its input

# %% exercise 17.3
# expect: s_held_constant mu_held_constant
d_bngain = (d_hpreact * bnraw).sum(0)
d_bnbias = d_hpreact.sum(0)
d_bnraw = bngain * d_hpreact
d_bnvar_inv = (d_bnraw * bndiff).sum(0, keepdims=True)
d_bnvar = -0.5 * (bnvar + 1e-5) ** -1.5 * d_bnvar_inv
d_bndiff2 = np.ones_like(bndiff2) * d_bnvar / len(bndiff2)
d_bndiff = d_bnraw * bnvar_inv                 # only the path through bnraw: s held constant
d_bnmean = -d_bndiff.sum(0, keepdims=True)
d_hprebn = d_bndiff                            # μ held constant

# %% exercise 17.4
# expect: repeated_indices_overwritten transposed
d_embcat = d_hprebn @ W1
d_W1 = embcat.T @ d_hprebn                     # (3d, H): the transpose of W1's shape
d_b1 = d_hprebn.sum(0)
d_emb = d_embcat.reshape(emb.shape)
d_C = np.zeros_like(C)
d_C[Xb] += d_emb                               # a repeated character keeps one of its δ's


# %% exercise 17.5
# expect: softmax_without_targets
def cross_entropy_backward(grad, logits, targets):
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return grad * p / len(targets), None       # the −1 at each target forgotten


# %% exercise 17.6
# expect: mu_and_s_held_constant
def batch_norm_backward(grad, z, gamma, beta):
    s_inv = (z.var(axis=0) + 1e-5) ** -0.5
    zhat = (z - z.mean(axis=0)) * s_inv
    return gamma * grad * s_inv, (grad * zhat).sum(axis=0), grad.sum(axis=0)   # direct path only


# %% exercise 17.7
# expect: mean_factor
def gradients_by_hand(P, c, Xb, Yb):
    W1, W2, gamma = P["W1"].numpy(), P["W2"].numpy(), P["bngain"].numpy()
    p = np.exp(c["logits"] - c["logits"].max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(Yb)), Yb] -= 1
    d_logits = p                               # the 1/B of the mean forgotten
    d_hpreact = (d_logits @ W2) * (1 - c["h"] ** 2)
    zhat, s_inv = c["bnraw"], c["bnvar_inv"]
    d_zhat = gamma * d_hpreact
    d_hprebn = s_inv * (d_zhat - d_zhat.mean(0) - zhat * (d_zhat * zhat).mean(0))
    d_C = np.zeros(P["C"].shape)
    np.add.at(d_C, Xb, (d_hprebn @ W1).reshape(c["emb"].shape))
    return {"C": d_C, "W1": d_hprebn.T @ c["embcat"], "b1": d_hprebn.sum(0),
            "bngain": (d_hpreact * zhat).sum(0), "bnbias": d_hpreact.sum(0),
            "W2": d_logits.T @ c["h"], "b2": d_logits.sum(0)}
