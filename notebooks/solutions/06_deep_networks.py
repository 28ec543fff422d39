# Worked solutions to the exercises of notebook 06 (deep networks).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 06.1
depths_ = [2, 4, 6, 8]
ratios_by_depth = []
for depth_ in depths_:
    ag.manual_seed(0)
    norms_ = first_step(make_net("sigmoid", depth=depth_))
    ratios_by_depth.append(norms_[0] / norms_[-1])
slope_, _ = np.polyfit(depths_, np.log10(ratios_by_depth), 1)
q_per_layer = 10 ** slope_
# q ≈ 0.14: smaller than max σ' = ¼ because σ'(z) < ¼ away from z = 0, and because the default
# weights U(±1/√n) shrink a vector too (W^T δ has about 1/√3 of δ's norm).

# %% exercise 06.2
# Var[w h] = E[w²] E[h²] = σ² E[h²] (independent, E[w] = 0), summed over n inputs.
# E[h²] = E[max(0, z')²] = ½ E[z'²] for z' symmetric: Var[z] = n σ² E[z'²] / 2.
# Var[z] = Var[z'] = E[z'²] (mean 0) needs σ² = 2/n.
kaiming_variance = 2 / 64
default_variance = (1 / np.sqrt(64)) ** 2 / 3       # a²/3 = 1/192

# %% exercise 06.3
# Without clipping the first loss is ~2.5e8 and the next steps are NaN. With clipping every step
# is short, so nothing overflows, but the loss stays around 1e7: the network is still in a regime
# where the logits are huge. Clipping treats the symptom (the huge step); the cause is the
# initialisation (fix it with Kaiming).
clipping_verdict = "symptom"

# %% exercise 06.4
# μ = (1 + 3 + 3 + 9)/4 = 4;  z - μ = (-3, -1, -1, 5);  σ² = (9 + 1 + 1 + 25)/4 = 9;  s = 3
# ẑ = (-1, -1/3, -1/3, 5/3);  δ_y = (1, 0, 0, 0), so δ_ẑ = γ δ_y = (2, 0, 0, 0)
# mean(δ_ẑ) = 2/4 = 1/2;  mean(δ_ẑ ẑ) = (2 · -1)/4 = -1/2
# δ_z = (δ_ẑ - 1/2 - ẑ · (-1/2)) / 3 = ((3/2, -1/2, -1/2, -1/2) + (-1/2, -1/6, -1/6, 5/6)) / 3
#     = (1, -2/3, -2/3, 1/3) / 3 = (1/3, -2/9, -2/9, 1/9)
# y_1 depends on z_2..z_4 through μ and s: raising z_4 moves the mean up and widens the spread,
# both of which change ẑ_1. (Check: the four numbers sum to 0.)
dz_by_hand = [1 / 3, -2 / 9, -2 / 9, 1 / 9]

# %% exercise 06.5
# s = √(σ² + ε) with the biased variance (here σ² = 9, s ≈ 3), ẑ = (z − μ)/s, δ_ẑ = γ δ_y
s_ = np.sqrt(z_steps.var() + 1e-5)
z_hat_ = (z_steps - z_steps.mean()) / s_
d_z_hat_ = gamma_steps * dy_steps                      # (1.5, -1.5, 0.75, 0)
path_direct = d_z_hat_ / s_                            # (0.5, -0.5, 0.25, 0)
path_mean = np.full(4, -d_z_hat_.mean() / s_)          # -0.1875 / 3 = -0.0625 each
path_variance = -z_hat_ * (d_z_hat_ * z_hat_).mean() / s_   # mean(δ_ẑ ẑ) = -0.3125
dz_steps = path_direct + path_mean + path_variance     # ≈ (1/3, -0.597, 0.153, 0.111), sums to 0

# %% exercise 06.6
# Chain rule through μ and σ² (B rows, per column):
#   δ_ẑ -> δ_z directly: δ_ẑ / s
#   through μ:  Σ_i δ_ẑi · (-1/s) · (1/B)                    = -(1/s) mean(δ_ẑ)
#   through σ²: Σ_i δ_ẑi · (z_i - μ) · (-½) s^-3 · 2(z_j - μ)/B = -(1/s) ẑ_j mean(δ_ẑ ẑ)
class BatchNormNoAffine(ag.Function):
    """ẑ = (z - μ)/√(σ² + ε) per column;  δ_z = (δ - mean(δ) - ẑ mean(δ ẑ)) / √(σ² + ε)"""
    def forward(ctx, z):
        ctx.save(z)
        mu = z.mean(axis=0, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=0, keepdims=True)
        return (z - mu) / (var + 1e-5) ** 0.5

    def backward(ctx, grad):
        (z,) = ctx.saved
        mu = z.mean(axis=0, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=0, keepdims=True)
        s = (var + 1e-5) ** 0.5
        z_hat = (z - mu) / s
        return (grad - grad.mean(axis=0, keepdims=True)
                - z_hat * (grad * z_hat).mean(axis=0, keepdims=True)) / s
# Treating μ and s as constants gives δ/s: it misses the two terms that remove δ's mean and its
# component along ẑ (a change of every z_j by the same amount, or along ẑ, is normalised away).

# %% exercise 06.7
# The three paths of batch norm, with every statistic along the row (axis=-1, n features):
#   δ_ẑ = γ ⊙ δ_y first, since γ_j changes along the row the means run over;
#   δ_z = (δ_ẑ - mean_row(δ_ẑ) - ẑ mean_row(δ_ẑ ẑ)) / s;
#   δ_γ = Σ over the rows of δ_y ẑ (γ is used once per example).
class LayerNormScale(ag.Function):
    """y = γ ⊙ (z - μ)/√(σ² + ε), the statistics of each row"""
    def forward(ctx, z, gamma):
        ctx.save(z, gamma)
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        return gamma * (z - mu) / (var + 1e-5) ** 0.5

    def backward(ctx, grad):
        z, gamma = ctx.saved
        mu = z.mean(axis=-1, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=-1, keepdims=True)
        s = (var + 1e-5) ** 0.5
        z_hat = (z - mu) / s
        d_z_hat = gamma * grad
        d_z = (d_z_hat - d_z_hat.mean(axis=-1, keepdims=True)
               - z_hat * (d_z_hat * z_hat).mean(axis=-1, keepdims=True)) / s
        return d_z, (grad * z_hat).sum(axis=0)

# %% exercise 06.9
# (a) each weight moves 0.1 towards 0 and stops there: 0.3 -> 0.2, -0.05 -> 0 (|w| ≤ 0.1),
#     0.12 -> 0.02, -0.4 -> -0.3. The subgradient step would send -0.05 to +0.05: it overshoots
#     zero and the weight keeps flipping sign instead of settling at exactly 0.
w_after_l1 = [0.2, 0.0, 0.02, -0.3]
# (b) row (3, 4): norm 5 > 2, scaled by 2/5 -> (1.2, 1.6); row (0.6, -0.8): norm 1 ≤ 2, unchanged
W_after_max_norm = [[1.2, 1.6], [0.6, -0.8]]
