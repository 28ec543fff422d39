"""Solutions to the exercises of notebook 12 (embeddings and large output layers). Each section
replaces the answer cell of the exercise it names; the working is in the comments."""

# %% exercise 12.1
emb_ex = nn.Embedding(10, 4)
ids_ex = np.array([3, 7, 3])
G_emb = np.arange(12.0).reshape(3, 4)
with viz.record():
    emb_loss = (emb_ex(ids_ex) * ag.tensor(G_emb, dtype=ag.float32)).sum()
delta_W_emb = np.zeros((10, 4))
np.add.at(delta_W_emb, ids_ex, G_emb)     # row 3 gets rows 0 and 2 of G added, row 7 row 1

# %% exercise 12.2
powered = np.array([100.0, 10.0, 1.0]) ** 0.75      # 31.6, 5.62, 1
Q_three = powered / powered.sum()                     # ≈ (0.828, 0.147, 0.026)

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
