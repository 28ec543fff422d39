# Worked solutions to the exercises of notebook 04 (classification).
# Each section replaces the answer cell of its exercise; the working is in the comments.

# %% exercise 04.1
# e^o = (1, 2, 5), S = 8, p = (1/8, 2/8, 5/8); δ_o = p - e_y with y = 0:
#   (1/8 - 1, 2/8, 5/8) = (-7/8, 1/4, 5/8)   (they sum to 0: so does every p - e_y)
# A gradient-descent step raises o_0, the right class's logit, and lowers the other two.
d_o_by_hand = [-7 / 8, 1 / 4, 5 / 8]

# %% exercise 04.2
# ℓ = -log softmax(u)_y with u = o / T.  ∂ℓ/∂u = softmax(u) - e_y, and ∂u/∂o = 1/T:
#   ∂ℓ/∂o = (softmax(o / T) - e_y) / T
u = o_T_np / T
p = np.exp(u - u.max(axis=1, keepdims=True))
p /= p.sum(axis=1, keepdims=True)
d_o_T = (p - np.eye(4)[y_T]) / T
# As T -> 0 the gaps (o_i - o_max)/T go to -infinity for every non-maximal logit.
as_T_goes_to_0 = "one-hot"

# %% exercise 04.3
# σ' = σ(1 - σ) is a parabola in σ with its top at σ = ½ (z = 0): ¼.
# tanh' = 1 - tanh² is largest at tanh z = 0 (z = 0): 1.
max_sigmoid_slope = 0.25
max_tanh_slope = 1.0
slowest = "sigmoid"

# %% exercise 04.4
# A unit is dead when it outputs 0 on every training image: its column of the hidden layer
# relu(X W₁ᵀ + b₁) is all zeros.
with ag.no_grad():
    hidden_train = ag.relu(mlp[0](ag.tensor(X_train))).numpy()    # (n, 64)
dead_units = int(np.sum(np.all(hidden_train == 0, axis=0)))         # units silent on every image

# %% exercise 04.5
# h' = m h / (1 - p): kept units are scaled by 1/(1 - p) = 1.25. L = Σ c_i h'_i, so
# δ_h = c ⊙ m / (1 - p): the same mask, the same scale, applied to the incoming δ (here c).
keep_scale = 1 / (1 - 0.2)
d_h_p = c_p * kept * keep_scale

# %% exercise 04.7
# w·x + b = 1·1 + (-2)·1 + 0.5 = -0.5 ≤ 0, so ŷ = 0 while y = 1: a missed positive, y - ŷ = 1
# w <- w + η (y - ŷ) x = (1, -2) + 0.5 (1, 1) = (1.5, -1.5);  b <- 0.5 + 0.5 = 1.0
# (now w·x + b = 1.5 - 1.5 + 1 = 1 > 0: this example is classified right)
w_updated = [1.5, -1.5]
b_updated = 1.0

# %% exercise 04.8
# (a) topics are not exclusive: one sigmoid per topic, binary cross-entropy per topic
# (b) exactly one letter per character: the letters compete, softmax and cross-entropy
head_for_topics = "sigmoid + BCEWithLogitsLoss"
head_for_letters = "softmax + CrossEntropyLoss"
