"""Solutions to the exercises of notebook 14 (the course's code on dagrad). Each section
replaces the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 14.1
# d/db of (ŷ_i - y_i)² / 2 is (ŷ_i - y_i); the mean over the 4: (1 - 1 + 2 + 0) / 4
dL_db = (1 - 1 + 2 + 0) / 4

# %% exercise 14.2
# nn.Linear's layout: (out_features, in_features) = (1, 2), used as X Wᵀ
lazy_weight_shape = (1, 2)

# %% exercise 14.4
# the images are 1 x 28 x 28 = 784 pixels after flattening: 784 · 10 weights + 10 biases
softmax_params = 784 * 10 + 10

# %% exercise 14.5
# kept with probability 1 - p = 0.5, and scaled by 1 / (1 - p) = 2 so that E[output] = 0.8
kept_value = 0.8 / (1 - 0.5)

# %% exercise 14.6
X_np, y_np, y_hat_np = X.numpy(), y.numpy(), y_hat.detach().numpy()
# L = mean((ŷ - y)² / 2), so the δ on y_hat is (ŷ - y) / n
delta_y_hat = (y_hat_np - y_np) / len(y_np)
delta_w = X_np.T @ delta_y_hat                  # ŷ = X w: δ_w = Xᵀ δ_ŷ, shape (2, 1)
delta_b = delta_y_hat.sum(0)                    # b is broadcast over the batch: sum, shape (1,)
