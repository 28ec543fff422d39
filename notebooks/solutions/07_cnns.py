"""Solutions to the exercises of notebook 07 (convolutional networks). Each section replaces
the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 07.1
# Flip K_small = [[0, 1], [2, 3]] in both directions: [[3, 2], [1, 0]], then slide it:
# Y[0,0] = 0·3 + 1·2 + 3·1 + 4·0 = 5      Y[0,1] = 1·3 + 2·2 + 4·1 + 5·0 = 11
# Y[1,0] = 3·3 + 4·2 + 6·1 + 7·0 = 23     Y[1,1] = 4·3 + 5·2 + 7·1 + 8·0 = 29
true_conv_2d = [[5, 11], [23, 29]]

# %% exercise 07.2
# δ_K[a, b] = Σ_ij δ_Y[i, j] X[i+a, j+b]: the input correlated with δ_Y
delta_K = corr2d(X_np, G_ex)
# δ_X: pad δ_Y by k - 1 = 1 on every side, then correlate with the flipped kernel
delta_X = corr2d(np.pad(G_ex, 1), K_np[::-1, ::-1])

# %% exercise 07.3
# (a) floor((32 + 4 - 4 - 1) / 2) + 1 = 15 + 1 = 16
# (b) the dilated 3x3 kernel covers 4·2 + 1 = 9 pixels: 32 - 9 + 1 = 24
# (c) floor((28 + 2 - 3 - 1) / 3) + 1 = 8 + 1 = 9
sizes = [16, 24, 9]

# %% exercise 07.4
# one correlation per input channel, then their sum:
# X[0] ⋆ K[0] = [[3, -2], [-1, 3]],  X[1] ⋆ K[1] = [[1, 2], [2, 1]]
Y_channels = corr2d(X_two[0], K_two[0]) + corr2d(X_two[1], K_two[1])     # [[4, 0], [1, 4]]

# %% exercise 07.5
# the maxima: 5 at (0, 1), 8 at (1, 2), 6 at (3, 0), 7 at (3, 3); every other input gets 0
delta_X_mp = np.zeros((4, 4))
delta_X_mp[0, 1], delta_X_mp[1, 2], delta_X_mp[3, 0], delta_X_mp[3, 3] = 1.0, -2.0, 3.0, 0.5

# %% exercise 07.6
# r = 1 + 2·1 + 2·2 + 2·4 + 2·8 = 31 (stride 1 everywhere, so the jump stays 1)
rf_side = 31
# each ordinary 3x3 layer adds 2: 1 + 2n = 31 gives n = 15 layers
ordinary_layers = 15

# %% exercise 07.8
# sum of squares: the same on both sides (each δ lands on one input, the other three get 0)
# number of entries: 4 times more at the input, so mean(δ²) is divided by 4 and rms by √4 = 2
pool_rms_ratio = 0.5

# %% exercise 07.9
pixels = 32 * 32                                   # padding 1 keeps 32x32
full_multiplications = pixels * 64 * 128 * 9                 # 75,497,472
separable_multiplications = pixels * (64 * 9 + 64 * 128)     # 589,824 + 8,388,608 = 8,978,432

# %% exercise 07.11
# each layer keeps its input and adds 8 channels: 16 -> 24 -> 32 -> 40 -> 48; padding 1 keeps 8x8
dense_block_shape = (2, 16 + 4 * 8, 8, 8)
