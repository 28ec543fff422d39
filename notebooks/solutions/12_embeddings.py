"""Solutions to the exercises of notebook 12 (embeddings and large output layers). Each section
replaces the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 12.1
delta_W_emb = np.zeros((10, 4))
np.add.at(delta_W_emb, ids_ex, G_emb)     # row 2 gets rows 0, 2 and 3 of G added, row 5 row 1

# %% exercise 12.2
powered = np.array([100.0, 10.0, 1.0]) ** 0.75      # 31.6, 5.62, 1
Q_three = powered / powered.sum()                     # ≈ (0.828, 0.147, 0.026)

# %% exercise 12.3
s_o, s_k = uo_np @ v_np, U_np @ v_np
# d/ds [-log σ(s)] = -(1 - σ(s));  d/ds [-log σ(-s)] = σ(s)
delta_v = -(1 - sig(s_o)) * uo_np + sig(s_k) @ U_np
delta_u_o = -(1 - sig(s_o)) * v_np
delta_U = np.outer(sig(s_k), v_np)

# %% exercise 12.4
# left at the root: σ(0.5) ≈ 0.622; right at the next node: σ(-2.0) ≈ 0.119
p_leaf = 1 / (1 + np.exp(-0.5)) * 1 / (1 + np.exp(2.0))

# %% exercise 12.5
# merge the two 1s (-> 2), then that 2 with the class of count 2 (-> 4), then with the class of 4:
# depths 1, 2, 3, 3. Expected length (4·1 + 2·2 + 1·3 + 1·3) / 8 = 1.75 bits, equal to the
# entropy because every frequency is a power of 1/2
huffman_depths = [1, 2, 3, 3]

# %% exercise 12.6
# o_s - log(S Q(s)) = o_s - log(0.1) = o_s + 2.303: a class the proposal rarely draws counts for more
logit_shift = -np.log(100 * 0.001)

# %% exercise 12.7
# squared distances 1, 4, 5: w = 1/2, 1/5, 1/6; the sum over ordered pairs is 2 (1/2 + 1/5 + 1/6)
q_01 = 0.5 / (2 * (0.5 + 0.2 + 1 / 6))      # ≈ 0.288
