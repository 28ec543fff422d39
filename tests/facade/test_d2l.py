"""dagrad.d2l: the textbook's scaffolding behaves as the book's library does."""
import numpy as np
import pytest

from dagrad import d2l, torch
from dagrad.torch import nn
from dagrad.nn.datasets import read_idx
from tests.facade.book_data import write_fashion_mnist
from tests.helpers import torch_or_skip


def test_save_hyperparameters_and_add_to_class():
    class A(d2l.HyperParameters):
        def __init__(self, a, b, _private=1, c=3):
            self.save_hyperparameters(ignore=["c"])

    @d2l.add_to_class(A)
    def total(self):
        return self.a + self.b

    obj = A(1, 2)
    assert obj.hparams == {"a": 1, "b": 2} and obj.total() == 3 and not hasattr(obj, "c")


def test_trainer_matches_a_plain_pytorch_loop_given_the_same_data_and_weights():
    """LinearRegression through d2l.Trainer (SGD, gradient clipping) against the same steps
    written in PyTorch by hand."""
    real = torch_or_skip()
    torch.manual_seed(0)
    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2, num_train=64,
                                       num_val=32, batch_size=16)
    data.get_tensorloader = lambda tensors, train, indices=slice(0, None): (
        torch.utils.data.DataLoader(torch.utils.data.TensorDataset(
            *(a[indices] for a in tensors)), 16, shuffle=False))

    class LinearRegression(d2l.Module):
        def __init__(self, lr):
            super().__init__()
            self.save_hyperparameters()
            self.net = nn.Linear(2, 1)
            self.net.weight.data.copy_(torch.tensor([[0.1, -0.2]]))
            self.net.bias.data.fill_(0.0)

        def loss(self, y_hat, y):
            return nn.MSELoss()(y_hat, y)

    model = LinearRegression(lr=0.05)
    model.board.display = False                    # keep the points, draw no figure
    d2l.Trainer(max_epochs=2, gradient_clip_val=5.0).fit(model, data)

    w = real.tensor([[0.1, -0.2]], requires_grad=True)
    b = real.zeros(1, requires_grad=True)
    X, y = real.tensor(data.X.numpy()), real.tensor(data.y.numpy())
    for _ in range(2):
        for i in range(0, 64, 16):
            loss = ((X[i:i + 16] @ w.T + b - y[i:i + 16]) ** 2).mean()
            gw, gb = real.autograd.grad(loss, [w, b])
            norm = real.sqrt((gw ** 2).sum() + (gb ** 2).sum())
            scale = 5.0 / norm if norm > 5.0 else 1.0
            with real.no_grad():
                w -= 0.05 * gw * scale
                b -= 0.05 * gb * scale
    np.testing.assert_allclose(model.net.weight.numpy(), w.detach().numpy(), rtol=1e-5)
    np.testing.assert_allclose(model.net.bias.numpy(), b.detach().numpy(), rtol=1e-5)
    assert set(model.board.data) == {"train_loss", "val_loss"}


def test_classifier_accuracy_and_loss():
    model = d2l.Classifier()
    scores = torch.tensor([[2.0, 1.0, 0.0], [0.0, 3.0, 1.0], [1.0, 0.0, 5.0]])
    labels = torch.tensor([0, 2, 2])
    assert model.accuracy(scores, labels).item() == pytest.approx(2 / 3)
    np.testing.assert_allclose(model.accuracy(scores, labels, averaged=False).numpy(), [1, 0, 1])
    expected = -np.log(np.exp(scores.numpy())[[0, 1, 2], [0, 2, 2]]
                       / np.exp(scores.numpy()).sum(1)).mean()
    assert model.loss(scores, labels).item() == pytest.approx(expected, rel=1e-6)


def test_fashion_mnist_reads_the_idx_files_where_the_book_puts_them(tmp_path):
    write_fashion_mnist(tmp_path, n_train=6, n_val=4)
    data = d2l.FashionMNIST(batch_size=4, resize=(14, 14), root=str(tmp_path))
    X, y = next(iter(data.val_dataloader()))
    assert X.shape == (4, 1, 14, 14) and X.dtype == torch.float32 and 0 <= X.min().item()
    assert X.max().item() <= 1 and y.tolist() == [0, 1, 2, 3] and len(data.train) == 6
    assert data.text_labels([0, 9]) == ["t-shirt", "ankle boot"]
    same = d2l.FashionMNIST(batch_size=4, root=str(tmp_path))
    raw = tmp_path / "FashionMNIST" / "raw" / "t10k-images-idx3-ubyte.gz"
    first = read_idx(raw)[0] / 255
    np.testing.assert_allclose(same.val[0][0].numpy()[0], first, rtol=1e-6)


def test_fashion_mnist_reads_unpacked_files_too(tmp_path):
    write_fashion_mnist(tmp_path, n_train=3, n_val=2, compress=False)
    data = d2l.FashionMNIST(root=str(tmp_path))
    assert len(data.train) == 3 and data.val[1][1].item() == 1


def test_fashion_mnist_without_files_says_where_to_put_them(tmp_path):
    folder = tmp_path / "FashionMNIST" / "raw"
    with pytest.raises(FileNotFoundError) as error:
        d2l.FashionMNIST(root=str(tmp_path))
    message = str(error.value)
    assert str(folder / "train-images-idx3-ubyte") in message
    assert "downloads nothing" in message and "stand_in='digits'" in message
    data = d2l.FashionMNIST(batch_size=8, root=str(tmp_path), stand_in="digits")
    X, y = next(iter(data.train_dataloader()))
    assert X.shape == (8, 1, 28, 28) and data.text_labels([3]) == ["3"]
    assert len(data.train) + len(data.val) == 1797


def test_resize_is_pytorch_bilinear():
    real = torch_or_skip()
    images = np.random.default_rng(0).integers(0, 256, (2, 8, 8)).astype(np.uint8)
    ours = d2l.linear.ImageDataset(images, [0, 1], (28, 20), 1 / 255).get_batch(
        np.arange(2))[0]
    theirs = real.nn.functional.interpolate(real.tensor(images[:, None] / np.float32(255)),
                                            size=(28, 20), mode="bilinear",
                                            align_corners=False)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-6)


def test_corr2d_is_the_cross_correlation():
    X = torch.arange(9.0).reshape(3, 3)
    K = torch.tensor([[0.0, 1.0], [2.0, 3.0]], requires_grad=True)
    Y = d2l.corr2d(X, K)
    np.testing.assert_array_equal(Y.numpy(), [[19, 25], [37, 43]])
    Y.sum().backward()
    np.testing.assert_array_equal(K.grad.numpy(), [[8, 12], [20, 24]])


def test_init_cnn_and_apply_init_use_xavier_after_the_lazy_layers_materialise():
    class Net(d2l.Classifier):
        def __init__(self):
            super().__init__()
            self.net = nn.Sequential(nn.LazyConv2d(2, 3), nn.Flatten(), nn.LazyLinear(3))

    model = Net()
    torch.manual_seed(0)
    model.apply_init([torch.ones(1, 1, 5, 5)], d2l.init_cnn)
    bound = np.sqrt(6 / (18 + 3))                  # Xavier: U(±√(6 / (fan_in + fan_out)))
    weight = model.net[2].weight.numpy()
    assert weight.shape == (3, 18) and np.abs(weight).max() <= bound
    assert np.abs(weight).max() > 0.5 * bound


def test_the_book_sgd_and_the_gpu_helpers():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    opt = d2l.SGD([w], lr=0.5)
    (w ** 2).sum().backward()
    with torch.no_grad():
        opt.step()
    opt.zero_grad()
    np.testing.assert_allclose(w.numpy(), [0.0, 0.0])
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0])
    assert d2l.num_gpus() == 0 and d2l.try_gpu() == torch.device("cpu")
    assert d2l.try_all_gpus() == [] and d2l.Trainer(1, num_gpus=1).gpus == []
    with pytest.raises(RuntimeError, match="CPU only"):
        d2l.gpu()


def test_progress_board_averages_every_n_points_and_flushes():
    pytest.importorskip("matplotlib")
    import matplotlib
    matplotlib.use("Agg")
    board = d2l.ProgressBoard(min_seconds=3600)
    for i in range(6):
        board.draw(i, float(i), "loss", every_n=2)
    assert [p.y for p in board.data["loss"]] == [0.5, 2.5, 4.5]
    assert board._pending
    board.flush()
    assert not board._pending and board.fig is not None
