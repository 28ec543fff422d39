# Wrong answers to the exercises of notebook 06: the mistakes students make.

# %% exercise 06.1
# expect: slope_not_factor
# fitted the line, and gave its slope (log10 q) as the factor
ratios_by_depth = []
for depth_ in [2, 4, 6, 8]:
    ag.manual_seed(0)
    norms_ = first_step(make_net("sigmoid", depth=depth_))
    ratios_by_depth.append(norms_[0] / norms_[-1])
q_per_layer = np.polyfit([2, 4, 6, 8], np.log10(ratios_by_depth), 1)[0]

# %% exercise 06.2
# expect: relu_half_forgotten
# 1/n for a ReLU (forgot the ½ the ReLU takes), and a² for the uniform's variance
kaiming_variance = 1 / 64
default_variance = 1 / 64

# %% exercise 06.3
# expect: clipping_cures
# the loss no longer overflows, so it must be fixed
clipping_verdict = "fixes"

# %% exercise 06.4
# expect: direct_path_only
# treated μ and s as constants (only the direct path): δ_z = γ δ_y / s = (2/3, 0, 0, 0)
dz_by_hand = [2 / 3, 0, 0, 0]

# %% exercise 06.5
# expect: mean_factor
# the sums over the batch where the formula takes means: the 1/B of the two paths left out
s_ = np.sqrt(z_steps.var() + 1e-5)
z_hat_ = (z_steps - z_steps.mean()) / s_
d_z_hat_ = gamma_steps * dy_steps
path_direct = d_z_hat_ / s_
path_mean = np.full(4, -d_z_hat_.sum() / s_)
path_variance = -z_hat_ * (d_z_hat_ * z_hat_).sum() / s_
dz_steps = path_direct + path_mean + path_variance

# %% exercise 06.6
# expect: direct_path_only
# treated μ and σ as constants: δ_z = δ / s
class BatchNormNoAffine(ag.Function):
    def forward(ctx, z):
        ctx.save(z)
        mu = z.mean(axis=0, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=0, keepdims=True)
        return (z - mu) / (var + 1e-5) ** 0.5

    def backward(ctx, grad):
        (z,) = ctx.saved
        mu = z.mean(axis=0, keepdims=True)
        var = ((z - mu) ** 2).mean(axis=0, keepdims=True)
        return grad / (var + 1e-5) ** 0.5

# %% exercise 06.7
# expect: gamma_outside_the_means
# batch norm's formula copied: γ taken out in front, δ_z = γ (δ_y - mean(δ_y) - ẑ mean(δ_y ẑ)) / s
class LayerNormScale(ag.Function):
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
        d_z = gamma * (grad - grad.mean(axis=-1, keepdims=True)
                       - z_hat * (grad * z_hat).mean(axis=-1, keepdims=True)) / s
        return d_z, (grad * z_hat).sum(axis=0)

# %% exercise 06.9
# expect: subgradient_step
# a subgradient step (w - 0.1 sign(w)), which pushes -0.05 past zero to +0.05; and every row
# rescaled to norm c, also the row that was already inside the ball
w_after_l1 = [0.2, 0.05, 0.02, -0.3]
W_after_max_norm = [[1.2, 1.6], [1.2, -1.6]]
