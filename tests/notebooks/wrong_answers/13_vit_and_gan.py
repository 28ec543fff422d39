"""Wrong answers to the exercises of notebook 13: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 13.1
# expect: value
# patches along one side only, and the channels forgotten
patch_counts = [224 // 16, 16 * 16]

# %% exercise 13.2
# expect: shape
# the class token forgotten
encoder_input_shape = (4, 16, 16)

# %% exercise 13.3
# expect: value
# the class token forgotten
attention_entries = [64 ** 2, 16 ** 2, 4 ** 2]

# %% exercise 13.5
# expect: value
# the two swapped
generator_grads = [-0.9, -0.1]

# %% exercise 13.6
# expect: value
# the two densities swapped in D*
best_discriminator = [0.1 / (0.3 + 0.1), 2 * np.log(2)]
