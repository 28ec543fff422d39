"""Solutions to the exercises of notebook 11 (variational autoencoders). Each section replaces
the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 11.1
# the gap is KL(q ‖ p(z | x)) with q = N(0, 1), the posterior N(m*, v*) = N(16/21, 1/21):
# ½ (log(v*/1) + (1 + m*²)/v* - 1)
gap_at_prior = 0.5 * (np.log(v_post / 1.0) + (1.0 + (0.0 - m_post) ** 2) / v_post - 1)

# %% exercise 11.2
z_value = 0.3 + np.exp(0.5 * 0.0) * 0.7                       # z = m + √v ε = 1.0
d_loglik_dz = sum(w[j] * (x_obs[j] - w[j] * z_value) / s2 for j in range(2))   # = -4
# through z (∂z/∂m = 1), minus the KL's ∂/∂m = m
d_elbo_d_m = d_loglik_dz * 1.0 - 0.3
# through z (∂z/∂log v = ½ √v ε = 0.35), minus the KL's ∂/∂log v = ½ (v - 1) = 0
d_elbo_d_logv = d_loglik_dz * 0.5 * np.exp(0.5 * 0.0) * 0.7 - 0.5 * (np.exp(0.0) - 1)

# %% exercise 11.3
# 2z = 2μ + 2σε: the constant 2μ does not vary, Var(2σε) = 4σ² = 1, for any μ
reparam_variance = 4 * 0.5 ** 2

# %% exercise 11.4
# dimension 1: ½ (1 + 1 - 0 - 1) = 0.5;  dimension 2: ½ (0 + 2 - log 2 - 1) ≈ 0.153
kl_by_hand = 0.5 * (1 + 1 - 0 - 1) + 0.5 * (0 + 2 - np.log(2) - 1)

# %% exercise 11.5
# log [p(x|z) p(z) / q(z|x)] with one z ~ q: its expectation is E_q[log p(x|z)] - KL(q ‖ p) = ELBO
one_sample_is = "b"

# %% exercise 11.6
# K samples first, then one row per digit, then the latent dimensions
z_shape = (10, len(X_test), 2)
