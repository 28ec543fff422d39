"""Wrong answers to the exercises of notebook 10: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 10.1
# expect: value
# the index, not the number of components
k_90 = int(np.argmax(explained >= 0.9))

# %% exercise 10.2
rng_tied = np.random.default_rng(3)
X_tied = rng_tied.normal(size=(4, 3))
W_tied = ag.tensor(rng_tied.normal(size=(2, 3)), dtype=ag.float64, requires_grad=True)
with viz.record():
    H_t = ag.tensor(X_tied) @ W_tied.T
    tied_loss = ((H_t @ W_tied - ag.tensor(X_tied)) ** 2).sum()
W_np = W_tied.numpy()
H_np = X_tied @ W_np.T
R = H_np @ W_np - X_tied
# only the decoder's use of W counted
delta_W_tied = H_np.T @ (2 * R)

# %% exercise 10.4
# expect: value
# the most likely clean point (the MAP estimate), not the mean
r_half = 1.0

# %% exercise 10.5
# expect: factor
rng_kl = np.random.default_rng(4)
H_kl = ag.tensor(rng_kl.uniform(0.05, 0.95, size=(5, 3)), dtype=ag.float64, requires_grad=True)
target_pi = 0.05
with viz.record():
    pi_hat = H_kl.mean(0)
    omega = (target_pi * ag.log(target_pi / pi_hat)
             + (1 - target_pi) * ag.log((1 - target_pi) / (1 - pi_hat))).sum()
H_np = H_kl.numpy()
p_hat = H_np.mean(0)
# the 1/N of the mean forgotten
delta_H_kl = np.tile(-target_pi / p_hat + (1 - target_pi) / (1 - p_hat), (H_np.shape[0], 1))

# %% exercise 10.7
# expect: value
# the convolution's formula used instead: floor((n + 2p - k) / s) + 1
transposed_sizes = [2, 3]

# %% exercise 10.8
# expect: value
# the mean of all the data: the decoder's output for code 1 ignoring which points get code 1
c1_best = X_bin.mean(axis=0)
