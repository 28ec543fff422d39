"""Large-output classification: the sampled softmax loss (its normaliser is unbiased, its gradient
points where the full softmax's does, the log-Q correction matters), float64 gradcheck, training
with it; and maximum-inner-product search against the brute-force reference."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
import dagrad.nn.functional as F
from dagrad import optim
from dagrad.nn.utils.retrieval import MIPSIndex, kmeans, recall_at_k, topk_inner_product
from tests.helpers import one_blas_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_blas_thread")

C, D, N = 300, 8, 5


def _problem(seed=0):
    rng = np.random.default_rng(seed)
    w = rng.standard_normal((C, D))
    b = 0.5 * rng.standard_normal(C)
    h = rng.standard_normal((N, D))
    y = rng.integers(0, C, N)
    return w, b, h, y


def _full_loss(w, b, h, y):
    return F.cross_entropy(ag.tensor(h @ w.T + b), y, reduction="none").numpy()


def _draws(w, b, h, y, sampler, draws, num_sampled=30, **kw):
    ag.manual_seed(0)
    return np.array([F.sampled_softmax_loss(w, b, y, h, num_sampled, sampler=sampler,
                                            reduction="none", **kw).numpy()
                     for _ in range(draws)])


def test_matches_the_formula_for_given_samples():
    w, b, h, y = _problem()
    q = F.log_uniform_probs(C)
    sampled = np.array([0, 1, 1, 5, int(y[0]), 200])          # repeats and an accidental hit
    got = F.sampled_softmax_loss(w, b, y, h, sampler="log_uniform", sampled=sampled,
                                 reduction="none")
    o = h @ w.T + b
    for n in range(N):
        hit = sampled == y[n]
        z_hat = np.exp(o[n, y[n]]) + np.sum(np.exp(o[n, sampled[~hit]])
                                            / (len(sampled) * q[sampled[~hit]]))
        assert got.numpy()[n] == pytest.approx(np.log(z_hat) - o[n, y[n]], rel=1e-12)
    mean = F.sampled_softmax_loss(w, b, y, h, sampler="log_uniform", sampled=sampled)
    assert mean.item() == pytest.approx(got.numpy().mean())


@pytest.mark.slow
@pytest.mark.parametrize("sampler", ["uniform", "log_uniform", "unigram"])
def test_normaliser_estimate_is_unbiased(sampler):
    """E[Ẑ] = Z, i.e. E[exp(ℓ̂)] = exp(ℓ): the true class is scored exactly, and every
    sampled class counts exp(o_s) / (S·Q(s)), an importance-sampling estimate of the rest."""
    w, b, h, y = _problem()
    if sampler == "unigram":
        sampler = F.unigram_probs(np.random.default_rng(1).integers(1, 100, C))
    full = _full_loss(w, b, h, y)
    draws = np.exp(_draws(w, b, h, y, sampler, 3000))          # (draws, N)
    mean, sem = draws.mean(0), draws.std(0) / np.sqrt(len(draws))
    assert np.all(np.abs(mean - np.exp(full)) < 4 * sem)
    assert np.all(sem < 0.1 * np.exp(full))      # precise enough to see a 10% bias


def test_without_the_log_q_correction_the_estimate_is_biased():
    w, b, h, y = _problem()
    full = _full_loss(w, b, h, y)
    corrected = np.log(np.exp(_draws(w, b, h, y, "log_uniform", 1000)).mean(0))
    raw = np.log(np.exp(_draws(w, b, h, y, "log_uniform", 1000,
                               subtract_log_q=False)).mean(0))
    assert np.abs(corrected - full).max() < 0.1
    assert np.abs(raw - full).min() > 1.0        # C/S = 10 classes' worth of mass missing


def test_loss_is_biased_low_and_the_bias_shrinks_with_more_samples():
    w, b, h, y = _problem()
    full = _full_loss(w, b, h, y)
    bias = {s: full - _draws(w, b, h, y, "uniform", 300, num_sampled=s).mean(0)
            for s in (10, 100, 1000)}
    assert np.all(bias[10] > 0)                                   # Jensen: E log Ẑ ≤ log Z
    assert np.abs(bias[10]).mean() > np.abs(bias[100]).mean() > np.abs(bias[1000]).mean()
    assert np.abs(bias[1000]).max() < 0.1


def _grads(loss_fn, w, b, h):
    tw, tb, th = ag.tensor(w, requires_grad=True), ag.tensor(b, requires_grad=True), \
        ag.tensor(h, requires_grad=True)
    loss_fn(tw, tb, th).backward()
    return np.concatenate([tw.grad.numpy().ravel(), tb.grad.numpy().ravel(), th.grad.numpy().ravel()])


def _cosine(a, c):
    return a @ c / (np.linalg.norm(a) * np.linalg.norm(c))


@pytest.mark.parametrize("sampler, num_sampled", [("uniform", 50), ("log_uniform", 150)])
def test_gradient_direction_agrees_with_the_full_softmax(sampler, num_sampled):
    """The gradient (w.r.t. W, b and h) is a self-normalised importance-sampling estimate of
    the full one: biased, but pointing the same way, and more so as S grows."""
    w, b, h, y = _problem()
    full = _grads(lambda w, b, h: F.cross_entropy(ag.linear(h, w, b), y), w, b, h)
    ag.manual_seed(0)
    single, average = [], np.zeros_like(full)
    for _ in range(200):
        g = _grads(lambda w, b, h: F.sampled_softmax_loss(w, b, y, h, num_sampled,
                                                          sampler=sampler), w, b, h)
        single.append(_cosine(g, full))
        average += g / 200
    assert np.median(single) > 0.8                  # a single draw already points the same way
    assert _cosine(average, full) > 0.95            # and on average more so
    assert np.linalg.norm(average) == pytest.approx(np.linalg.norm(full), rel=0.2)


@pytest.mark.parametrize("bias", [True, False])
def test_gradcheck(bias):
    rng = np.random.default_rng(3)
    w = ag.tensor(rng.standard_normal((12, 3)), requires_grad=True)
    b = ag.tensor(rng.standard_normal(12), requires_grad=True)
    h = ag.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    y = np.array([0, 3, 3, 11])
    sampled = np.array([3, 5, 5, 7, 0])
    inputs = [w, b, h] if bias else [w, h]

    def fn(*args):
        ww, bb, hh = args if bias else (args[0], None, args[1])
        return F.sampled_softmax_loss(ww, bb, y, hh, sampler="log_uniform", sampled=sampled,
                                      reduction="none")
    assert ag.gradcheck(fn, inputs)


def test_accidental_hits_get_no_gradient_and_float32_stays_float32():
    rng = np.random.default_rng(4)
    w = ag.tensor(rng.standard_normal((10, 3)).astype(np.float32), requires_grad=True)
    h = rng.standard_normal((2, 3)).astype(np.float32)
    loss = F.sampled_softmax_loss(w, None, np.array([4, 4]), h, sampled=np.array([4, 4, 2]))
    assert loss.dtype == np.float32 and np.isfinite(loss.item())
    loss.backward()
    assert np.all(np.isfinite(w.grad.numpy()))
    o = h @ w.numpy().T
    expected = np.log1p(np.exp(o[:, 2] - o[:, 4]) / (3 * 0.1)).mean()   # only class 2 counts
    assert loss.item() == pytest.approx(expected, rel=1e-5)


def test_training_with_sampled_softmax_learns_a_thousand_classes():
    """Each of 1000 classes is a direction in 16-d; a linear classifier trained with 64 sampled
    classes per step ranks the right class first for most held-out points."""
    rng = np.random.default_rng(5)
    classes, d = 1000, 16
    centres = rng.standard_normal((classes, d)).astype(np.float32)
    y = rng.integers(0, classes, 6000)
    x = (centres[y] + 0.3 * rng.standard_normal((6000, d))).astype(np.float32)
    ag.manual_seed(0)
    layer = nn.Linear(d, classes)
    opt = optim.Adam(layer.parameters(), lr=0.05)
    for step in range(300):
        idx = rng.integers(0, 5000, 256)
        loss = F.sampled_softmax_loss(layer.weight, layer.bias, y[idx], x[idx], 64)
        opt.zero_grad()
        loss.backward()
        opt.step()
    _, top1 = topk_inner_product(x[5000:], layer.weight.numpy(), 1, bias=layer.bias.numpy())
    assert np.mean(top1[:, 0] == y[5000:]) > 0.8
    index = MIPSIndex(layer.weight.numpy(), bias=layer.bias.numpy(), seed=0)
    _, ids, exact = index.search(x[5000:], 5)
    _, reference = topk_inner_product(x[5000:], layer.weight.numpy(), 5, bias=layer.bias.numpy())
    assert exact.all() and recall_at_k(ids, reference) == 1.0


def test_proposals():
    q = F.log_uniform_probs(1000)
    assert q.sum() == pytest.approx(1.0) and np.all(np.diff(q) < 0)
    assert q[0] == pytest.approx(np.log(2) / np.log(1001))
    u = F.unigram_probs([1, 16, 81])
    np.testing.assert_allclose(u, np.array([1, 8, 27]) / 36)
    with pytest.raises(ValueError, match="sampler"):
        F.sampled_softmax_loss(np.ones((3, 2)), None, [0], np.ones((1, 2)), 2, sampler="zipf")
    with pytest.raises(ValueError, match="share d"):
        F.sampled_softmax_loss(np.ones((3, 2)), None, [0], np.ones((1, 3)), 2)
    with pytest.raises(IndexError, match=r"\[0, 2\]"):
        F.sampled_softmax_loss(np.ones((3, 2)), None, [3], np.ones((1, 2)), 2)


# ------------------------------------------------------------------------ retrieval
def _clustered_keys(n=3000, d=4, seed=0):
    rng = np.random.default_rng(seed)
    centres = 4 * rng.standard_normal((30, d))
    return centres[rng.integers(0, 30, n)] + rng.standard_normal((n, d)), rng


def test_brute_force_top_k_matches_sorting_every_score():
    keys, rng = _clustered_keys()
    q, bias = rng.standard_normal((50, 4)), rng.standard_normal(len(keys))
    scores, ids = topk_inner_product(q, keys, 7, bias=bias)
    full = q @ keys.T + bias
    np.testing.assert_array_equal(ids, np.argsort(-full, axis=1)[:, :7])
    np.testing.assert_allclose(scores, np.take_along_axis(full, ids, 1))
    exclude = [[ids[0, 0], -1], [ids[1, 1], -1]]
    _, ids_ex = topk_inner_product(q[:2], keys, 3, bias=bias, exclude=exclude)
    np.testing.assert_array_equal(ids_ex[0], ids[0, 1:4])
    np.testing.assert_array_equal(ids_ex[1], ids[1, [0, 2, 3]])


@pytest.mark.parametrize("bias", [False, True])
def test_index_search_is_exact_and_certified(bias):
    keys, rng = _clustered_keys()
    b = rng.standard_normal(len(keys)) if bias else None
    q = rng.standard_normal((200, 4))
    index = MIPSIndex(keys, bias=b, n_clusters=40, seed=0)
    scores, ids, exact = index.search(q, 10)
    ref_scores, ref_ids = topk_inner_product(q, keys, 10, bias=b)
    assert exact.all()
    np.testing.assert_allclose(scores, ref_scores)
    assert recall_at_k(ids, ref_ids) == 1.0
    assert index.last_scored < 0.5            # branch and bound skipped most of the keys
    with pytest.raises(ValueError, match=r"\(m, 4\)"):
        index.search(np.zeros((2, 5)), 3)


def test_index_with_a_probe_budget_is_approximate_and_its_certificates_hold():
    keys, rng = _clustered_keys(d=16)
    q = rng.standard_normal((200, 16))
    index = MIPSIndex(keys, n_clusters=50, seed=0)
    _, ids, exact = index.search(q, 10, nprobe=3)
    _, ref_ids = topk_inner_product(q, keys, 10)
    hit = np.array([set(a) == set(r) for a, r in zip(ids, ref_ids)])
    assert np.all(hit[exact])                          # a certificate is never wrong
    assert 0.3 < recall_at_k(ids, ref_ids) < 1.0
    assert index.last_scored < 0.2


def test_kmeans_finds_well_separated_clusters():
    rng = np.random.default_rng(1)
    centres = np.array([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]])
    labels = rng.integers(0, 3, 300)
    _, assign = kmeans(centres[labels] + rng.standard_normal((300, 2)), 3, seed=2)
    pairs = set(zip(labels, assign))
    assert len(pairs) == 3                   # a one-to-one map between true and found clusters
