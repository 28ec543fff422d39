"""Wrong answers to the exercises of notebook 08: realistic mistakes that each check must
reject (with the named diagnosis where one is given)."""

# %% exercise 08.1
# expect: missing_tanh_derivative
h1, h2, h3 = (s.item() for s in states)
u_value = u.item()
# the factors 1 - h² of the two tanh steps forgotten
delta_h1 = 2 * (h3 - target) * u_value ** 2

# %% exercise 08.2
# expect: missing_local_derivative
class StepTanh(ag.Function):
    """y = tanh(a);   dy/da = 1 - y²"""
    def forward(ctx, a):
        y = np.tanh(a)
        ctx.save(output=y)
        return y

    def backward(ctx, grad):
        y, = ctx.saved
        # the upstream δ passed straight through: tanh's own derivative left out
        return grad

# %% exercise 08.3
# expect: missing_term
# the loop back through time stops before t = 1: range(4, 1, -1) is 4, 3, 2
hs = [np.zeros(3)]
for x_t in x_steps:
    hs.append(np.tanh(Wx @ x_t + Wh @ hs[-1] + bh))
d_W_xh, d_W_hh, d_b = np.zeros((3, 2)), np.zeros((3, 3)), np.zeros(3)
d_h = c_out
for t in range(4, 1, -1):
    d_a = d_h * (1 - hs[t] ** 2)
    d_W_xh += np.outer(d_a, x_steps[t - 1])
    d_W_hh += np.outer(d_a, hs[t - 1])
    d_b += d_a
    d_h = Wh.T @ d_a

# %% exercise 08.4
# expect: natural_log
# the natural logarithm of the fractions, not log10
memory_orders = [40 * np.log(0.95), 40 * np.log(0.5)]

# %% exercise 08.5
# expect: one_factor_too_many
# one factor too many: T steps instead of T - 1
dL_dx1 = 1.5 ** 20

# %% exercise 08.6
# expect: clipped_by_value
# each entry clipped to [-5, 5]: that is clip_grad_value_, which changes the direction
clipped = [5.0, -5.0]

# %% exercise 08.7
# expect: h_without_tanh
c_t = np.array([0.9 * 1.0 + 0.2 * 0.5, 0.1 * 1.0 + 0.8 * -1.0])
# the tanh of the memory forgotten
c_and_h = [c_t, np.array([1.0, 0.5]) * c_t]

# %% exercise 08.9
# expect: update_gate_reversed
# z and 1 - z swapped: z taken as the share of the candidate written
sigma = lambda a: 1 / (1 + np.exp(-a))
r_gate = sigma(1.0 * 1 + 0.5 * 0.5)
z_gate = sigma(-1.0 * 1 + 0.5 * 0.5)
n_cand = np.tanh(2.0 * 1 + r_gate * (1.0 * 0.5 + 0.5))
gru_h_new = z_gate * n_cand + (1 - z_gate) * 0.5

# %% exercise 08.10
# expect: one_direction
# the two directions not concatenated, and h_n taken as batch-first
bi_output_shape = (3, 7, 10)
bi_h_n_shape = (3, 4, 10)

# %% exercise 08.11
# expect: tag_per_word
# the review read as a tag per word, and the tags read from the last state
review_topology = "many-to-many aligned"
tagging_result = "h_n"

# %% exercise 08.12
# expect: no_softmax
# the scores used as weights, without the softmax
e = np.array([1.0, 2.0, 0.5])
h_enc = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
context = e @ h_enc
