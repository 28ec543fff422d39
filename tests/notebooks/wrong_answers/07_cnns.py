"""Wrong answers to the exercises of notebook 07: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 07.1
# expect: cross_correlation
# the cross-correlation (no flip), the library's convolution
true_conv_2d = [[19, 25], [37, 43]]

# %% exercise 07.2
# expect: kernel_not_flipped
# δ_K right, but the kernel is not flipped for δ_X
delta_K = corr2d(X_np, G_ex)
delta_X = corr2d(np.pad(G_ex, 1), K_np)

# %% exercise 07.3
# expect: dilation_ignored
# dilation forgotten in (b): 32 - 3 + 1
sizes = [16, 30, 9]

# %% exercise 07.4
# expect: missing_term
# only the first channel's correlation: the sum over the input channels forgotten
Y_channels = corr2d(X_two[0], K_two[0])

# %% exercise 07.5
# expect: average_pool_rule
# average pooling's rule: δ/4 to every input of the window
delta_X_mp = np.kron(G_mp, np.ones((2, 2))) / 4

# %% exercise 07.6
# expect: k_minus_one_forgotten
# the dilations added without the factor k - 1 = 2
rf_side = 1 + 1 + 2 + 4 + 8
ordinary_layers = 15

# %% exercise 07.8
# expect: mean_square_ratio
# the ratio of the mean squares, not of their roots
pool_rms_ratio = 0.25

# %% exercise 07.9
# expect: one_pixel
# the weights counted instead of the multiplications (forgot the 32x32 positions)
full_multiplications = 64 * 128 * 9
separable_multiplications = 64 * 9 + 64 * 128

# %% exercise 07.11
# expect: new_channels_only
# only the last layer's new channels counted, as if the block ended in its convolution
dense_block_shape = (2, 8, 8, 8)
