"""Wrong answers to the exercises of notebook 12: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 12.1
emb_ex = nn.Embedding(10, 4)
ids_ex = np.array([3, 7, 3])
G_emb = np.arange(12.0).reshape(3, 4)
with viz.record():
    emb_loss = (emb_ex(ids_ex) * ag.tensor(G_emb, dtype=ag.float32)).sum()
delta_W_emb = np.zeros((10, 4))
delta_W_emb[ids_ex] = G_emb               # fancy assignment: the second use of row 3 overwrites the first

# %% exercise 12.2
# expect: value
# the unigram distribution, without the power 3/4
counts_three = np.array([100.0, 10.0, 1.0])
Q_three = counts_three / counts_three.sum()

# %% exercise 12.3
rng_ns = np.random.default_rng(5)
v_c = ag.tensor(rng_ns.normal(size=3), dtype=ag.float64, requires_grad=True)
u_o = ag.tensor(rng_ns.normal(size=3), dtype=ag.float64, requires_grad=True)
U_noise = ag.tensor(rng_ns.normal(size=(2, 3)), dtype=ag.float64, requires_grad=True)
with viz.record():
    ns_loss = -ag.log(ag.sigmoid((u_o * v_c).sum())) - ag.log(ag.sigmoid(-(U_noise @ v_c))).sum()
v_np, uo_np, U_np = v_c.numpy(), u_o.numpy(), U_noise.numpy()
sig = lambda s: 1 / (1 + np.exp(-s))
s_o, s_k = uo_np @ v_np, U_np @ v_np
# the minus sign inside log σ(-s) lost: the noise words pulled towards v instead of pushed away
delta_v = -(1 - sig(s_o)) * uo_np - (1 - sig(-s_k)) @ U_np
delta_u_o = -(1 - sig(s_o)) * v_np
delta_U = -np.outer(1 - sig(-s_k), v_np)

# %% exercise 12.4
# expect: value
# the direction ignored: σ(s) at both nodes
p_leaf = 1 / (1 + np.exp(-0.5)) * 1 / (1 + np.exp(-2.0))

# %% exercise 12.5
# expect: value
# a balanced tree's depths, not Huffman's
huffman_depths = [2, 2, 2, 2]

# %% exercise 12.6
# expect: value
# the number of samples left out of the correction
logit_shift = -np.log(0.001)

# %% exercise 12.7
# expect: value
# each pair counted once in the normaliser
q_01 = 0.5 / (0.5 + 0.2 + 1 / 6)
