# Worked solutions to the exercises of notebook 15 (pretraining and the Transformer block).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 15.1
# Pairs, weighted by the word counts (</w> ends each word):
#   h-u: hug 10 + hugs 5 = 15      u-g: hug 10 + pug 5 + hugs 5 = 20
#   p-u: pug 5 + pun 12 = 17       u-n: pun 12 + bun 4 = 16
#   g-</w>: hug 10 + pug 5 = 15    n-</w>: pun 12 + bun 4 = 16    b-u: 4, g-s: 5, s-</w>: 5
first_merge = ("u", "g")
first_merge_count = 20

# %% exercise 15.2
# attention: in_proj 3·32·32 + 3·32 = 3168, out_proj 32·32 + 32 = 1056
# FFN: 32·64 + 64 = 2112 and 64·32 + 32 = 2080; layer norms: 2 · (32 + 32) = 128
n_params = 3168 + 1056 + 2112 + 2080 + 128

# %% exercise 15.4
# The input keeps the 20 characters not corrupted and gets one sentinel per span: 20 + 2.
# The target: <X0>, the 3 characters, <X1>, the 1 character, and the closing <X2>: 4 + 2 + 1.
t5_input_length = 24 - 4 + 2
t5_target_length = 4 + 2 + 1

# %% exercise 15.5
# 15% selected; 80% of those show [MASK]; all selected positions are targets.
fraction_shown_mask = 0.15 * 0.8
fraction_in_loss = 0.15

# %% exercise 15.6
# s[i, j] = q_i · k_j / sqrt(2) + b[(j - i) + 2]
offsets = np.arange(3)[None, :] - np.arange(3)[:, None]       # j - i
scores = q3 @ k3.T / np.sqrt(2) + b[offsets + 2]

# %% exercise 15.7
# After l layers output 15 sees inputs 15 - l ... 15 (one more on each side per layer).
conv_layers_needed = 15
