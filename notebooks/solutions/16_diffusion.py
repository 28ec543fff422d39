# Worked solutions to the exercises of notebook 16 (diffusion).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 16.1
# α_t = 1 - β_t, and ᾱ_t = α_1 α_2 ... α_t: a running product.
alpha_bar = np.cumprod(1 - betas)

# %% exercise 16.2
# x_t = sqrt(ᾱ_t) x_0 + sqrt(1 - ᾱ_t) ε, and ᾱ_25 is index 24 (t counts from 1).
ab = alpha_bars[24]
x_25 = np.sqrt(ab) * x0_ex2 + np.sqrt(1 - ab) * eps_ex2

# %% exercise 16.3
# The exponent -1/2 [(x_t - sqrt(α_t) x_{t-1})² / β_t + (x_{t-1} - sqrt(ᾱ_{t-1}) x_0)² / (1 - ᾱ_{t-1})]
# has x_{t-1}² coefficient -1/2 a with a = α_t / β_t + 1 / (1 - ᾱ_{t-1}): the precisions add.
t = 25
a = alphas[t - 1] / betas[t - 1] + 1 / (1 - alpha_bars[t - 2])
beta_tilde = 1 / a

# %% exercise 16.4
# The x_{t-1} coefficient is b = sqrt(α_t) x_t / β_t + sqrt(ᾱ_{t-1}) x_0 / (1 - ᾱ_{t-1}) (the cross
# terms of the two squares), and the mean is b / a.
t = 25
a = alphas[t - 1] / betas[t - 1] + 1 / (1 - alpha_bars[t - 2])
b = np.sqrt(alphas[t - 1]) * x_t_ex4 / betas[t - 1] + np.sqrt(alpha_bars[t - 2]) * x0_ex4 / (1 - alpha_bars[t - 2])
mu_tilde = b / a

# %% exercise 16.5
# μ̃_t - μ_θ = β_t / (sqrt(α_t) sqrt(1 - ᾱ_t)) (ε_θ - ε): x_t cancels. The KL of two Gaussians of
# variance σ² is ||μ̃ - μ_θ||² / (2σ²), so λ_t = β_t² / (2 σ_t² α_t (1 - ᾱ_t)) with σ_t² = β̃_t.
t = 25
sigma2 = betas[t - 1] * (1 - alpha_bars[t - 2]) / (1 - alpha_bars[t - 1])
lambda_t = betas[t - 1] ** 2 / (2 * sigma2 * alphas[t - 1] * (1 - alpha_bars[t - 1]))

# %% exercise 16.6
# mean = (x_t - β_t / sqrt(1 - ᾱ_t) ε̂) / sqrt(α_t); variance β̃_t = β_t (1 - ᾱ_{t-1}) / (1 - ᾱ_t)
# (σ_t² = β_t is right too).
t = 25
mean = (x25_ex6 - betas[t - 1] / np.sqrt(1 - alpha_bars[t - 1]) * eps_hat_ex6) / np.sqrt(alphas[t - 1])
x_24 = mean + np.sqrt(betas[t - 1] * (1 - alpha_bars[t - 2]) / (1 - alpha_bars[t - 1])) * z_ex6
