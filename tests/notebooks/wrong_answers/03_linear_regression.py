# Wrong answers to the exercises of notebook 03: the mistakes students make.

# %% exercise 03.1
# expect: mean_factor
# forgot the 1/B of the mean
r = Xg_np @ wg_np + bg_np - yg_np
grad_w = Xg_np.T @ r
grad_b = r.sum(axis=0)

# %% exercise 03.2
# expect: hessian_of_sum limit_not_compared
# forgot the 1/n: the Hessian of the sum, not of the mean; and did not compare ε = 3 with a limit
X_t = np.c_[features, np.ones(len(features))].astype(np.float64)
lr_limit = 2 / np.linalg.eigvalsh(X_t.T @ X_t).max()
with_lr_3 = "converges"

# %% exercise 03.3
# expect: no_half sum_without_half
# forgot that MSELoss has no ½, so only the batch size counts
lr_for_mse_mean = 0.03
lr_for_mse_sum = 0.03 / 10

# %% exercise 03.4
# expect: squared_loss_derivative
# the squared loss's derivative everywhere: forgot that Huber turns linear beyond |r| = 1
huber_prime = lambda r: r

# %% exercise 03.6
# expect: lambda_without_n
# dropped the n (the 1/n of the mean) in front of λ
Xr_, yr_ = X_tr.astype(np.float64), y_tr.astype(np.float64)
w_ridge = np.linalg.solve(Xr_.T @ Xr_ + 3.0 * np.eye(Xr_.shape[1]), Xr_.T @ yr_)
