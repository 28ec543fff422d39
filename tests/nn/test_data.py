"""nn.data (Dataset, TensorDataset, DataLoader, random_split) and nn.datasets."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.nn import datasets
from dagrad.nn.data import DataLoader, Dataset, Subset, TensorDataset, default_collate, random_split


def _data(n=10):
    return TensorDataset(np.arange(n * 2, dtype=np.float32).reshape(n, 2), np.arange(n))


def test_tensor_dataset_rows_and_checks():
    ds = _data()
    x, y = ds[3]
    np.testing.assert_array_equal(x.numpy(), [6, 7]) and y.item() == 3
    assert len(ds) == 10
    with pytest.raises(ValueError, match="same first dimension"):
        TensorDataset(np.zeros((3, 2)), np.zeros(4))


def test_loader_batches_in_order_and_keeps_the_last_partial_batch():
    loader = DataLoader(_data(), batch_size=4)
    batches = list(loader)
    assert len(loader) == len(batches) == 3
    assert [b[1].tolist() for b in batches] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert batches[0][0].shape == (4, 2) and batches[0][0].dtype == np.float32
    assert isinstance(batches[0][0], ag.Tensor) and not batches[0][0].requires_grad


def test_drop_last():
    loader = DataLoader(_data(), batch_size=4, drop_last=True)
    assert len(loader) == 2 and [len(b[1]) for b in loader] == [4, 4]


def test_shuffle_is_seeded_and_differs_between_epochs():
    a = DataLoader(_data(), batch_size=10, shuffle=True, seed=7)
    b = DataLoader(_data(), batch_size=10, shuffle=True, seed=7)
    epochs_a = [next(iter(a))[1].tolist() for _ in range(3)]
    epochs_b = [next(iter(b))[1].tolist() for _ in range(3)]
    assert epochs_a == epochs_b                      # reproducible
    assert epochs_a[0] != epochs_a[1]                # a new order every epoch
    assert sorted(epochs_a[0]) == list(range(10))    # a permutation
    ag.manual_seed(3)
    first = next(iter(DataLoader(_data(), batch_size=10, shuffle=True)))[1].tolist()
    ag.manual_seed(3)
    assert next(iter(DataLoader(_data(), batch_size=10, shuffle=True)))[1].tolist() == first


class Squares(Dataset):
    def __len__(self):
        return 5

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i}


def test_generic_dataset_uses_the_collate_function():
    batch = next(iter(DataLoader(Squares(), batch_size=3)))
    assert batch["x"].dtype == np.float64 and batch["y"].dtype == np.int64   # as PyTorch
    assert batch["y"].tolist() == [0, 1, 4]
    joined = next(iter(DataLoader(Squares(), batch_size=2,
                                  collate_fn=lambda s: [d["y"] for d in s])))
    assert joined == [0, 1]
    assert default_collate([(np.ones(2), 1), (np.zeros(2), 0)])[0].shape == (2, 2)


def test_random_split_counts_fractions_and_seed():
    ds = _data(10)
    a, b = random_split(ds, [7, 3], seed=0)
    assert len(a) == 7 and len(b) == 3
    ids = sorted(int(a[i][1].item()) for i in range(7)) + sorted(
        int(b[i][1].item()) for i in range(3))
    assert sorted(ids) == list(range(10))
    c, d = random_split(ds, [0.75, 0.25], seed=0)
    assert (len(c), len(d)) == (8, 2)
    again = random_split(ds, [7, 3], seed=0)[0]
    np.testing.assert_array_equal(again.indices, a.indices)
    with pytest.raises(ValueError, match="sum"):
        random_split(ds, [5, 3])
    # a Subset of an array dataset still loads whole batches at once
    assert isinstance(a, Subset) and hasattr(a, "get_batch")
    x, y = next(iter(DataLoader(a, batch_size=7)))
    np.testing.assert_array_equal(y.numpy(), a.indices)


def test_loader_rejects_bad_batch_size():
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(_data(), batch_size=0)


def test_load_digits_is_scaled_float32_with_int64_labels():
    pytest.importorskip("sklearn", reason="the digits ship with scikit-learn")
    X, y = datasets.load_digits()
    assert X.shape == (1797, 64) and X.dtype == np.float32
    assert y.shape == (1797,) and y.dtype == np.int64
    assert X.min() == 0 and X.max() == 1 and set(y.tolist()) == set(range(10))


def test_load_digits_reads_what_scikit_learn_loads_without_importing_it():
    """The file is read where scikit-learn keeps it (its import takes 1-2 s); the values are
    scikit-learn's own."""
    import subprocess
    import sys
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    reference = sklearn_datasets.load_digits()
    X, y = datasets.load_digits()
    np.testing.assert_array_equal(X, (reference.data / 16).astype(np.float32))
    np.testing.assert_array_equal(y, reference.target)
    imported = subprocess.run(
        [sys.executable, "-c", "import sys; from dagrad.nn import datasets; "
         "datasets.load_digits(); print('sklearn.datasets' in sys.modules)"],
        capture_output=True, text=True, check=True).stdout.strip()
    assert imported == "False"


def test_load_digits_falls_back_to_scikit_learn_when_the_file_moved(monkeypatch):
    pytest.importorskip("sklearn.datasets")
    from dagrad.nn.datasets import digits
    X_file, y_file = datasets.load_digits()
    monkeypatch.setattr(digits, "_bundled_file", lambda: None)
    X, y = datasets.load_digits()
    assert X.dtype == np.float32 and y.dtype == np.int64
    np.testing.assert_array_equal(X, X_file)
    np.testing.assert_array_equal(y, y_file)


def test_load_digits_names_the_extra_when_scikit_learn_is_missing(monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "sklearn", None)
    monkeypatch.setitem(sys.modules, "sklearn.datasets", None)
    with pytest.raises(ImportError, match=r"pip install -e '\.\[notebooks\]'"):
        datasets.load_digits()


def test_train_test_split_is_fixed_by_the_seed():
    X, y = np.arange(20).reshape(10, 2), np.arange(10)
    Xtr, Xte, ytr, yte = datasets.train_test_split(X, y, test_size=0.2, seed=1)
    assert len(Xtr) == 8 and len(Xte) == 2
    np.testing.assert_array_equal(Xtr[:, 0] // 2, ytr)
    assert sorted(ytr.tolist() + yte.tolist()) == list(range(10))
    again = datasets.train_test_split(X, y, test_size=0.2, seed=1)
    np.testing.assert_array_equal(again[3], yte)
    with pytest.raises(ValueError, match="lengths"):
        datasets.train_test_split(X, y[:5])


def test_synthetic_regression_follows_the_d2l_recipe():
    X, y = datasets.synthetic_data(num_examples=2000, seed=0)
    assert X.shape == (2000, 2) and y.shape == (2000, 1) and X.dtype == np.float32
    residual = y[:, 0] - (X @ np.array([2, -3.4]) + 4.2)
    assert abs(residual.std() - 0.01) < 0.001 and abs(residual.mean()) < 0.002


def test_moons_and_spirals():
    X, y = datasets.make_moons(101, noise=0.0, seed=0)
    assert X.shape == (101, 2) and np.bincount(y).tolist() == [50, 51]
    outer = X[y == 0]
    np.testing.assert_allclose(np.hypot(*outer.T), 1, rtol=1e-6)      # on the unit circle
    X, y = datasets.make_spirals(300, n_classes=3, seed=0)
    assert X.shape == (300, 2) and np.bincount(y).tolist() == [100, 100, 100]
    assert np.hypot(*X.T).max() <= 1 + 1e-6
