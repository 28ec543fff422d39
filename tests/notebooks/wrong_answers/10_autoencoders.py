"""Wrong answers to the exercises of notebook 10: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 10.1
# expect: index_not_count
# the index, not the number of components
k_90 = int(np.argmax(explained >= 0.9))

# %% exercise 10.2
# expect: decoder_use_only
H_np = X_tied @ W_np.T
R = H_np @ W_np - X_tied
# only the decoder's use of W counted
delta_W_tied = H_np.T @ (2 * R)

# %% exercise 10.4
# expect: nearest_point
# the most likely clean point (the MAP estimate), not the mean
r_half = 1.0

# %% exercise 10.5
# expect: mean_factor
p_hat = H_np.mean(0)
# the 1/N of the mean forgotten
delta_H_kl = np.tile(-target_pi / p_hat + (1 - target_pi) / (1 - p_hat), (H_np.shape[0], 1))

# %% exercise 10.7
# expect: convolution_formula
# the convolution's formula used instead: floor((n + 2p - k) / s) + 1
transposed_sizes = [2, 3]

# %% exercise 10.8
# expect: mean_of_all_data
# the mean of all the data: the decoder's output for code 1 ignoring which points get code 1
c1_best = X_bin.mean(axis=0)
