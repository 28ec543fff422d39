"""The torch namespace over dagrad: dtypes, devices, missing names, CUDA queries."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn, torch
from dagrad.torch import NotInDagradError


def test_dtypes_compare_equal_to_tensor_dtypes():
    assert torch.randn(2).dtype == torch.float32 and torch.randn(2).dtype is torch.float
    assert torch.zeros(2, dtype=torch.double).dtype == torch.float64
    assert torch.tensor([1, 2]).dtype == torch.long == torch.int64
    assert (torch.ones(2) > 0).dtype == torch.bool
    assert torch.tensor([1.0]).to(torch.int32).dtype == torch.int
    assert torch.float32 == ag.float32 and torch.get_default_dtype() == torch.float32


def test_the_cpu_is_the_only_device():
    cpu = torch.device("cpu")
    x = torch.zeros(2, 3, device=cpu)
    assert x.device == cpu == torch.device("cpu:0").__class__("cpu") and str(cpu) == "cpu"
    assert x.to("cpu") is x and x.cpu() is x and x.to(cpu, torch.float64).dtype == np.float64
    assert x.to(device="cpu", dtype=torch.float64).dtype == np.float64
    assert x.to(torch.ones(1, dtype=torch.float64)).dtype == np.float64
    assert x.to(torch.float64, copy=True).dtype == np.float64
    assert x.to("cpu", copy=True) is not x
    for factory in (torch.zeros, torch.ones, torch.randn, torch.rand, torch.empty):
        assert factory(2, device="cpu").device == cpu
    assert torch.tensor([1.0], device=cpu).device.type == "cpu"
    assert torch.arange(3, device="cpu").shape == (3,)
    assert torch.full((2,), 3.0, device=cpu).shape == (2,)
    model = nn.Linear(2, 1)
    assert model.to(cpu) is model and model.cpu() is model
    assert model.to("cpu", torch.float64).weight.dtype == np.float64


@pytest.mark.parametrize("make", [
    lambda: torch.device("cuda"), lambda: torch.zeros(2, device="cuda"),
    lambda: torch.tensor([1.0], device="cuda:0"), lambda: torch.ones(2).to("cuda"),
    lambda: torch.ones(2).to(torch.device("mps")), lambda: nn.Linear(2, 1).to("cuda"),
    lambda: torch.randn(2, device=0), lambda: torch.load("x.pt", map_location="cuda"),
    lambda: torch.ones(2).cuda(), lambda: nn.Linear(2, 1).cuda(0)])
def test_asking_for_a_gpu_raises_one_clear_error(make):
    with pytest.raises(RuntimeError, match="dagrad computes on the CPU only"):
        make()


def test_cuda_and_accelerator_report_no_device():
    assert torch.cuda.is_available() is False and torch.cuda.device_count() == 0
    assert torch.accelerator.is_available() is False
    assert torch.backends.mps.is_available() is False
    assert torch.cuda.manual_seed_all(0) is None


@pytest.mark.parametrize("name", ["torch.compile", "torch.cuda.Stream", "torch.fft",
                                  "torch.nn.Bilinear", "torch.optim.SparseAdam",
                                  "torch.utils.data.StackDataset", "torch.accelerator.synchronize"])
def test_a_missing_name_says_dagrad_does_not_have_it(name):
    module_path, attr = name.rsplit(".", 1)
    module = torch
    for part in module_path.split(".")[1:]:
        module = getattr(module, part)
    with pytest.raises(NotImplementedError, match=f"{name}: dagrad does not have it"):
        getattr(module, attr)
    assert not hasattr(module, attr)      # hasattr() and getattr(m, name, default) still work
    assert isinstance(NotInDagradError("x"), NotImplementedError)


def test_submodules_import_as_in_pytorch():
    import dagrad.torch.nn.functional as F
    import dagrad.torch.nn.init as init
    from dagrad.torch.autograd import grad
    from dagrad.torch.autograd.functional import jacobian
    from dagrad.torch.nn.utils import clip_grad_norm_
    from dagrad.torch.optim.lr_scheduler import StepLR
    from dagrad.torch.utils.data import DataLoader
    assert F.relu is nn.functional.relu and init.xavier_uniform_ is nn.init.xavier_uniform_
    assert StepLR and DataLoader and clip_grad_norm_ and jacobian and grad is ag.grad


def test_manual_seed_and_generators_repeat_the_numbers():
    torch.manual_seed(3)
    a = torch.randn(4)
    torch.manual_seed(3)
    np.testing.assert_array_equal(a.numpy(), torch.randn(4).numpy())
    g1, g2 = torch.Generator().manual_seed(5), torch.Generator().manual_seed(5)
    np.testing.assert_array_equal(torch.rand(3, generator=g1).numpy(),
                                  torch.rand(3, generator=g2).numpy())


def test_normal_follows_pytorch_shapes_and_moments():
    torch.manual_seed(0)
    assert torch.normal(torch.zeros(2, 3), 1.0).shape == (2, 3)
    assert torch.normal(0.0, torch.ones(4)).shape == (4,)
    sample = torch.normal(2.0, 3.0, size=(20000,))
    assert abs(sample.mean().item() - 2.0) < 0.1 and abs(sample.std().item() - 3.0) < 0.1
    with pytest.raises(ValueError, match="std must be >= 0"):
        torch.normal(0.0, -1.0, size=(2,))


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_creation_takes_the_shape_as_size_too(name):
    """torch.rand(size=(2, 3)) (the book writes it so) is torch.rand(2, 3)."""
    make = getattr(torch, name)
    assert make(size=(2, 3)).shape == make(2, 3).shape == make((2, 3)).shape == (2, 3)
    with pytest.raises(TypeError, match="either positionally or as size="):
        make(2, size=(3,))


def test_cumsum_takes_axis_as_the_alias_of_dim():
    A = torch.arange(6.0).reshape(2, 3)
    assert A.cumsum(axis=0).tolist() == A.cumsum(0).tolist() == [[0, 1, 2], [3, 5, 7]]
    with pytest.raises(TypeError, match="once, as dim or its alias axis"):
        A.cumsum(0, axis=1)


def test_mv_is_the_matrix_vector_product():
    A, v = torch.arange(6.0).reshape(2, 3), torch.tensor([1.0, 0.0, -1.0])
    assert torch.mv(A, v).tolist() == A.mv(v).tolist() == [-2.0, -2.0]
    with pytest.raises(RuntimeError, match=r"mv: expected a 2-D matrix.*\(3,\) and \(3,\)"):
        torch.mv(v, v)


def test_data_loader_accepts_worker_arguments_and_builds_batches_itself():
    from dagrad.torch.utils.data import DataLoader, TensorDataset
    data = TensorDataset(torch.arange(10.0), torch.arange(10))
    loader = DataLoader(data, batch_size=4, shuffle=True, num_workers=4, pin_memory=True,
                        persistent_workers=True, generator=torch.Generator().manual_seed(1))
    seen = np.concatenate([xb.numpy() for xb, _ in loader])
    assert sorted(seen.tolist()) == list(range(10)) and loader.num_workers == 4
    with pytest.raises(ValueError, match="num_workers"):
        DataLoader(data, num_workers=-1)


def test_functions_that_pytorch_also_has_as_methods():
    x = torch.tensor([1.0, float("nan"), 4.0])
    assert torch.isnan(x).tolist() == [False, True, False]
    assert torch.dot(torch.ones(3), torch.arange(3.0)).item() == 3.0
    assert torch.eq(torch.ones(2), 1).all() and torch.rsqrt(torch.tensor(4.0)).item() == 0.5
    with pytest.raises(NotImplementedError, match="torch.fft: dagrad does not have it"):
        torch.fft


def test_as_tensor_shares_memory_when_it_can():
    array = np.arange(3.0, dtype=np.float32)
    shared = torch.as_tensor(array)
    array[0] = 7
    assert shared[0].item() == 7
    assert torch.as_tensor(array, dtype=torch.float64).dtype == torch.float64
    t = torch.ones(2)
    assert torch.as_tensor(t) is t and torch.as_tensor([1, 2]).dtype == torch.long


def test_sort_topk_and_integer_cumsum_follow_pytorch():
    real = pytest.importorskip("torch")
    values = np.array([[3, 1, 2, 1], [0, 5, 5, 4]])
    ours = torch.tensor(values).sort(dim=1, descending=True, stable=True)
    theirs = real.tensor(values).sort(dim=1, descending=True, stable=True)
    assert ours.values.tolist() == theirs.values.tolist()
    assert ours.indices.tolist() == theirs.indices.tolist()
    assert torch.topk(torch.tensor(values), 2).indices.tolist() == [[0, 2], [1, 2]]
    assert torch.cumsum(torch.tensor(values), 1).tolist() == real.cumsum(
        real.tensor(values), 1).tolist()


def test_equal_and_allclose():
    a = torch.tensor([1.0, float("nan")])
    assert torch.equal(torch.ones(2), torch.ones(2)) and not torch.equal(torch.ones(2),
                                                                         torch.ones(3))
    assert torch.allclose(a, a, equal_nan=True) and not torch.allclose(a, a)
    assert torch.numel(torch.zeros(2, 3)) == 6 and torch.Size([2, 3]) == (2, 3)


def test_from_numpy_shares_memory_and_format_uses_the_number():
    array = np.zeros(3, dtype=np.float32)
    t = torch.from_numpy(array)
    array[1] = 5
    assert t[1].item() == 5
    assert f"{torch.tensor(2.5):+.2f}" == "+2.50" and f"{torch.tensor(2.5)}" == "2.5"
    with pytest.raises(TypeError):      # as PyTorch: only a 0-d tensor formats as its number
        f"{torch.tensor([1.0]):.1f}"


def test_dropout_1d_and_2d_drop_whole_channels():
    torch.manual_seed(0)
    x = torch.ones(8, 6, 5, 5)
    y = nn.Dropout2d(0.5)(x).numpy()
    per_channel = y.reshape(8, 6, -1)
    assert set(np.unique(per_channel)) <= {0.0, 2.0}
    assert (per_channel.min(axis=2) == per_channel.max(axis=2)).all()
    assert 0 < (per_channel[:, :, 0] == 0).mean() < 1
    z = nn.Dropout1d(0.3)(torch.ones(4, 7, 9)).numpy()
    assert (z.min(axis=2) == z.max(axis=2)).all()
    drop = nn.Dropout2d(0.5)
    drop.eval()
    assert drop(x) is x
    with pytest.warns(UserWarning, match="Received a 2-D input to dropout2d"):
        flat = nn.Dropout2d()(torch.ones(50, 40)).numpy()     # as PyTorch: one draw each
    assert set(np.unique(flat)) == {0.0, 2.0} and not (flat.min(1) == flat.max(1)).all()
    with pytest.warns(UserWarning, match=r"interpreted as shape \(N, C, L\)"):
        rows = nn.Dropout2d()(torch.ones(2, 30, 5)).numpy()   # (N, C, L): whole channels
    assert (rows.min(axis=2) == rows.max(axis=2)).all()
