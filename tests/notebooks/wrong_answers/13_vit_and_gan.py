"""Wrong answers to the exercises of notebook 13: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 13.1
# expect: channels_forgotten
# the patches counted right, but a patch flattened as if the image were grey: p · p numbers
patch_counts = [(224 // 16) ** 2, 16 * 16]

# %% exercise 13.2
# expect: no_class_token
# the class token forgotten
encoder_input_shape = (4, 16, 16)

# %% exercise 13.3
# expect: no_class_token
# the class token forgotten
attention_entries = [64 ** 2, 16 ** 2, 4 ** 2]

# %% exercise 13.4
# expect: missing_scale
# the scores q·k without the 1/√d_k
scores = K @ q_cls
cls_attention_row = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()

# %% exercise 13.6
# expect: swapped_losses
# the two the other way round
generator_grads = [-0.9, -0.1]

# %% exercise 13.7
# expect: densities_swapped
# the two densities swapped in D*
best_discriminator = [0.1 / (0.3 + 0.1), 2 * np.log(2)]
