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

# %% exercise 13.4
# the class token's row of softmax(Q Kᵀ / √d_k): one score per key, scaled, then the softmax
scores = K @ q_cls / np.sqrt(d_k)
cls_attention_row = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()

# %% exercise 13.6
# dD/dℓ = D (1 - D): minimax d/dℓ log(1 - D) = -D = -0.1 (weak: D rejects the sample);
# non-saturating d/dℓ (-log D) = -(1 - D) = -0.9
generator_grads = [-0.1, -0.9]

# %% exercise 13.7
# d/dD [0.3 log D + 0.1 log(1 - D)] = 0.3/D - 0.1/(1 - D) = 0 at D* = 0.3 / (0.3 + 0.1) = 0.75;
# at the equilibrium D = 1/2 and L_D = -log(1/2) - log(1 - 1/2) = 2 log 2
best_discriminator = [0.75, 2 * np.log(2)]
