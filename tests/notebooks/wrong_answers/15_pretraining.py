# Wrong answers to the exercises of notebook 15: the mistakes students make. Each check must
# reject its answer (with the diagnosis named by "# expect:").

# %% exercise 15.1
# expect: one_word_only
# took a pair of the most frequent word (pun, 12) instead of adding up every word's pairs
first_merge = ("u", "n")
first_merge_count = 16

# %% exercise 15.2
# expect: weights_only
# counted the weight matrices and forgot the biases and the layer norms' gains and shifts
n_params = 3 * 32 * 32 + 32 * 32 + 32 * 64 + 64 * 32

# %% exercise 15.4
# expect: sentinel_per_token no_final_sentinel
# masked each corrupted character in place (as BERT does), and forgot the closing sentinel
t5_input_length = 24
t5_target_length = 4 + 2

# %% exercise 15.5
# expect: swapped
# took the 15% selected for the positions showing [MASK], and only the [MASK] ones for the loss
fraction_shown_mask = 0.15
fraction_in_loss = 0.15 * 0.8

# %% exercise 15.6
# expect: offset_reversed
# used the offset i - j instead of j - i
offsets = np.arange(3)[:, None] - np.arange(3)[None, :]
scores = q3 @ k3.T / np.sqrt(2) + b[offsets + 2]

# %% exercise 15.7
# expect: field_on_one_side
# took the receptive field's width, 1 + 2l, as if it all lay on one side
conv_layers_needed = 8
