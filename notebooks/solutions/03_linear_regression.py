# Worked solutions to the exercises of notebook 03 (linear regression).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 03.1
# L = (1/B) Σ_i ½ (ŷ_i - y_i)^2 with ŷ = X w + b.
r = Xg_np @ wg_np + bg_np - yg_np          # residuals, (10, 1)
grad_w = Xg_np.T @ r / len(Xg_np)          # (1/B) Xᵀ r, (2, 1)
grad_b = r.mean(axis=0)                    # (1/B) Σ r_i, (1,)

# %% exercise 03.2
# ∇L = (1/n) X̃ᵀ(X̃θ - y), so the Hessian is X̃ᵀX̃ / n, here close to the identity
# (features N(0, 1), independent): λ_max ≈ 1.06 and the limit ≈ 1.9. ε = 3 is above it.
X_t = np.c_[features, np.ones(len(features))].astype(np.float64)
lr_limit = 2 / np.linalg.eigvalsh(X_t.T @ X_t / len(X_t)).max()
with_lr_3 = "diverges"

# %% exercise 03.3
# mean (ŷ-y)^2 = 2 · mean ½(ŷ-y)^2        -> gradient twice as large, so ε/2
# sum  (ŷ-y)^2 = 2B · mean ½(ŷ-y)^2       -> gradient 2B = 20 times as large, so ε/20
lr_for_mse_mean = 0.03 / 2
lr_for_mse_sum = 0.03 / 20

# %% exercise 03.4
# ℓ' = r where |r| <= 1 (the square's derivative), sign(r) where |r| > 1 (the absolute value's).
# The squared loss pulls on each point with force r: an outlier 50 away pulls 50 times harder
# than a typical point. Huber caps every pull at 1, so a few outliers cannot dominate.
huber_prime = lambda r: np.clip(r, -1.0, 1.0)

# %% exercise 03.6
# (1/n) Xᵀ(Xw - y) + λ w = 0   <=>   (XᵀX + nλ I) w = Xᵀ y
Xr_, yr_ = X_tr.astype(np.float64), y_tr.astype(np.float64)
w_ridge = np.linalg.solve(Xr_.T @ Xr_ + len(Xr_) * 3.0 * np.eye(Xr_.shape[1]), Xr_.T @ yr_)
