"""Solutions to the exercises of notebook 10 (autoencoders). Each section replaces the answer
cell of the exercise it names; the working is in the comments."""

# %% exercise 10.1
# explained[k - 1] is the fraction for k components; the first index reaching 0.9, plus one
k_90 = int(np.argmax(explained >= 0.9)) + 1

# %% exercise 10.2
H_np = X_tied @ W_np.T
R = H_np @ W_np - X_tied                     # the residual; δ_X̂ = 2R
decoder_term = H_np.T @ (2 * R)              # from X̂ = H W
delta_H = 2 * R @ W_np.T                     # δ_H = δ_X̂ Wᵀ
encoder_term = delta_H.T @ X_tied            # from H = X Wᵀ
delta_W_tied = decoder_term + encoder_term

# %% exercise 10.4
# p(x = ±1 | x̃) ∝ exp(-(x̃ ∓ 1)² / 2σ²); the ratio of the two is exp(2x̃/σ²), so
# E[x | x̃] = (e^{x̃/σ²} - e^{-x̃/σ²}) / (e^{x̃/σ²} + e^{-x̃/σ²}) = tanh(x̃ / σ²) = tanh(2)
r_half = np.tanh(0.5 / 0.5 ** 2)

# %% exercise 10.5
# dΩ/dπ̂_j = -π/π̂_j + (1 - π)/(1 - π̂_j), and ∂π̂_j/∂h_nj = 1/N for every row n
p_hat = H_np.mean(0)
d_pi_hat = -target_pi / p_hat + (1 - target_pi) / (1 - p_hat)
delta_H_kl = np.tile(d_pi_hat / H_np.shape[0], (H_np.shape[0], 1))

# %% exercise 10.7
# (a) (4 - 1)·2 - 2 + 3 + 1 = 8: back to the 8x8 the stride-2 convolution started from
# (b) (7 - 1)·2 - 2 + 4 = 14
transposed_sizes = [8, 14]

# %% exercise 10.8
# With the codes fixed, L = Σ_{code 0} ‖x_n − c₀‖² + Σ_{code 1} ‖x_n − c₁‖², and
# ∂L/∂c₁ = −2 Σ_{n: z_n = 1} (x_n − c₁) = 0 gives c₁ = the mean of the points with code 1.
codes_ = X_bin @ w_start + b_start >= 0          # z_n = 1[w·x_n + b ≥ 0]
c1_best = X_bin[codes_].mean(axis=0)
