# Wrong answers to the exercises of notebook 15: the mistakes students make.

# %% exercise 15.1
# took a pair of the most frequent word (pun, 12) instead of adding up every word's pairs
first_merge = ("u", "n")
first_merge_count = 16

# %% exercise 15.2
# expect: value
# counted the weight matrices and forgot the biases and the layer norms' gains and shifts
n_params = 3 * 32 * 32 + 32 * 32 + 32 * 64 + 64 * 32

# %% exercise 15.4
# expect: value
# took the 15% for the [MASK] positions and the 80% for the positions in the loss
fraction_shown_mask = 0.15
fraction_in_loss = 0.8

# %% exercise 15.5
# expect: value
# used the offset i - j instead of j - i
offsets = np.arange(3)[:, None] - np.arange(3)[None, :]
scores = q3 @ k3.T / np.sqrt(2) + b[offsets + 2]

# %% exercise 15.6
# expect: value
# took the receptive field's width, 1 + 2l, as if it all lay on one side
conv_layers_needed = 8
