"""Solutions to the exercises of notebook 13 (vision transformers and GANs). Each section
replaces the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 13.1
# (224 / 16)² = 14² = 196 patches, each 3 · 16 · 16 = 768 numbers (as long as ViT-Base's width)
patch_counts = [(224 // 16) ** 2, 3 * 16 * 16]

# %% exercise 13.2
# 4 images, 16 patch tokens + 1 class token, width dim = 16
encoder_input_shape = (4, 17, 16)

# %% exercise 13.3
# P = (8/p)² patches plus the class token, squared: 65², 17², 5²
attention_entries = [(64 + 1) ** 2, (16 + 1) ** 2, (4 + 1) ** 2]

# %% exercise 13.5
# minimax: -σ(ℓ) = -D = -0.1 (weak: D rejects the sample); non-saturating: -(1 - D) = -0.9
generator_grads = [-0.1, -0.9]

# %% exercise 13.6
# D* = 0.3 / (0.3 + 0.1) = 0.75; at the equilibrium D = 1/2 and L_D = -log(1/2) - log(1 - 1/2)
best_discriminator = [0.75, 2 * np.log(2)]
