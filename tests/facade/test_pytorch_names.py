"""Names and semantics PyTorch programs rely on, each compared with PyTorch itself: class paths
(torch.nn.modules.*), importable submodules (torch.nn.parallel, torch.backends.cudnn), legacy
constructors, torch.Size, factory arguments on layers, diag, log1p, dropout2d on 2-D input."""
import importlib
import warnings

import numpy as np
import pytest

from dagrad import torch
from dagrad.torch import nn
from tests.helpers import torch_or_skip


def test_layers_are_found_at_pytorchs_class_paths():
    real = torch_or_skip()
    import dagrad.torch.nn.modules.linear as linear
    from dagrad.torch.nn.modules.loss import MSELoss
    assert linear.Linear is nn.Linear and MSELoss is nn.MSELoss
    assert torch.nn.modules.conv.Conv2d is nn.Conv2d and torch.nn.modules.module.Module is nn.Module
    for file in ("linear", "conv", "activation", "container", "rnn", "sparse", "transformer"):
        ours, theirs = getattr(torch.nn.modules, file), getattr(real.nn.modules, file)
        for name in dir(ours):
            if isinstance(getattr(ours, name), type) and not name.startswith("_"):
                assert hasattr(theirs, name), f"torch.nn.modules.{file}.{name} is not PyTorch's"
    with pytest.raises(NotImplementedError, match="torch.nn.modules.padding.ReflectionPad2d"):
        torch.nn.modules.padding.ReflectionPad2d


def test_gpu_backends_and_parallel_import_as_modules():
    cudnn = importlib.import_module("dagrad.torch.backends.cudnn")
    cudnn.benchmark = True
    assert torch.backends.cudnn is cudnn and cudnn.benchmark and not cudnn.is_available()
    parallel = importlib.import_module("dagrad.torch.nn.parallel")
    model = nn.Linear(2, 1)
    wrapped = nn.DataParallel(model)
    assert wrapped.module is model and list(wrapped.state_dict()) == ["module.weight",
                                                                     "module.bias"]
    assert torch.equal(wrapped(torch.ones(3, 2)), model(torch.ones(3, 2)))
    with pytest.raises(NotImplementedError, match="DistributedDataParallel"):
        parallel.DistributedDataParallel(model)      # importable; making one says why not


def test_tensor_places_and_version_read_as_pytorchs():
    x = torch.ones(2)
    assert (x.is_cpu, x.is_cuda, x.is_xpu, x.is_mps) == (True, False, False, False)
    major, minor = (int(n) for n in torch.__version__.split(".")[:2])
    assert (major, minor) >= (2, 0) and "dagrad" in torch.__version__


def test_legacy_constructors_behave_as_pytorchs():
    real = torch_or_skip()
    for args in ([[1, 2]], [5], [2, 3], [], [torch.Size([2, 1])], [np.array([1, 2])]):
        theirs_args = [real.Size(a) if isinstance(a, tuple) else a for a in args]
        for ours, theirs in ((torch.Tensor, real.Tensor), (torch.FloatTensor, real.FloatTensor),
                             (torch.LongTensor, real.LongTensor),
                             (torch.DoubleTensor, real.DoubleTensor)):
            made, expected = ours(*args), theirs(*theirs_args)
            assert tuple(made.shape) == tuple(expected.shape), (ours, args)
            assert str(made.dtype) == str(expected.dtype).replace("torch.", ""), (ours, args)
            if args and isinstance(args[0], list):
                assert made.tolist() == expected.tolist()
    x, n = torch.ones(2), torch.tensor([1, 2])
    assert isinstance(x, torch.Tensor) and isinstance(nn.Parameter(x), torch.Tensor)
    assert isinstance(x, torch.FloatTensor) and not isinstance(x, torch.LongTensor)
    assert isinstance(n, torch.LongTensor) and issubclass(nn.Parameter, torch.Tensor)
    assert x.type() == "torch.FloatTensor" and n.type() == "torch.LongTensor"
    assert x.type(torch.LongTensor).dtype == torch.int64
    assert x.type("torch.DoubleTensor").dtype == torch.float64
    with pytest.raises(TypeError, match=r"torch.tensor\(2.5\)"):
        torch.Tensor(2.5)


def test_size_is_a_tuple_that_prints_as_pytorchs():
    real = torch_or_skip()
    x = torch.zeros(2, 3, 4)
    for value, expected in ((x.shape, real.zeros(2, 3, 4).shape), (x.size(), None),
                            (x.shape[1:], real.zeros(2, 3, 4).shape[1:]),
                            (torch.Size([5]) + (6,), real.Size([5]) + (6,))):
        assert isinstance(value, tuple) and type(value) is torch.Size
        if expected is not None:
            assert repr(value) == repr(expected) and str(value) == str(expected)
    assert x.shape == (2, 3, 4) and x.size(1) == 3 and x.shape.numel() == 24
    assert np.zeros(x.shape).shape == (2, 3, 4) and f"{x.shape}" == "torch.Size([2, 3, 4])"
    assert torch.Size() == () and repr(torch.Size([])) == "torch.Size([])"
    with pytest.raises(TypeError, match="iterable of 'int'"):
        torch.Size([1.5])


def test_layers_take_device_and_dtype_by_keyword_and_by_position():
    linear = nn.Linear(2, 3, device="cpu", dtype=torch.float64)
    assert linear.weight.dtype == torch.float64
    assert nn.Linear(2, 3, True, torch.device("cpu"), torch.float64).bias.dtype == torch.float64

    class Scaled(nn.Linear):        # PyTorch's own pattern for a layer's subclass
        def __init__(self, n_in, n_out, bias=True, device=None, dtype=None):
            super().__init__(n_in, n_out, bias, device, dtype)

    assert Scaled(2, 3, dtype=torch.float64).weight.dtype == torch.float64
    assert Scaled(2, 3).weight.dtype == torch.float32
    for make in (lambda: nn.Conv2d(1, 2, 3, device="cpu"), lambda: nn.LSTM(2, 3, device="cpu"),
                 lambda: nn.BatchNorm1d(3, device="cpu"), lambda: nn.Embedding(5, 2, device="cpu"),
                 lambda: nn.LayerNorm(3, device="cpu", dtype=torch.float64),
                 lambda: nn.MultiheadAttention(4, 2, device="cpu")):
        make()
    with pytest.raises(RuntimeError, match="CPU only"):
        nn.Linear(2, 3, device="cuda")


def test_diag_and_log1p_match_pytorch():
    real = torch_or_skip()
    v = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    m = np.arange(12, dtype=np.float32).reshape(3, 4)
    for k in (0, 1, -2):
        np.testing.assert_array_equal(torch.diag(torch.tensor(v), k).numpy(),
                                      real.diag(real.tensor(v), k).numpy())
        np.testing.assert_array_equal(torch.tensor(m).diag(k).numpy(),
                                      real.tensor(m).diag(k).numpy())
    small = np.array([1e-10, 1e-5, 0.5, -0.5], dtype=np.float64)
    np.testing.assert_allclose(torch.log1p(torch.tensor(small)).numpy(),
                               real.log1p(real.tensor(small)).numpy(), rtol=1e-15)


def test_dropout2d_on_a_2d_input_warns_and_drops_elements_as_pytorch():
    real = torch_or_skip()
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        real.nn.Dropout2d()(real.ones(4, 3))
    with pytest.warns(UserWarning) as ours:
        out = nn.Dropout2d()(torch.ones(40, 30)).numpy()
    assert str(ours[0].message) == str(theirs[0].message)
    assert 0.3 < (out == 0).mean() < 0.7 and set(np.unique(out)) == {0.0, 2.0}
