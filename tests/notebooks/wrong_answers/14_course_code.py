"""Wrong answers to the exercises of notebook 14: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 14.1
# expect: square_factor_kept
# the factor 2 of the square kept, although the loss divides by 2
dL_db = 2 * (1 - 1 + 2 + 0) / 4

# %% exercise 14.2
# expect: in_out_layout
# the scratch model's layout (num_inputs, 1)
lazy_weight_shape = (2, 1)

# %% exercise 14.4
# expect: biases_forgotten
# the weight counted, the 10 biases forgotten
softmax_params = 784 * 10

# %% exercise 14.5
# expect: not_rescaled
# unscaled (the original paper's convention, which rescales at test time instead)
kept_value = 0.8

# %% exercise 14.6
# expect: missing_batch_sum
X_np, y_np, y_hat_np = X.numpy(), y.numpy(), y_hat.detach().numpy()
delta_y_hat = (y_hat_np - y_np) / len(y_np)
delta_w = X_np.T @ delta_y_hat
# b's δ left per example: the sum over the broadcast batch is missing
delta_b = delta_y_hat
