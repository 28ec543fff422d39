"""Solutions to the exercises of notebook 08 (recurrent networks). Each section replaces the
answer cell of the exercise it names; the working is in the comments."""

# %% exercise 08.1
h1, h2, h3 = (s.item() for s in states)
u_value = u.item()
delta_h3 = 2 * (h3 - target)                       # L = (h_3 - y)²
delta_h2 = delta_h3 * (1 - h3 ** 2) * u_value      # back through tanh, then a_3 = w x_3 + u h_2 + b
delta_h1 = delta_h2 * (1 - h2 ** 2) * u_value

# %% exercise 08.2
class StepTanh(ag.Function):
    """y = tanh(a);   dy/da = 1 - y²"""
    def forward(ctx, a):
        y = np.tanh(a)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        # the chain rule: δ_a = δ_y · dy/da, and dy/da = 1 - tanh(a)² = 1 - y²
        return grad * (1 - y * y)

# %% exercise 08.3
# forward, keeping h_0 .. h_4
hs = [np.zeros(3)]
for x_t in x_steps:
    hs.append(np.tanh(Wx @ x_t + Wh @ hs[-1] + bh))
# backward through time: the shared weights collect one term per step
d_W_xh, d_W_hh, d_b = np.zeros((3, 2)), np.zeros((3, 3)), np.zeros(3)
d_h = c_out                                       # δ_{h_4}
for t in range(4, 0, -1):                         # t = 4, 3, 2, 1
    d_a = d_h * (1 - hs[t] ** 2)                  # through tanh
    d_W_xh += np.outer(d_a, x_steps[t - 1])
    d_W_hh += np.outer(d_a, hs[t - 1])
    d_b += d_a
    d_h = Wh.T @ d_a                              # δ_{h_{t-1}}

# %% exercise 08.4
# 40 factors of f: 0.95^40 ≈ 0.129 (-0.89 orders of magnitude), 0.5^40 ≈ 9.1e-13 (-12.0)
memory_orders = [40 * np.log10(0.95), 40 * np.log10(0.5)]

# %% exercise 08.5
# h_1 = x_1, and the 19 later steps multiply it by u = 1.5 each: u^(T-1)
dL_dx1 = 1.5 ** 19

# %% exercise 08.6
# ‖g‖ = √(900 + 1600) = 50 > 5: multiply everything by 5 / 50
clipped = [30 * 0.1, -40 * 0.1]

# %% exercise 08.7
# c_t = f ⊙ c_{t-1} + i ⊙ g = (0.9 + 0.1, 0.1 - 0.8) = (1.0, -0.7)
c_t = np.array([0.9 * 1.0 + 0.2 * 0.5, 0.1 * 1.0 + 0.8 * -1.0])
# h_t = o ⊙ tanh(c_t) = (tanh 1, 0.5 tanh(-0.7)) ≈ (0.762, -0.302)
h_t = np.array([1.0, 0.5]) * np.tanh(c_t)
c_and_h = [c_t, h_t]

# %% exercise 08.9
sigma = lambda a: 1 / (1 + np.exp(-a))
r_gate = sigma(1.0 * 1 + 0.5 * 0.5)                # W_ir x + W_hr h = 1.25: r ≈ 0.777
z_gate = sigma(-1.0 * 1 + 0.5 * 0.5)               # W_iz x + W_hz h = -0.75: z ≈ 0.321
n_cand = np.tanh(2.0 * 1 + r_gate * (1.0 * 0.5 + 0.5))   # r multiplies W_hn h + b_hn = 1: n ≈ 0.992
gru_h_new = (1 - z_gate) * n_cand + z_gate * 0.5   # keep z of the old state, write 1 - z: ≈ 0.834

# %% exercise 08.10
# output: (batch, steps, 2 directions x 10) because batch_first; the last layer's features
bi_output_shape = (3, 7, 20)
# h_n: (2 directions x 2 layers, batch, 10); batch_first does not move h_n's batch
bi_h_n_shape = (4, 3, 10)

# %% exercise 08.11
# one label for the whole review: many-to-one, read from the final state h_n
review_topology = "many-to-one"
# one tag per word, at the same step: every step's output
tagging_result = "output"

# %% exercise 08.12
e = np.array([1.0, 2.0, 0.5])
alpha = np.exp(e) / np.exp(e).sum()               # ≈ (0.231, 0.629, 0.140)
h_enc = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
context = alpha @ h_enc                           # ≈ (0.371, 0.769)
