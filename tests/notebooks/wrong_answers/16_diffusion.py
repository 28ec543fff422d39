# Wrong answers to the exercises of notebook 16: the mistakes students make. Each check must
# reject its answer (with the diagnosis named by "# expect:").

# %% exercise 16.1
# expect: variances_subtracted
# subtracted the variances instead of multiplying the α's
alpha_bar = 1 - np.cumsum(betas)

# %% exercise 16.2
# expect: schedule_index_off_by_one
# read ᾱ_25 at index 25: the arrays count from 0, the steps from 1
ab = alpha_bars[25]
x_25 = np.sqrt(ab) * x0_ex2 + np.sqrt(1 - ab) * eps_ex2

# %% exercise 16.3
# expect: forward_variance
# took the forward step's variance β_t for the reverse step's: x_0's information left out
beta_tilde = betas[24]

# %% exercise 16.4
# expect: variance_factor_missing
# stopped at b, the coefficient of x_{t-1}, without dividing by a
t = 25
mu_tilde = np.sqrt(alphas[t - 1]) * x_t_ex4 / betas[t - 1] + np.sqrt(alpha_bars[t - 2]) * x0_ex4 / (1 - alpha_bars[t - 2])

# %% exercise 16.5
# expect: coefficient_not_squared
# forgot to square the coefficient of (ε - ε_θ)
t = 25
sigma2 = betas[t - 1] * (1 - alpha_bars[t - 2]) / (1 - alpha_bars[t - 1])
lambda_t = betas[t - 1] / np.sqrt(alphas[t - 1] * (1 - alpha_bars[t - 1])) / (2 * sigma2)

# %% exercise 16.6
# expect: no_division_by_sqrt_alpha
# forgot to divide the mean by sqrt(α_t)
t = 25
mean = x25_ex6 - betas[t - 1] / np.sqrt(1 - alpha_bars[t - 1]) * eps_hat_ex6
x_24 = mean + np.sqrt(betas[t - 1] * (1 - alpha_bars[t - 2]) / (1 - alpha_bars[t - 1])) * z_ex6
