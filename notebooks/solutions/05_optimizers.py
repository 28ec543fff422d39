# Worked solutions to the exercises of notebook 05 (optimizers).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 05.1
# f = 0.1 x² + 2 y² = ½ (0.2 x² + 4 y²): the curvatures are 0.2 and 4, κ = 20.
# γ* = ((√20 - 1)/(√20 + 1))² ≈ 0.403, ε* = 4/(2 + 0.447)² ≈ 0.668. Per step each coordinate
# shrinks by √γ* ≈ 0.635, against (κ-1)/(κ+1) ≈ 0.905 for the best plain gradient descent.
kappa_ = 4.0 / 0.2
gamma_star = ((np.sqrt(kappa_) - 1) / (np.sqrt(kappa_) + 1)) ** 2
eps_star = 4 / (np.sqrt(4.0) + np.sqrt(0.2)) ** 2

# %% exercise 05.2
# Heavy ball along y (λ = 4, ελ = 1.6): y_{k+1} = -0.1 y_k - 0.5 y_{k-1}.
# Nesterov: v_{k+1} = γ v_k - ελ (y_k + γ v_k) and y_{k+1} = y_k + v_{k+1}, so with
# v_k = y_k - y_{k-1}:  y_{k+1} = (1 + γ)(1 - ελ) y_k - γ (1 - ελ) y_{k-1} = -0.9 y_k + 0.3 y_{k-1}.
lam_y, eps_n, gamma_n = 4.0, 0.4, 0.5
M_hb = np.array([[1 + gamma_n - eps_n * lam_y, -gamma_n], [1.0, 0.0]])
M_nag = np.array([[(1 + gamma_n) * (1 - eps_n * lam_y), -gamma_n * (1 - eps_n * lam_y)], [1.0, 0.0]])
rho_heavy_ball = np.abs(np.linalg.eigvals(M_hb)).max()     # √0.5 ≈ 0.71: converges
rho_nesterov = np.abs(np.linalg.eigvals(M_nag)).max()      # ≈ 1.16: diverges

# %% exercise 05.3
theta_, r_ = np.array(start), np.zeros(2)
for _ in range(200):
    g_ = grad_f(theta_)
    r_ = r_ + g_ * g_
    theta_ = theta_ - 2.0 / (1e-10 + np.sqrt(r_)) * g_
adagrad_step_sizes = 2.0 / (1e-10 + np.sqrt(r_))
# r only grows: the steps keep shrinking even after the early, steep part of the path. On a
# non-convex loss the large early gradients leave a permanently small step for the region that
# matters later; RMSprop and Adam forget old gradients (a moving average) instead.

# %% exercise 05.4
# Momentum follows the curved valley floor (f ≈ 4e-10 after 1000 steps); plain SGD crawls along it
# (≈ 2e-4) and Adam, with a fixed ε = 0.05, rattles near the bottom (≈ 3e-4).
best_on_rosenbrock = "momentum"
