# Worked solutions to the exercises of notebook 16 (diffusion).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 16.1
# α_t = 1 - β_t, and ᾱ_t = α_1 α_2 ... α_t: a running product.
alpha_bar = np.cumprod(1 - betas)

# %% exercise 16.2
# x_t = sqrt(ᾱ_t) x_0 + sqrt(1 - ᾱ_t) ε, and ᾱ_25 is index 24 (t counts from 1).
ab = np.prod(1 - betas[:25])
x_25 = np.sqrt(ab) * np.array([1.0, 0.5]) + np.sqrt(1 - ab) * np.array([-1.0, 2.0])

# %% exercise 16.3
# mean = (x_t - β_t / sqrt(1 - ᾱ_t) ε̂) / sqrt(α_t); variance β̃_t = β_t (1 - ᾱ_{t-1}) / (1 - ᾱ_t).
t = 25
x_t, eps_hat, z = np.array([0.3, -1.2]), np.array([0.5, 0.1]), np.array([1.0, -1.0])
ab_t, ab_prev = np.prod(1 - betas[:t]), np.prod(1 - betas[:t - 1])
mean = (x_t - betas[t - 1] / np.sqrt(1 - ab_t) * eps_hat) / np.sqrt(1 - betas[t - 1])
x_24 = mean + np.sqrt(betas[t - 1] * (1 - ab_prev) / (1 - ab_t)) * z
