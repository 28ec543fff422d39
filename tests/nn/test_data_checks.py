"""Data loading and the training loop refuse what would silently give a wrong answer:
batches keep the dtype the whole batch needs, float indices and boolean batch sizes are
refused, and an empty loader has no mean loss."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, optim
from tests.helpers import torch_or_skip


@pytest.mark.parametrize("samples", [[1, 2.5, 3], [1, 2, 3], [True, False], [True, 2],
                                     [0.5, 1], [np.float32(1), np.float32(2)],
                                     [np.int32(1), 2], [np.ones(2, np.int64), np.ones(2)],
                                     [np.ones(1, np.float32), np.full(1, 2.5)]])
def test_default_collate_promotes_like_pytorchs(samples):
    torch = torch_or_skip()
    from torch.utils.data import default_collate
    batch = nn.data.default_collate(samples)
    expected = default_collate(samples)
    assert str(batch.dtype) == str(expected.dtype).replace("torch.", "")
    np.testing.assert_array_equal(batch.numpy(), expected.numpy())


def test_default_collate_refuses_complex_numbers():
    with pytest.raises(TypeError, match=r"default_collate: cannot batch \(1\+2j\)"):
        nn.data.default_collate([1.0, 1 + 2j])


def test_a_loader_of_mixed_numbers_batches_them_as_floats():
    class Numbers(nn.data.Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return [1, 2.5, 3][i]

    (batch,) = list(nn.data.DataLoader(Numbers(), batch_size=3))
    assert batch.dtype == ag.float32 and batch.numpy().tolist() == [1.0, 2.5, 3.0]


def test_subset_refuses_float_indices():
    data = nn.data.TensorDataset(np.arange(5.0))
    with pytest.raises(TypeError, match="Subset: indices must be integers, got float64"):
        nn.data.Subset(data, [0.7, 2.2])
    assert nn.data.Subset(data, [3, 1])[0][0].item() == 3.0
    assert len(nn.data.Subset(data, [])) == 0


def test_batch_size_true_is_refused_as_in_torch():
    torch = torch_or_skip()
    with pytest.raises(ValueError, match="batch_size"):
        torch.utils.data.DataLoader(list(range(4)), batch_size=True)
    with pytest.raises(ValueError, match="batch_size must be a positive integer, got True"):
        nn.data.DataLoader(list(range(4)), batch_size=True)


def _empty_loader():
    return nn.data.DataLoader(nn.data.TensorDataset(np.zeros((0, 2), np.float32),
                                                    np.zeros((0, 1), np.float32)))


def test_evaluate_and_fit_on_an_empty_loader_raise_instead_of_reporting_zero():
    model = nn.Linear(2, 1)
    with pytest.raises(ValueError, match="evaluate: the loader yielded no samples"):
        nn.training.evaluate(model, _empty_loader(), nn.MSELoss())
    with pytest.raises(ValueError, match="train_epoch: the loader yielded no samples"):
        nn.training.fit(model, nn.MSELoss(), optim.SGD(model.parameters(), lr=0.1),
                        _empty_loader(), progress=False)
    three = nn.data.DataLoader(nn.data.TensorDataset(np.zeros((3, 2), np.float32),
                                                     np.zeros((3, 1), np.float32)),
                               batch_size=4, drop_last=True)
    with pytest.raises(ValueError, match="has 3"):
        nn.training.evaluate(model, three, nn.MSELoss())
