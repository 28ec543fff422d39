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
