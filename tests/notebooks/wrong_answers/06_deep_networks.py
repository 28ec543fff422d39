# Wrong answers to the exercises of notebook 06: the mistakes students make.

# %% exercise 06.1
# expect: value
# took the ratio per layer at one depth (10 hidden layers) instead of fitting the slope
q_per_layer = flow["sigmoid"]["first"][0] / flow["sigmoid"]["first"][-1] / 10

# %% exercise 06.2
# expect: value
# Xavier's 1/n for a ReLU (forgot the ½ the ReLU takes), and a² for the uniform's variance
kaiming_variance = 1 / 64
default_variance = 1 / 64

# %% exercise 06.3
# the loss no longer overflows, so it must be fixed
clipping_verdict = "fixes"

# %% exercise 06.4
# treated μ and s as constants (only the direct path): δ_z = γ δ_y / s = (2/3, 0, 0, 0)
dz_by_hand = [2 / 3, 0, 0, 0]

# %% exercise 06.5
# used δ_y where the formula needs δ_ẑ = γ δ_y: every term is 1/γ of the right one
s_ = np.sqrt(z_steps.var() + 1e-5)
z_hat_ = (z_steps - z_steps.mean()) / s_
path_direct = dy_steps / s_
path_mean = np.full(4, -dy_steps.mean() / s_)
path_variance = -z_hat_ * (dy_steps * z_hat_).mean() / s_
dz_steps = path_direct + path_mean + path_variance

# %% exercise 06.6
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

# %% exercise 06.8
# expect: value
# a subgradient step (w - 0.1 sign(w)), which pushes -0.05 past zero to +0.05; and every row
# rescaled to norm c, also the row that was already inside the ball
w_after_l1 = [0.2, 0.05, 0.02, -0.3]
W_after_max_norm = [[1.2, 1.6], [1.2, -1.6]]
