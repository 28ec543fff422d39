"""Wrong answers to the exercises of notebook 07: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 07.1
# expect: value
# the cross-correlation (no flip), the library's convolution
true_conv_2d = [[19, 25], [37, 43]]

# %% exercise 07.2
X_ex = ag.tensor([[1.0, 2.0, 0.0], [0.0, 1.0, 3.0], [2.0, 1.0, 1.0]], dtype=ag.float64, requires_grad=True)
K_ex = ag.tensor([[1.0, -1.0], [2.0, 0.5]], dtype=ag.float64, requires_grad=True)
G_ex = np.array([[1.0, 0.0], [-2.0, 1.0]])
with viz.record():                                                 # keep every value for the picture
    conv_loss = (F.conv2d(X_ex[None, None], K_ex[None, None])[0, 0] * ag.tensor(G_ex)).sum()
X_np, K_np = X_ex.numpy(), K_ex.numpy()
# δ_K right, but the kernel is not flipped for δ_X
delta_K = corr2d(X_np, G_ex)
delta_X = corr2d(np.pad(G_ex, 1), K_np)

# %% exercise 07.3
# expect: value
# dilation forgotten in (b): 32 - 3 + 1
sizes = [16, 30, 9]

# %% exercise 07.4
X_mp = ag.tensor([[1.0, 5.0, 2.0, 0.0], [3.0, 2.0, 8.0, 1.0], [0.0, 4.0, 1.0, 1.0], [6.0, 2.0, 3.0, 7.0]],
                 dtype=ag.float64, requires_grad=True)
G_mp = np.array([[1.0, -2.0], [3.0, 0.5]])
with viz.record():
    pool_loss = (F.max_pool2d(X_mp[None, None], 2)[0, 0] * ag.tensor(G_mp)).sum()
# average pooling's rule: δ/4 to every input of the window
delta_X_mp = np.kron(G_mp, np.ones((2, 2))) / 4

# %% exercise 07.5
# expect: value
# the dilations added without the factor k - 1 = 2
rf_and_layers = [1 + 1 + 2 + 4 + 8, 8]

# %% exercise 07.7
# expect: value
# the fraction of inputs that receive a δ, not the rms
pool_rms_ratio = 0.25

# %% exercise 07.8
# expect: value
# the weights counted instead of the multiplications (forgot the 32x32 positions)
multiplications = [64 * 128 * 9, 64 * 9 + 64 * 128]

# %% exercise 07.10
# expect: shape
# only the last layer's new channels counted, as if the block ended in its convolution
dense_block_shape = (2, 8, 8, 8)
