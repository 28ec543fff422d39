"""The PyTorch names that stopped programs learners run (character samplers, nanoGPT, minGPT,
the PyTorch tutorials), each tested against PyTorch: multinomial, nelement, log10, histogram,
randint(high, size), out=, grad_fn.next_functions, torch.utils.data.dataloader, a lazy
RandomSampler, GradScaler/autocast, backends.cuda.matmul, the distributed names, bfloat16."""
import subprocess
import sys
import tracemalloc
import warnings
from itertools import islice

import numpy as np
import pytest

from dagrad import torch as dt
from dagrad.torch import NotInDagradError
from tests.helpers import torch_or_skip

PROBS = [0.1, 0.0, 0.6, 0.3]


# ------------------------------------------------------------------------------ multinomial
def _frequencies(draws, k):
    return np.bincount(np.asarray(draws).reshape(-1), minlength=k) / np.asarray(draws).size


@pytest.mark.parametrize("framework", ["torch", "dagrad"])
def test_multinomial_with_replacement_draws_the_distribution(framework):
    t = torch_or_skip() if framework == "torch" else dt
    t.manual_seed(0)
    draws = t.multinomial(t.tensor([PROBS] * 4) * 5, 20000, replacement=True)
    assert draws.shape == (4, 20000) and draws.dtype == t.int64
    freq = _frequencies(draws.numpy(), 4)
    np.testing.assert_allclose(freq, PROBS, atol=0.005)      # 80,000 draws: sd ~0.002
    assert freq[1] == 0                                      # weight 0: never drawn


@pytest.mark.parametrize("framework", ["torch", "dagrad"])
def test_multinomial_without_replacement_draws_in_order_without_repeats(framework):
    t = torch_or_skip() if framework == "torch" else dt
    t.manual_seed(1)
    draws = t.multinomial(t.tensor([PROBS] * 20000), 2).numpy()
    assert (draws[:, 0] != draws[:, 1]).all() and (draws != 1).all()
    np.testing.assert_allclose(_frequencies(draws[:, 0], 4), PROBS, atol=0.01)
    # second draw given the first was 2: the rest renormalised, 0.1 / 0.4 and 0.3 / 0.4
    second = draws[draws[:, 0] == 2, 1]
    np.testing.assert_allclose(_frequencies(second, 4), [0.25, 0, 0, 0.75], atol=0.02)


def test_multinomial_without_replacement_takes_zero_weights_last():
    torch = torch_or_skip()
    for t in (torch, dt):
        assert t.multinomial(t.tensor([0.0, 1.0, 0.0]), 2)[0].item() == 1


def test_multinomial_samples_are_the_same_run_to_run_for_a_seed():
    program = ("from dagrad import torch\ntorch.manual_seed(42)\n"
               "print(torch.multinomial(torch.tensor([0.2, 0.3, 0.5]), 8, replacement=True)"
               ".tolist(), torch.tensor([0.2, 0.3, 0.5]).multinomial(3).tolist())")
    runs = [subprocess.run([sys.executable, "-c", program], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)]
    assert runs[0] == runs[1] and runs[0].startswith("[")
    dt.manual_seed(42)
    first = dt.multinomial(dt.tensor([0.2, 0.3, 0.5]), 8, replacement=True).tolist()
    assert str(first) in runs[0]
    generator = dt.Generator().manual_seed(42)
    again = dt.multinomial(dt.tensor([0.2, 0.3, 0.5]), 8, True, generator=generator).tolist()
    assert again == first


@pytest.mark.parametrize("call", [
    lambda t: t.multinomial(t.tensor([0.5, 0.5]), 3),                  # more than categories
    lambda t: t.multinomial(t.tensor([-1.0, 2.0]), 1),                 # negative
    lambda t: t.multinomial(t.tensor([0.0, 0.0]), 1, True),            # sums to zero
    lambda t: t.multinomial(t.tensor([[[1.0]]]), 1),                   # 3-d
])
def test_multinomial_refuses_what_pytorch_refuses(call):
    torch = torch_or_skip()
    for t in (torch, dt):
        with pytest.raises(RuntimeError):
            call(t)


# ----------------------------------------------------------- nelement, log10, histogram, randint
def test_nelement_log10_and_randint_as_pytorch():
    torch = torch_or_skip()
    values = np.array([[0.5, 10.0, 123.0]], dtype=np.float32)
    for t in (torch, dt):
        assert t.ones(2, 3, 4).nelement() == 24
    ours, theirs = dt.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    dt.log10(ours).sum().backward()
    torch.log10(theirs).sum().backward()
    np.testing.assert_allclose(ours.log10().detach().numpy(), theirs.log10().detach().numpy(),
                               rtol=1e-6)
    np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-6)
    for t in (torch, dt):
        t.manual_seed(0)
        draws = t.randint(5, (2000,))
        low_high = t.randint(3, 6, size=(2, 3))
        assert draws.dtype == t.int64 and draws.shape == (2000,)
        assert set(draws.tolist()) == {0, 1, 2, 3, 4}
        assert low_high.shape == (2, 3) and set(low_high.flatten().tolist()) <= {3, 4, 5}


@pytest.mark.parametrize("kwargs", [dict(), dict(bins=7), dict(bins=5, range=(-1.0, 1.0)),
                                    dict(bins=6, density=True), dict(bins=4, weight=True)])
def test_histogram_is_pytorchs(kwargs):
    torch = torch_or_skip()
    values = np.random.default_rng(3).standard_normal(500).astype(np.float32)
    weights = np.random.default_rng(4).random(500).astype(np.float32)
    results = []
    for t in (torch, dt):
        args = dict(kwargs)
        if args.get("weight"):
            args["weight"] = t.tensor(weights)
        hist, edges = t.histogram(t.tensor(values), **args)
        assert hist.dtype == t.float32 and edges.dtype == t.float32
        results.append((hist.numpy(), edges.numpy()))
    (ours, our_edges), (theirs, their_edges) = results[1], results[0]
    np.testing.assert_allclose(our_edges, their_edges, rtol=1e-6, atol=1e-6)
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_histogram_with_given_edges_and_the_method_form():
    torch = torch_or_skip()
    values, edges = [0.5, 1.0, 1.5, 2.0, 3.0, -1.0], [0.0, 1.0, 2.0, 3.0]
    theirs = torch.histogram(torch.tensor(values), torch.tensor(edges))
    ours = dt.tensor(values).histogram(dt.tensor(edges))
    assert ours.hist.tolist() == theirs.hist.tolist() == [1.0, 2.0, 2.0]
    assert ours.bin_edges.tolist() == theirs.bin_edges.tolist()


# -------------------------------------------------------------------------------------- out=
def test_out_writes_into_the_given_tensor_as_pytorch():
    torch = torch_or_skip()
    a, b = np.arange(6, dtype=np.float32).reshape(2, 3), np.ones((3, 2), np.float32)
    for t in (torch, dt):
        x, y, result = t.tensor(a), t.tensor(b), t.empty(2, 3)
        assert t.add(x, x, out=result) is result and result.tolist() == (2 * a).tolist()
        product = t.empty(2, 2)
        t.matmul(x, y, out=product)
        assert product.tolist() == (a @ b).tolist()
        joined = t.empty(0)
        t.cat([x, x], out=joined)          # an empty out is resized silently
        assert joined.shape == (4, 3)
        sums = t.empty(3)
        t.sum(x, 0, out=sums)
        assert sums.tolist() == a.sum(0).tolist()
        values, indices = t.empty(0), t.empty(0, dtype=t.int64)
        found = t.max(x, 1, out=(values, indices))
        assert found[0] is values and indices.tolist() == [2, 2] and values.tolist() == [2, 5]
        ones = t.empty(2, dtype=t.float64)
        t.ones(2, out=ones)
        assert ones.dtype == t.float64 and ones.tolist() == [1.0, 1.0]


def test_out_refuses_and_warns_where_pytorch_does():
    torch = torch_or_skip()
    for t in (torch, dt):
        x = t.ones(3)
        with pytest.warns(UserWarning, match="resized since it had shape \\[2\\]"):
            t.add(x, x, out=t.empty(2))
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the "
                                               "desired output type Long"):
            t.add(x, x, out=t.empty(3, dtype=t.int64))
        with pytest.raises(RuntimeError, match="add\\(\\): functions with out=... arguments "
                                               "don't support automatic differentiation"):
            t.add(t.ones(3, requires_grad=True), x, out=t.empty(3))


# --------------------------------------------------------------------- grad_fn.next_functions
def _shape_of_graph(fn, leaves):
    """The graph below ``fn`` as nested tuples: 'leaf i' for an AccumulateGrad, None, or the
    node's inputs, read through next_functions only."""
    if fn is None:
        return None
    if type(fn).__name__ == "AccumulateGrad":
        return f"leaf {next(i for i, x in enumerate(leaves) if x is fn.variable)}"
    return tuple(_shape_of_graph(f, leaves) for f, index in fn.next_functions)


def test_next_functions_walk_the_graph_as_pytorchs():
    torch = torch_or_skip()
    shapes = []
    for t in (torch, dt):
        w = t.tensor([1.0, 2.0], requires_grad=True)
        b = t.tensor(0.5, requires_grad=True)
        x = t.tensor([3.0, 4.0])
        loss = ((w * x).sum() + b) * w[0].detach()
        shapes.append(_shape_of_graph(loss.grad_fn, [w, b]))
        first = loss.grad_fn.next_functions[0][0]
        assert first.next_functions[1][0].next_functions == ()     # AccumulateGrad of b
        assert first.next_functions[1][0] is first.next_functions[1][0]
    assert shapes[0] == shapes[1] == (((("leaf 0", None),), "leaf 1"), None)


# --------------------------------------------------------------------------- data loading
def test_the_dataloader_module_and_pytorchs_other_files_import():
    import dagrad.torch.utils.data.dataloader as dataloader
    from dagrad.torch.utils.data.sampler import RandomSampler
    from dagrad.torch.utils.data.dataset import TensorDataset
    assert dataloader.DataLoader is dt.utils.data.DataLoader
    assert RandomSampler is dt.utils.data.RandomSampler and TensorDataset is not None


def test_random_sampler_draws_lazily_for_any_number_of_samples():
    torch = torch_or_skip()
    for t in (torch, dt):
        data = t.utils.data.TensorDataset(t.arange(10))
        sampler = t.utils.data.RandomSampler(data, replacement=True, num_samples=int(1e10))
        loader = t.utils.data.DataLoader(data, batch_size=4, sampler=sampler)
        assert len(sampler) == int(1e10) and len(loader) == int(2.5e9)
        tracemalloc.start()
        batches = list(islice(loader, 50))
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        assert peak < 5_000_000 and [b[0].shape for b in batches[:1]] == [(4,)]
        assert {int(i) for b in batches for i in b[0]} == set(range(10))


def test_random_sampler_without_replacement_visits_each_index_once_per_pass():
    sampler = dt.utils.data.RandomSampler(range(7), num_samples=16)
    drawn = list(sampler)
    assert len(drawn) == 16 and sorted(drawn[:7]) == sorted(drawn[7:14]) == list(range(7))


# ---------------------------------------------------------------- mixed precision, GPU flags
def _train(t, scaler, context):
    t.manual_seed(0)
    w = t.tensor([[0.5, -0.25]], requires_grad=True)
    opt = t.optim.SGD([w], lr=0.1)
    for _ in range(3):
        with context:
            loss = ((t.tensor([[1.0, 2.0]]) @ w.T - 1) ** 2).mean()
        opt.zero_grad()
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        scaler.step(opt)
        scaler.update()
    return w.detach().numpy().tolist(), scaler.get_scale(), scaler.is_enabled()


def test_a_disabled_grad_scaler_and_autocast_change_nothing_as_pytorch():
    torch = torch_or_skip()
    theirs = _train(torch, torch.amp.GradScaler("cuda", enabled=False),
                    torch.autocast("cpu", enabled=False))
    for scaler in (dt.amp.GradScaler("cuda", enabled=False),
                   dt.cuda.amp.GradScaler(enabled=False)):
        ours = _train(dt, scaler, dt.autocast("cpu", enabled=False))
        assert ours[1:] == theirs[1:] == (1.0, False)
        np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert dt.amp.GradScaler(enabled=False).state_dict() == {}


def test_enabling_mixed_precision_says_it_is_disabled():
    with pytest.warns(UserWarning, match="GradScaler is enabled, but dagrad has no mixed "
                                         "precision.*Disabling"):
        scaler = dt.cuda.amp.GradScaler()
    assert not scaler.is_enabled()
    with pytest.warns(UserWarning, match="autocast.*disabled"):
        with dt.autocast(device_type="cuda", dtype=dt.float16):
            y = dt.ones(2) * 2
    assert y.dtype == dt.float32
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dt.cuda.amp.autocast(enabled=False)


def test_cuda_matmul_flags_are_pytorchs_and_assignable():
    torch = torch_or_skip()
    for flag in ("allow_tf32", "allow_fp16_reduced_precision_reduction",
                 "allow_bf16_reduced_precision_reduction"):
        assert getattr(dt.backends.cuda.matmul, flag) == getattr(torch.backends.cuda.matmul,
                                                                 flag)
    dt.backends.cuda.matmul.allow_tf32 = True
    dt.backends.cudnn.allow_tf32 = True
    dt.set_float32_matmul_precision("high")
    assert dt.get_float32_matmul_precision() == "high"
    dt.set_float32_matmul_precision("highest")
    dt.backends.cuda.matmul.allow_tf32 = False


# ------------------------------------------------------------------------- distributed, dtypes
def test_the_distributed_names_import_and_say_dagrad_lacks_them_when_called():
    from dagrad.torch.distributed import destroy_process_group, init_process_group
    from dagrad.torch.nn.parallel import DistributedDataParallel
    from dagrad.torch.utils.data import DistributedSampler
    assert not dt.distributed.is_available() and not dt.distributed.is_initialized()
    with pytest.raises(NotInDagradError, match="torch.distributed.init_process_group"):
        init_process_group(backend="gloo")
    with pytest.raises(NotInDagradError, match="one process"):
        destroy_process_group()
    with pytest.raises(NotInDagradError, match="DistributedDataParallel"):
        DistributedDataParallel(dt.nn.Linear(2, 2))
    with pytest.raises(NotInDagradError, match="DistributedSampler"):
        DistributedSampler(range(4))
    assert dt.distributed.ReduceOp.SUM


def test_bfloat16_is_a_name_and_one_clear_error():
    table = {"float32": dt.float32, "bfloat16": dt.bfloat16, "float16": dt.float16}
    assert repr(table["bfloat16"]) == "torch.bfloat16" and not dt.cuda.is_bf16_supported()
    for make in (lambda: dt.zeros(2, dtype=dt.bfloat16), lambda: dt.ones(2).to(dt.bfloat16),
                 lambda: dt.tensor([1.0], dtype=dt.bfloat16),
                 lambda: dt.set_default_dtype(dt.bfloat16)):
        with pytest.raises(TypeError, match="torch.bfloat16: dagrad does not have this dtype "
                                            "\\(NumPy.*use torch.float32"):
            make()
