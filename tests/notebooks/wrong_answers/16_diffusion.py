# Wrong answers to the exercises of notebook 16: the mistakes students make.

# %% exercise 16.1
# expect: value
# subtracted the variances instead of multiplying the α's
alpha_bar = 1 - np.cumsum(betas)

# %% exercise 16.2
# expect: value
# used the last step's β_25 alone, as if one step had been taken from x_0
b = betas[24]
x_25 = np.sqrt(1 - b) * np.array([1.0, 0.5]) + np.sqrt(b) * np.array([-1.0, 2.0])

# %% exercise 16.3
# expect: value
# forgot to divide the mean by sqrt(α_t)
t = 25
x_t, eps_hat, z = np.array([0.3, -1.2]), np.array([0.5, 0.1]), np.array([1.0, -1.0])
ab_t, ab_prev = np.prod(1 - betas[:t]), np.prod(1 - betas[:t - 1])
mean = x_t - betas[t - 1] / np.sqrt(1 - ab_t) * eps_hat
x_24 = mean + np.sqrt(betas[t - 1] * (1 - ab_prev) / (1 - ab_t)) * z
