# Wrong answers to the exercises of notebook 04: the mistakes students make.

# %% exercise 04.1
# expect: truth_minus_prediction
# "truth minus prediction", e_y - p: the direction a step moves o, not the gradient
d_o_by_hand = [7 / 8, -1 / 4, -5 / 8]

# %% exercise 04.2
# expect: temperature_link_missing gaps_shrink
# forgot the last link of the chain, ∂(o/T)/∂o = 1/T; and the limit backwards
u = o_T_np / T
p = np.exp(u - u.max(axis=1, keepdims=True))
p /= p.sum(axis=1, keepdims=True)
d_o_T = p - np.eye(4)[y_T]
as_T_goes_to_0 = "uniform"

# %% exercise 04.3
# expect: function_value function_value relu_dies
# σ(0) = ½ and tanh(0) = 0 read off the functions, not their derivatives
max_sigmoid_slope = 0.5
max_tanh_slope = 0.0
slowest = "relu"

# %% exercise 04.4
# expect: zero_somewhere
# counted units that are 0 on at least one image instead of on every image
with ag.no_grad():
    hidden_train = ag.relu(mlp[0](ag.tensor(X_train))).numpy()
dead_units = int(np.sum(np.any(hidden_train == 0, axis=0)))

# %% exercise 04.5
# expect: keep_probability scale_missing
# scaled by the keep probability instead of dividing by it; δ without the scale
keep_scale = 1 - 0.2
d_h_p = c_p * kept

# %% exercise 04.7
# expect: raw_activation raw_activation
# used the raw activation w·x + b = -0.5 instead of the thresholded ŷ = 0 (the delta rule's
# y - ŷ = 1.5): w = (1, -2) + 0.5 · 1.5 · (1, 1), b = 0.5 + 0.75
w_updated = [1.75, -1.25]
b_updated = 1.25

# %% exercise 04.8
# expect: several_classes_softmax independent_letters
# softmax for the tags because "there are several classes", sigmoid for the letters
head_for_topics = "softmax + CrossEntropyLoss"
head_for_letters = "sigmoid + BCEWithLogitsLoss"
