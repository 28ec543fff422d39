"""HierarchicalSoftmax: a normalised distribution over every class (balanced and Huffman trees),
per-target log-probabilities that touch only the path's nodes, float64 gradcheck, Huffman
path lengths against the entropy bound, and learning the digits."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad import optim
from dagrad.nn.hierarchical_softmax import balanced_tree, huffman_tree
from tests.helpers import one_blas_thread  # noqa: F401

pytestmark = pytest.mark.usefixtures("one_blas_thread")


def _random_hs(num_classes, counts=None, dtype=np.float64, seed=0, scale=1.0):
    hs = nn.HierarchicalSoftmax(5, num_classes, counts=counts).to(dtype)
    rng = np.random.default_rng(seed)
    for p in hs.parameters():
        p.numpy()[...] = scale * rng.standard_normal(p.shape)
    return hs


def _counts(num_classes, seed=0):
    return np.random.default_rng(seed).zipf(1.5, num_classes).clip(max=10_000)


@pytest.mark.parametrize("num_classes", [2, 3, 7, 16, 100, 1000])
@pytest.mark.parametrize("tree", ["balanced", "huffman"])
def test_probabilities_of_all_classes_sum_to_one(num_classes, tree):
    counts = _counts(num_classes) if tree == "huffman" else None
    x = np.random.default_rng(1).standard_normal((8, 5))
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-6)):
        hs = _random_hs(num_classes, counts, dtype, scale=2.0)
        log_p = hs.log_prob(ag.tensor(x.astype(dtype)))
        assert log_p.shape == (8, num_classes) and log_p.dtype == dtype
        total = np.exp(log_p.numpy().astype(np.float64)).sum(1)
        np.testing.assert_allclose(total, 1.0, rtol=0, atol=tol)


def test_every_class_is_one_leaf_and_paths_are_prefix_free():
    for children in (balanced_tree(11), huffman_tree(_counts(11))):
        leaves = sorted(c for pair in children for c in pair if c >= 10)
        internal = sorted(c for pair in children for c in pair if c < 10)
        assert leaves == list(range(10, 21))              # every class once
        assert internal == list(range(9))                 # every node but the root (9) once
    hs = _random_hs(11, _counts(11))
    codes = {tuple(zip(n[:d], s[:d])) for n, s, d in
             zip(hs.path_nodes.numpy(), hs.path_signs.numpy(), hs.depths())}
    assert len(codes) == 11
    for a in codes:                                        # no path is a prefix of another
        assert not any(a != b and b[:len(a)] == a for b in codes)


def test_forward_gives_the_targets_log_probabilities_and_mean_loss():
    hs = _random_hs(13, _counts(13))
    x = ag.tensor(np.random.default_rng(2).standard_normal((6, 5)))
    y = np.array([0, 3, 12, 5, 5, 7])
    out = hs(x, y)
    np.testing.assert_allclose(out.output.numpy(), hs.log_prob(x).numpy()[np.arange(6), y], atol=1e-12)
    assert out.loss.item() == pytest.approx(-out.output.numpy().mean())
    assert hs.loss(x, y, reduction="sum").item() == pytest.approx(-out.output.numpy().sum())
    np.testing.assert_array_equal(hs.predict(x).numpy(), hs.log_prob(x).numpy().argmax(1))


def test_log_probability_is_the_sum_along_the_path():
    hs = _random_hs(6)
    x = np.random.default_rng(3).standard_normal(5)
    scores = hs.weight.numpy() @ x + hs.bias.numpy()
    for c in range(6):
        d = hs.depths()[c]
        nodes, signs = hs.path_nodes.numpy()[c, :d], hs.path_signs.numpy()[c, :d]
        expected = np.sum(np.log(1 / (1 + np.exp(-signs * scores[nodes]))))
        assert hs(ag.tensor(x[None]), np.array([c])).output.item() == pytest.approx(expected)


def test_gradient_touches_only_the_nodes_on_the_targets_paths():
    hs = _random_hs(64)
    x = ag.tensor(np.random.default_rng(4).standard_normal((2, 5)))
    y = np.array([3, 40])
    hs(x, y).loss.backward()
    touched = np.flatnonzero(np.abs(hs.weight.grad.numpy()).sum(1))
    expected = np.union1d(hs.path_nodes.numpy()[3], hs.path_nodes.numpy()[40])
    np.testing.assert_array_equal(touched, expected)
    assert len(touched) <= 2 * 6                         # depth log2(64) = 6 per target


@pytest.mark.parametrize("counts", [None, _counts(9)])
@pytest.mark.parametrize("bias", [True, False])
def test_gradcheck(counts, bias):
    hs = nn.HierarchicalSoftmax(3, 9, counts=counts, bias=bias).double()
    rng = np.random.default_rng(5)
    for p in hs.parameters():
        p.numpy()[...] = rng.standard_normal(p.shape)
    x = ag.tensor(rng.standard_normal((4, 3)), requires_grad=True)
    y = np.array([0, 8, 4, 4])
    params = list(hs.parameters())
    assert ag.gradcheck(lambda x, *ps: hs(x, y).output, [x, *params])
    assert ag.gradcheck(lambda x, *ps: hs.log_prob(x), [x, *params])


def test_huffman_paths_meet_the_entropy_bound_and_beat_the_balanced_tree():
    counts = _counts(500, seed=1)
    f = counts / counts.sum()
    entropy_bits = -(f * np.log2(f)).sum()
    huffman = nn.HierarchicalSoftmax(4, 500, counts=counts).depths()
    balanced = nn.HierarchicalSoftmax(4, 500).depths()
    expected_huffman = (f * huffman).sum()
    assert entropy_bits <= expected_huffman < entropy_bits + 1    # Shannon: H ≤ L < H + 1
    assert expected_huffman < 0.8 * (f * balanced).sum()
    assert balanced.max() == int(np.ceil(np.log2(500)))
    order = np.argsort(-counts, kind="stable")
    assert huffman[order[0]] <= huffman[order[-1]]               # frequent classes: short paths


def test_starts_uniform_over_the_leaves_of_a_balanced_power_of_two_tree():
    hs = nn.HierarchicalSoftmax(4, 16)                 # weights start at zero
    np.testing.assert_allclose(hs.log_prob(ag.ones(3, 4)).numpy(), np.log(1 / 16), rtol=1e-6)


def test_learns_the_digits():
    X, y = nn.datasets.load_digits()
    X_train, X_test, y_train, y_test = nn.datasets.train_test_split(X, y, seed=0)
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU())
    hs = nn.HierarchicalSoftmax(64, 10, counts=np.bincount(y_train))
    opt = optim.Adam(list(model.parameters()) + list(hs.parameters()), lr=1e-2)
    loader = nn.data.DataLoader(nn.data.TensorDataset(X_train, y_train), batch_size=64,
                                shuffle=True, seed=0)
    for _ in range(10):
        for xb, yb in loader:
            loss = hs(model(xb), yb).loss
            opt.zero_grad()
            loss.backward()
            opt.step()
    with ag.no_grad():
        accuracy = np.mean(hs.predict(model(ag.tensor(X_test))).numpy() == y_test)
    assert accuracy > 0.93


def test_errors_name_the_problem():
    hs = nn.HierarchicalSoftmax(4, 5)
    with pytest.raises(ValueError, match="at least 2"):
        nn.HierarchicalSoftmax(4, 1)
    with pytest.raises(ValueError, match=r"\(N, 4\)"):
        hs.log_prob(ag.zeros(3, 5))
    with pytest.raises(ValueError, match="target"):
        hs(ag.zeros(3, 4), np.zeros(2, np.int64))
    with pytest.raises(IndexError, match=r"\[0, 4\]"):
        hs(ag.zeros(1, 4), np.array([5]))
    with pytest.raises(ValueError, match="counts"):
        nn.HierarchicalSoftmax(4, 5, counts=[1, 2])
