"""In-place operations recorded in the graph, as PyTorch: the same gradients, and an error in
the same places (a leaf or a view of a leaf that requires grad; a value some backward saved
was overwritten). Every case runs on both libraries with the same numbers."""
import numpy as np
import pytest

from dagrad import autograd as ag, nn, optim

torch = pytest.importorskip("torch")


class Lib:
    """The few names a case needs, for PyTorch or dagrad."""

    def __init__(self, name):
        self.name = name

    def t(self, values, requires_grad=False):
        values = np.asarray(values, dtype=np.float64)
        if self.name == "torch":
            return torch.tensor(values, requires_grad=requires_grad)
        return ag.tensor(values, requires_grad=requires_grad)

    def no_grad(self):
        return torch.no_grad() if self.name == "torch" else ag.no_grad()


def _relu_after_add(L):
    x, w = L.t([1., -2., 3.], True), L.t([0.5, -1., -4.], True)
    y = x * 2
    y += w
    y.relu_()
    (y * y).sum().backward()
    return x, w


def _masked_assignment(L):
    x, v = L.t([1., -2., 3.], True), L.t([7.], True)
    y = x * 3
    y[y < 0] = v
    (y * y).sum().backward()
    return x, v


def _slice_augmented_assignment(L):
    x = L.t([[1., 2.], [3., 4.]], True)
    y = x * 1
    y[0] += 10
    (y * y).sum().backward()
    return x, y


def _change_through_a_slice(L):
    x = L.t([[1., 2.], [3., 4.]], True)
    y = x * 1
    v = y[1]
    v.mul_(3)
    (y * y).sum().backward()
    return x, y


def _change_through_nested_views(L):
    x = L.t([[1., 2.], [3., 4.]], True)
    y = x * 1
    v = y.T[1]                                # column 1 of y, through a transpose and a slice
    v.sub_(L.t([1., 5.]))
    (y * y).sum().backward()
    return x, y


def _change_through_a_reshape(L):
    x = L.t([1., 2., 3., 4.], True)
    y = (x * 2).reshape(2, 2)
    y.exp_()
    y.sum().backward()
    return x, y


def _zero_keeps_the_graph(L):
    x = L.t([1., 2.], True)
    y = x * 1
    y.zero_()
    (y + x).sum().backward()
    return x, y


def _copy_into_a_buffer(L):
    x = L.t([1., 2.], True)
    buffer = L.t([0., 0.])
    buffer.copy_(x * 2)
    (buffer * buffer).sum().backward()
    return x, buffer


def _clamp_and_div(L):
    x = L.t([-1., 0.5, 3.], True)
    y = x * 2
    y.clamp_(min=0., max=2.)
    y.div_(L.t([2., 4., 8.]))
    y.sum().backward()
    return x, y


def _retain_grad_follows_the_tensor(L):
    x = L.t([1., 2.], True)
    y = x * 3
    y.retain_grad()
    y.mul_(2)
    (y * y).sum().backward()
    return x, y


def _retain_grad_follows_an_addition(L):
    x = L.t([1., 2.], True)
    y = x * 3
    y.retain_grad()
    y.add_(1)                                 # Add saves nothing: no write check reaches it
    (y * y).sum().backward()
    return x, y


def _write_through_data_is_not_checked(L):
    w = L.t([1., 2.], True)
    loss = (w * w).sum()
    w.data.add_(1)                            # PyTorch's escape hatch: the old graph uses 2, 3
    loss.backward()
    return (w,)


def _assign_a_value_with_leading_unit_axes(L):
    x, v = L.t([1., 2., 3.], True), L.t([[5.]], True)
    y = x * 1
    y[1] = v * 2                              # (1, 1) into one element: PyTorch drops the axes
    (y * y).sum().backward()
    return x, v


CASES = [_assign_a_value_with_leading_unit_axes, _relu_after_add, _masked_assignment, _slice_augmented_assignment,
         _change_through_a_slice, _change_through_nested_views, _change_through_a_reshape,
         _zero_keeps_the_graph, _copy_into_a_buffer, _clamp_and_div,
         _retain_grad_follows_the_tensor, _retain_grad_follows_an_addition,
         _write_through_data_is_not_checked]


def _values(tensors):
    out = []
    for t in tensors:
        out.append(t.detach().numpy().copy())
        grad = t.grad if t.is_leaf or t.retains_grad else None
        out.append(None if grad is None else grad.numpy().copy())
    return out


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__.strip("_"))
def test_in_place_operations_in_the_graph_match_pytorch(case):
    expected = _values(case(Lib("torch")))
    got = _values(case(Lib("dagrad")))
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if e is None:
            assert g is None
        else:
            np.testing.assert_allclose(g, e, rtol=1e-12)


def _leaf(L):
    x = L.t([1., 2.], True)
    x += 1


def _view_of_leaf(L):
    x = L.t([1., 2.], True)
    x[0:1].mul_(2)


def _saved_value_overwritten(L):
    x = L.t([1., 2.], True)
    y = x * 2
    z = y * y                                  # saves y
    y += 1
    z.sum().backward()


def _saved_output_overwritten(L):
    x = L.t([1., 2.], True)
    y = x.exp()                                # saves its output y
    y.add_(1)
    y.sum().backward()


def _output_of_an_in_place_op_overwritten(L):
    x = L.t([1., -2.], True)
    y = x * 2
    y.relu_()                                  # ReLU saves its output: y's memory
    y += 1
    y.sum().backward()


def _parameter_stepped_before_backward(L):
    w = L.t([1., 2.], True)
    loss = (w * w).sum()
    with L.no_grad():
        w -= 0.1
    loss.backward()


@pytest.mark.parametrize("case, message", [
    (_leaf, "a leaf Variable that requires grad is being used in an in-place operation"),
    (_view_of_leaf, "a view of a leaf Variable that requires grad"),
    (_saved_value_overwritten, "modified by an inplace operation"),
    (_saved_output_overwritten, "modified by an inplace operation"),
    (_output_of_an_in_place_op_overwritten, "modified by an inplace operation"),
    (_parameter_stepped_before_backward, "modified by an inplace operation"),
], ids=lambda c: c.__name__.strip("_") if callable(c) else "")
def test_in_place_errors_where_pytorch_raises(case, message):
    with pytest.raises(RuntimeError, match=message):
        case(Lib("torch"))
    with pytest.raises(RuntimeError, match=message):
        case(Lib("dagrad"))


def test_optimizer_step_between_forward_and_backward_raises():
    x = ag.randn(2, 3, requires_grad=True)
    layer = nn.Linear(3, 4)
    opt = optim.SGD(layer.parameters(), lr=0.1)
    y = (x @ layer.weight.T).sum()
    (layer.weight * 1).sum().backward()
    opt.step()
    with pytest.raises(RuntimeError, match="'MatMul'.*modified in place"):
        y.backward()


def test_a_saved_mask_changed_in_place_raises():
    mask = ag.tensor([True, False, True])
    a, b = ag.ones(3, requires_grad=True), ag.zeros(3, requires_grad=True)
    y = ag.where(mask, a, b).sum()
    mask.fill_(False)
    with pytest.raises(RuntimeError, match="'Where'.*modified in place"):
        y.backward()


def test_module_to_after_forward_raises_at_backward():
    layer = nn.Linear(3, 2)
    x = ag.randn(4, 3, requires_grad=True)
    y = layer(x).sum()
    layer.to(ag.float64)
    with pytest.raises(RuntimeError, match="modified in place"):
        y.backward()


def test_running_statistics_updates_are_recorded():
    bn = nn.BatchNorm1d(3)
    version = bn.running_mean._version
    bn(ag.randn(5, 3))
    assert bn.running_mean._version > version and bn.num_batches_tracked.item() == 1
    bn.reset_running_stats()
    assert bn.num_batches_tracked.item() == 0 and float(bn.running_var.sum()) == 3.0


def test_in_place_arithmetic_keeps_dtype_and_shape():
    x = ag.zeros(3, dtype=ag.int64)
    with pytest.raises(TypeError, match="add_.*can't be cast.*int64"):
        x.add_(1.5)
    y = ag.zeros(3)
    with pytest.raises(RuntimeError, match=r"add_: output with shape \[3\] doesn't match the "
                                           r"broadcast shape \[2, 3\]"):
        y.add_(ag.ones(2, 3))
    y.fill_(2.5)                              # an assignment converts, as PyTorch
    assert y.dtype == np.float32 and y.tolist() == [2.5, 2.5, 2.5]
    z = ag.zeros(3, dtype=ag.int64)
    z.fill_(1.7)
    assert z.tolist() == [1, 1, 1]


def test_writing_into_a_broadcast_view_says_clone():
    x = ag.zeros(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="more than one element.*clone"):
        x.add_(1)


@pytest.mark.parametrize("method, args", [
    ("normal_", (0.0, 0.01)), ("uniform_", (-1.0, 1.0)), ("fill_", (3.0,)), ("zero_", ()),
    ("add_", (2.0,)), ("sub_", (2.0,)), ("mul_", (2.0,)), ("div_", (2.0,)),
    ("copy_", (np.arange(6.0).reshape(2, 3),)), ("clamp_", (-0.5, 0.5)), ("pow_", (2,)),
    ("neg_", ()), ("abs_", ()), ("exp_", ()), ("relu_", ()), ("sigmoid_", ()), ("tanh_", ()),
])
def test_in_place_methods_match_pytorch_and_return_self(method, args):
    values = np.linspace(-1, 1, 6).reshape(2, 3)
    d, t = ag.tensor(values), torch.tensor(values)
    torch.manual_seed(0)
    ag.manual_seed(0)
    torch_args = tuple(torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args)
    assert getattr(d, method)(*args) is d
    getattr(t, method)(*torch_args)
    if method in ("normal_", "uniform_"):     # same distribution, other generator
        assert d.numpy().std() > 0 and not np.allclose(d.numpy(), values)
    else:
        np.testing.assert_allclose(d.numpy(), t.numpy(), rtol=1e-6, atol=1e-7)
