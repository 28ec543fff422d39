"""Cases that used to give a silent wrong answer now raise PyTorch's error (or give its
answer): gradients of the wrong shape or dtype, half-applied state dicts, a loss whose every
target is ignored, integers beyond int64, gradients of sparse tensors, class labels that are
not classes, recurrent layers over an empty sequence."""
import struct

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import d2l, nn, optim
from dagrad import torch as dt
from tests.facade.book_data import write_fashion_mnist
from tests.helpers import torch_or_skip


def test_assigning_a_wrong_gradient_raises_as_in_pytorch():
    torch = torch_or_skip()
    p, tp = ag.zeros(3, requires_grad=True), torch.zeros(3, requires_grad=True)
    for ours, theirs in ((ag.ones(1), torch.ones(1)),
                         (ag.ones(3, dtype=ag.float64), torch.ones(3, dtype=torch.float64))):
        with pytest.raises(RuntimeError, match="attempting to assign a gradient"):
            p.grad = ours
        with pytest.raises(RuntimeError, match="attempting to assign a gradient"):
            tp.grad = theirs
    p.grad = ag.ones(3)                         # the right shape and dtype is accepted
    assert p.grad.numpy().tolist() == [1, 1, 1]
    with pytest.raises(TypeError, match="Tensor or None"):
        p.grad = np.ones(3)


def test_an_optimizer_never_sees_a_broadcast_gradient():
    w = ag.zeros(2, 3, requires_grad=True)
    opt = optim.SGD([w], lr=1.0)
    with pytest.raises(RuntimeError, match="same size"):
        w.grad = ag.ones(3)                    # used to be broadcast over the rows in step()
    assert w.grad is None
    opt.step()
    assert not w.numpy().any()


def test_load_state_dict_is_all_or_nothing():
    model = nn.Sequential(nn.Linear(2, 2), nn.Linear(2, 1))
    before = {k: v.numpy().copy() for k, v in model.state_dict().items()}
    bad = {k: np.ones(v.shape, dtype=np.float32) for k, v in before.items()}
    bad["1.bias"] = np.array(["x"])            # right shape, not numbers: named, nothing written
    with pytest.raises(TypeError, match="'1.bias'"):
        model.load_state_dict(bad)
    bad["1.bias"] = np.ones(1, dtype=np.complex64)
    with pytest.raises(TypeError, match="'1.bias'"):
        model.load_state_dict(bad)
    for key, value in model.state_dict().items():
        np.testing.assert_array_equal(value.numpy(), before[key])


@pytest.mark.parametrize("loss", ["cross_entropy", "cross_entropy_smoothed", "cross_entropy_weighted",
                                  "nll_loss"])
def test_a_mean_loss_whose_every_target_is_ignored_is_nan_with_zero_gradients(loss):
    torch = torch_or_skip()
    logits = np.random.default_rng(0).standard_normal((3, 4))
    results = []
    for lib in (torch, dt):
        F = lib.nn.functional
        x = lib.tensor(logits, requires_grad=True)
        target = lib.tensor([2, 2, 2])
        if loss == "nll_loss":
            value = F.nll_loss(x.log_softmax(1), target, ignore_index=2)
        else:
            extra = {"cross_entropy_smoothed": {"label_smoothing": 0.1},
                     "cross_entropy_weighted": {"weight": lib.tensor([1.0, 2.0, 3.0, 4.0],
                                                                     dtype=lib.float64)},
                     }.get(loss, {})
            value = F.cross_entropy(x, target, ignore_index=2, **extra)
        value.backward()
        results.append((value.item(), x.grad.numpy().copy()))
    (theirs, their_grad), (ours, our_grad) = results
    assert np.isnan(theirs) and np.isnan(ours)
    assert not their_grad.any() and not our_grad.any() and np.isfinite(our_grad).all()


@pytest.mark.parametrize("data", [[1, 2 ** 63], [[1, 2], [3, 2 ** 63]], [1, -2 ** 63 - 5]])
def test_integers_beyond_int64_among_integers_are_refused_as_in_pytorch(data):
    torch = torch_or_skip()
    with pytest.raises(ValueError, match="Overflow"):
        torch.tensor(data)
    with pytest.raises(ValueError, match="does not fit in int64"):
        ag.tensor(data)


def test_with_a_float_among_them_they_are_floats_as_in_pytorch():
    torch = torch_or_skip()
    for data in ([1.5, 2 ** 63], [np.float64(1.0), 2 ** 63]):
        assert ag.tensor(data).tolist() == torch.tensor(data).tolist()
        assert str(ag.tensor(data).dtype) == str(torch.tensor(data).dtype).split(".")[1]


def _sparse_gradient(lib, indices, values, size, weights):
    S = lib.sparse_coo_tensor(lib.tensor(indices), lib.tensor(values), size, requires_grad=True)
    (S.to_dense() * lib.tensor(weights)).sum().backward()
    return S.grad


@pytest.mark.parametrize("indices, values, size", [
    ([[2, 0, 2]], [1.0, 1.0, 5.0], (3,)),                           # a repeated index
    ([[1, 1, 0], [0, 0, 1]], [[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], (2, 2, 2)),   # dense dims
    ([[2, 0]], [1.0, 5.0], (3,)),
])
def test_the_gradient_of_a_sparse_tensor_counts_a_repeated_index_once(indices, values, size):
    torch = torch_or_skip()
    weights = np.arange(1.0, 1.0 + np.prod(size)).reshape(size)
    theirs = _sparse_gradient(torch, indices, values, size, weights)
    ours = _sparse_gradient(dt, indices, values, size, weights)
    np.testing.assert_allclose(ours.to_dense().numpy(), theirs.to_dense().numpy())
    assert ours._indices().tolist() == theirs._indices().tolist()
    assert ours.is_coalesced() == theirs.is_coalesced()


def test_sparse_coo_tensor_requires_grad_leaves_the_values_and_their_graph_alone():
    torch = torch_or_skip()
    for lib in (torch, dt):
        values = lib.tensor([1.0, 2.0])
        S = lib.sparse_coo_tensor(lib.tensor([[0, 2]]), values, (3,), requires_grad=True)
        assert S.requires_grad and S.is_leaf and not values.requires_grad
        w = lib.tensor([1.0, 2.0], requires_grad=True)
        S = lib.sparse_coo_tensor(lib.tensor([[0, 0]]), w * 2, (3,), requires_grad=True)
        assert not S.is_leaf and S.grad_fn is not None
        (S.to_dense() * lib.tensor([3.0, 4.0, 5.0])).sum().backward()
        assert w.grad.tolist() == [6.0, 6.0]


def _write_labels(root, labels, code, fmt):
    """Replace the training labels of a small Fashion-MNIST with ``labels`` stored as IDX
    type ``code`` (struct format ``fmt``)."""
    raw = write_fashion_mnist(root, n_train=len(labels), n_val=2, compress=False)
    header = struct.pack(">BBBBi", 0, 0, code, 1, len(labels))
    (raw / "train-labels-idx1-ubyte").write_bytes(header + struct.pack(f">{len(labels)}{fmt}",
                                                                       *labels))


@pytest.mark.parametrize("labels, code, fmt, shown", [
    ([0, 2.5, 1], 0x0D, "f", "label 1 is 2.5"),
    ([0, 1, -1], 0x09, "b", "label 2 is -1"),
    ([0, 12, 1], 0x0C, "i", "label 1 is 12"),
])
def test_fashion_mnist_labels_that_are_not_classes_are_refused(tmp_path, labels, code, fmt,
                                                               shown):
    _write_labels(tmp_path, labels, code, fmt)
    with pytest.raises(ValueError, match=rf"train-labels-idx1-ubyte: class labels must be "
                                         rf"whole numbers 0\.\.9, but {shown}"):
        d2l.FashionMNIST(root=str(tmp_path))


def test_fashion_mnist_names_only_classes():
    data = d2l.FashionMNIST(batch_size=8, stand_in="digits")
    data.source = "fashion-mnist"
    assert data.text_labels(dt.tensor([0, 9])) == ["t-shirt", "ankle boot"]
    assert d2l.get_fashion_mnist_labels([2.0]) == ["pullover"]
    for bad, shown in (([2.5], "0 is 2.5"), ([-1], "0 is -1"), (dt.tensor([3, 10]), "1 is 10")):
        with pytest.raises(ValueError, match=f"class labels must be whole numbers 0..9, but "
                                             f"label {shown}"):
            data.text_labels(bad)


@pytest.mark.parametrize("layer", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("batch_first, shape", [(False, (0, 2, 3)), (True, (2, 0, 3)),
                                                (False, (0, 3))])
def test_a_recurrent_layer_over_an_empty_sequence_raises_pytorchs_error(layer, batch_first,
                                                                        shape):
    torch = torch_or_skip()
    for lib in (torch, dt):
        module = getattr(lib.nn, layer)(3, 4, batch_first=batch_first)
        with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
            module(lib.zeros(*shape))
    with pytest.raises(RuntimeError, match="Expected sequence length to be larger than 0"):
        nn.MGU(3, 4, batch_first=batch_first)(ag.zeros(*shape))
    assert dt.nn.LSTM(3, 4)(dt.zeros(5, 0, 3))[0].shape == (5, 0, 4)     # an empty batch is fine
