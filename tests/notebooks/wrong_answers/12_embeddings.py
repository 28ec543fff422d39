"""Wrong answers to the exercises of notebook 12: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 12.1
# expect: row_overwritten
delta_W_emb = np.zeros((10, 4))
delta_W_emb[ids_ex] = G_emb               # fancy assignment: a later use of row 2 overwrites the earlier ones

# %% exercise 12.2
# expect: unigram
# the unigram distribution, without the power 3/4
counts_three = np.array([100.0, 10.0, 1.0])
Q_three = counts_three / counts_three.sum()

# %% exercise 12.3
# expect: noise_pulled
s_o, s_k = uo_np @ v_np, U_np @ v_np
# the minus sign inside log σ(-s) lost: the noise words pulled towards v instead of pushed away
delta_v = -(1 - sig(s_o)) * uo_np - (1 - sig(-s_k)) @ U_np
delta_u_o = -(1 - sig(s_o)) * v_np
delta_U = -np.outer(1 - sig(-s_k), v_np)

# %% exercise 12.4
# expect: directions_ignored
# the direction ignored: σ(s) at both nodes
p_leaf = 1 / (1 + np.exp(-0.5)) * 1 / (1 + np.exp(-2.0))

# %% exercise 12.5
# expect: balanced_tree
# a balanced tree's depths, not Huffman's
huffman_depths = [2, 2, 2, 2]

# %% exercise 12.6
# expect: samples_left_out
# the number of samples left out of the correction
logit_shift = -np.log(0.001)

# %% exercise 12.7
# expect: pairs_counted_once
# each pair counted once in the normaliser
q_01 = 0.5 / (0.5 + 0.2 + 1 / 6)
