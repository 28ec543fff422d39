# Wrong answers to the exercises of notebook 05: the mistakes students make.

# %% exercise 05.1
# expect: no_square coefficients_as_curvatures
# took the coefficients 0.1 and 2 of f as the curvatures (forgot f = ½ λ x²), and forgot γ*'s square
gamma_star = (np.sqrt(20) - 1) / (np.sqrt(20) + 1)
eps_star = 4 / (np.sqrt(2.0) + np.sqrt(0.1)) ** 2

# %% exercise 05.2
# expect: sign_of_gamma gradient_at_y_k
# evaluated Nesterov's gradient at y_k (that is heavy ball again), and dropped heavy ball's minus sign
M_hb = np.array([[1 + 0.5 - 0.4 * 4.0, 0.5], [1.0, 0.0]])
rho_heavy_ball = np.abs(np.linalg.eigvals(M_hb)).max()
rho_nesterov = np.abs(np.linalg.eigvals(np.array([[1 + 0.5 - 0.4 * 4.0, -0.5], [1.0, 0.0]]))).max()

# %% exercise 05.3
# expect: abs_not_square
# accumulated |g| instead of g ⊙ g
theta_, r_ = np.array(start), np.zeros(2)
for _ in range(200):
    g_ = grad_f(theta_)
    r_ = r_ + np.abs(g_)
    theta_ = theta_ - 2.0 / (1e-10 + np.sqrt(r_)) * g_
adagrad_step_sizes = 2.0 / (1e-10 + np.sqrt(r_))

# %% exercise 05.4
# expect: adam_always_best
# "Adam is always best"
best_on_rosenbrock = "adam"
