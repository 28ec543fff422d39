"""Wrong answers to the exercises of notebook 11: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 11.1
# expect: kl_reversed
# the KL the other way round, KL(p(z|x) ‖ q)
gap_at_prior = 0.5 * (np.log(1.0 / v_post) + (v_post + m_post ** 2) / 1.0 - 1)

# %% exercise 11.2
# expect: missing_kl_path
z_value = 0.3 + 0.7
d_loglik_dz = sum(w[j] * (x_obs[j] - w[j] * z_value) / s2 for j in range(2))
# only the path through z: the KL term's direct pull on m forgotten
d_elbo_d_m = d_loglik_dz
d_elbo_d_logv = d_loglik_dz * 0.5 * 0.7

# %% exercise 11.3
# expect: second_moment
# the second moment E[(2z)²] = 4(μ² + σ²) instead of the variance
reparam_variance = 4 * (3.0 ** 2 + 0.5 ** 2)

# %% exercise 11.4
# expect: missing_minus_one
# the -1 of each dimension forgotten (the KL would not be 0 at the prior)
kl_by_hand = 0.5 * (1 + 1 - 0) + 0.5 * (0 + 2 - np.log(2))

# %% exercise 11.5
# expect: exact_from_one_sample
# as if one sample from q already gave the exact evidence
one_sample_is = "a"

# %% exercise 11.6
# expect: samples_not_first
# the digits first
z_shape = (len(X_test), 10, 2)
