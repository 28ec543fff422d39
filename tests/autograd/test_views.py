"""Views as PyTorch has them: basic indexing (integers included), slicing, view/reshape,
transpose/permute/t, expand, squeeze/unsqueeze, unbind, narrow and diagonal share memory with
their base; flip and advanced indexing copy. After an in-place change of the base or of another
view, a view's history is regenerated, so values and gradients both follow PyTorch. A
differential test runs random chains of views, in-place changes and reductions on both
libraries."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dagrad import torch as dt
from tests.complexity import assert_linear
from tests.helpers import torch_or_skip

X = [1.0, -2.0, 3.0, 4.0]


def _both(program):
    """``program(lib, x)`` on PyTorch and on dagrad with x = X (float64, requires grad): the
    returned value and x.grad of each."""
    torch = torch_or_skip()
    results = []
    for lib in (torch, dt):
        x = lib.tensor(X, dtype=lib.float64, requires_grad=True)
        out = program(lib, x)
        results.append((np.asarray(out.detach().numpy() if hasattr(out, "detach") else out),
                        None if x.grad is None else x.grad.numpy().copy()))
    return results


@pytest.mark.parametrize("program", [
    # the issue's case: a view taken before its base changes in place
    lambda m, x: _backward((lambda y: (y[:2], y.mul_(2))[0])(x * 1.0), lambda v: v * v),
    # a view of a view, the middle one changed
    lambda m, x: _backward((lambda y: (lambda v: (v[1:], v.mul_(x[1:]))[0])(y[1:]))(x * 1.0),
                           lambda u: u * u),
    # a sibling view changed: the other view follows
    lambda m, x: _backward((lambda y: (y.view(2, 2).t(), y[2:].mul_(3))[0])(x * 1.0),
                           lambda v: v * v),
    # an integer index is a 0-d view: changing it changes the base
    lambda m, x: _backward((lambda y: (y, y[1].mul_(5))[0])(x * 2.0), lambda y: y * y),
    # narrow is a view too
    lambda m, x: _backward((lambda y: (y, y.narrow(0, 2, 2).add_(x[:2]))[0])(x * 1.0),
                           lambda y: y * y),
    # diagonal is a view: changing it changes the base, and it follows the base's changes
    lambda m, x: _backward((lambda y: (y, y.view(2, 2).diagonal().mul_(x[:2]))[0])(x * 1.0),
                           lambda y: y * y),
    lambda m, x: _backward((lambda y: (y.view(2, 2).diagonal(-1), y.mul_(x))[0])(x * 1.0),
                           lambda v: v * v),
], ids=["base-changed", "middle-view-changed", "sibling-changed", "int-index", "narrow",
        "diagonal-changed", "diagonal-base-changed"])
def test_views_follow_in_place_changes_as_in_pytorch(program):
    (ours_value, ours_grad), (theirs_value, theirs_grad) = _both(program)[::-1]
    np.testing.assert_allclose(ours_value, theirs_value)
    np.testing.assert_allclose(ours_grad, theirs_grad)


def _backward(view, f):
    out = f(view)
    out.sum().backward()
    return out


def test_unbinds_views_cannot_follow_an_in_place_change_in_either_library():
    torch = torch_or_skip()
    for lib in (torch, dt):
        x = lib.tensor(X, requires_grad=True)
        y = x * 1.0
        row = y.view(2, 2).unbind(0)[1]
        y.mul_(2)
        with pytest.raises(RuntimeError, match="returns multiple views"):
            (row * row).sum().backward()
        assert row.tolist() == [6.0, 8.0]


def test_the_issues_numbers():
    x = dt.tensor(X, requires_grad=True)
    y = x * 1.0
    v = y[:2]
    y.mul_(2)
    (v * v).sum().backward()
    assert x.grad.tolist() == [8.0, -16.0, 0.0, 0.0]


def test_diagonal_is_a_view_sharing_memory_and_the_version_counter():
    torch = torch_or_skip()
    seen = []
    for lib in (torch, dt):
        y = lib.arange(12.0).reshape(3, 4) * 1
        d = y.diagonal(1)
        d.mul_(10)
        versions = [y._version, d._version]
        y.fill_diagonal_(-1.0)            # in place, one more version for y and its views
        versions += [y._version, d._version]
        embedded = lib.diag_embed(d, -1)
        seen.append((y.tolist(), d.tolist(), versions, embedded.tolist(), d._base is y))
    assert seen[0] == seen[1]
    assert seen[1][1] == [10.0, 60.0, 110.0] and seen[1][4]


def test_diagonal_errors_follow_pytorch():
    torch = torch_or_skip()
    for lib in (torch, dt):
        with pytest.raises(IndexError, match="(?i)dimension out of range"):
            lib.ones(3).diagonal()
        with pytest.raises(RuntimeError, match="diagonal dimensions cannot be identical 1, 1"):
            lib.ones(3, 3).diagonal(0, 1, 1)
        with pytest.raises(RuntimeError, match="equal length"):
            lib.zeros(3, 4, 3).fill_diagonal_(1.0)
        w = lib.ones(3, 3, requires_grad=True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            w.diagonal().mul_(2)
        assert lib.diagonal(lib.ones(2, 3), 5).shape == (0,)


def test_flip_and_advanced_indexing_copy():
    torch = torch_or_skip()
    for lib in (torch, dt):
        y = lib.arange(4.0) * 1
        y.flip(0).mul_(0)
        y[lib.tensor([0, 1])].mul_(0)
        assert y.tolist() == [0.0, 1.0, 2.0, 3.0]
        assert y.flip(0)._base is None and y[1:]._base is y and y[1]._base is y


def test_views_under_no_grad_of_a_tensor_that_requires_grad_require_grad():
    torch = torch_or_skip()
    for lib in (torch, dt):
        w = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            views = [w[:2], w.view(3, 1), w.unsqueeze(0), w.t(), w[0]]
            product = w * 2
        assert all(v.requires_grad and v.grad_fn is None for v in views)
        assert not product.requires_grad
        assert repr(views[0]).endswith("requires_grad=True)")


def test_a_view_made_under_no_grad_collects_no_gradient():
    """PyTorch: the view requires grad, yet backward through it fills no .grad (neither the
    view's nor its base's) and autograd.grad finds it unused."""
    torch = torch_or_skip()
    for lib in (torch, dt):
        w = lib.ones(3, requires_grad=True)
        with lib.no_grad():
            v = w[:2]
        x = lib.ones(2, requires_grad=True)
        ((v * 2).sum() + (x * 3).sum()).backward()
        assert v.grad is None and w.grad is None, lib.__name__
        assert x.grad.tolist() == [3.0, 3.0]
        (unused,) = lib.autograd.grad((v * 2).sum(), v, allow_unused=True)
        assert unused is None, lib.__name__


def _no_grad_view(lib, base, take=lambda t: t[:3]):
    with lib.no_grad():
        return take(base)


def _leaf_and_y(lib):
    w = lib.ones(4, requires_grad=True)
    return w, w * 1


NO_GRAD_VIEW_CHANGED = [      # (name, program): a view made under no_grad changed in place
    ("of-a-leaf", lambda lib: _no_grad_view(lib, _leaf_and_y(lib)[0]).mul_(2)),
    ("of-a-non-leaf", lambda lib: _no_grad_view(lib, _leaf_and_y(lib)[1]).mul_(2)),
    ("zero_", lambda lib: _no_grad_view(lib, _leaf_and_y(lib)[1]).zero_()),
    ("setitem", lambda lib: _no_grad_view(lib, _leaf_and_y(lib)[1]).__setitem__(0, 5.0)),
    ("a-view-of-it", lambda lib: _no_grad_view(lib, _leaf_and_y(lib)[1])[:2].mul_(2)),
    ("base-without-grad-by-a-tensor-with-grad",
     lambda lib: _no_grad_view(lib, lib.ones(4)).mul_(lib.ones(3, requires_grad=True))),
]


@pytest.mark.parametrize("program", [p for _, p in NO_GRAD_VIEW_CHANGED],
                         ids=[n for n, _ in NO_GRAD_VIEW_CHANGED])
def test_a_view_made_under_no_grad_cannot_change_in_place_with_grad_mode_on(program):
    torch = torch_or_skip()
    for lib in (torch, dt):
        with pytest.raises(RuntimeError, match="view (was|of a view which was) created in "
                                               "no_grad mode and is being modified inplace "
                                               "with grad mode enabled"):
            program(lib)


def test_a_view_made_under_no_grad_changes_where_nothing_is_recorded():
    torch = torch_or_skip()
    seen = []
    for lib in (torch, dt):
        b = lib.ones(4)                           # nothing requires grad: allowed
        _no_grad_view(lib, b).mul_(2)
        w, y = _leaf_and_y(lib)                   # both the view and the change under no_grad
        with lib.no_grad():
            y[:2].mul_(3)
        view = _no_grad_view(lib, w)
        seen.append((b.tolist(), y.tolist(), view.requires_grad, view.grad_fn is None))
    assert seen[0] == seen[1] == ([2.0, 2.0, 2.0, 1.0], [3.0, 3.0, 1.0, 1.0], True, True)


def _changed_after(lib, change):
    """A no_grad view of y = w * 1, then ``change(lib, w, y)``; the view."""
    w, y = _leaf_and_y(lib)
    view = _no_grad_view(lib, y)
    change(lib, w, y)
    return view


@pytest.mark.parametrize("change", [
    lambda lib, w, y: y.mul_(2),                          # the base, recorded
    lambda lib, w, y: y[2:].add_(w[:2]),                  # another view, recorded
    lambda lib, w, y: _under_no_grad(lib, lambda: y.mul_(2)),
], ids=["base", "other-view", "base-under-no-grad"])
def test_a_view_made_under_no_grad_is_stale_after_its_base_changes(change):
    """PyTorch raises when such a view is next used with grad mode on; dagrad at its backward."""
    torch = torch_or_skip()
    for lib in (torch, dt):
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode and its "
                                               "base or another view of its base has been "
                                               "modified inplace"):
            view = _changed_after(lib, change)
            (view * view).sum().backward()


def _under_no_grad(lib, change):
    with lib.no_grad():
        change()


def test_a_no_grad_view_of_a_weight_is_stale_after_an_optimizer_step():
    torch = torch_or_skip()
    for lib in (torch, dt):
        w = lib.ones(4, requires_grad=True)
        view = _no_grad_view(lib, w)
        w.grad = lib.ones(4)
        lib.optim.SGD([w], lr=0.5).step()
        assert view.tolist() == [0.5, 0.5, 0.5]
        with pytest.raises(RuntimeError, match="A view was created in no_grad mode"):
            (view * view).sum().backward()


def test_unbinds_views_are_stale_after_a_change_outside_the_graph_too():
    torch = torch_or_skip()
    for lib in (torch, dt):
        y = lib.ones(4, requires_grad=True) * 1
        row = y.view(2, 2).unbind(0)[0]
        with lib.no_grad():
            y.mul_(2)
        with pytest.raises(RuntimeError, match="(?i)output.*unbind.*is a view and its base"):
            (row * row).sum().backward()


def test_view_of_an_incompatible_layout_raises_pytorchs_error():
    torch = torch_or_skip()
    for lib in (torch, dt):
        x = lib.arange(6.0).reshape(2, 3)
        with pytest.raises(RuntimeError, match="view size is not compatible with input "
                                               "tensor's size and stride"):
            x.t().view(6)
        with pytest.raises(RuntimeError, match="view size is not compatible"):
            x.unsqueeze(0).expand(2, 2, 3).view(12)
        assert x.t().reshape(6).tolist() == x.t().contiguous().view(6).tolist() == [
            0.0, 3.0, 1.0, 4.0, 2.0, 5.0]
        assert x.t().view(3, 2).shape == (3, 2) and x.view(6)._base is x._base


# ---- the differential test: random chains on both libraries
VIEWS = ["slice", "int", "t", "view", "unsqueeze", "narrow", "unbind", "reshape", "diagonal",
         "no_grad_slice"]
CHANGES = ["mul_", "add_", "add_x", "neg_", "fill_diagonal_", "div_", "pow_"]
# new tensors computed from an earlier one with a constant: a product, a quotient and powers
# save only what their backward reads, so a later in-place change of their input is harmless
# to them, except to the power (whose backward reads its base), as in PyTorch
DERIVED = ["times", "times_left", "over", "squared", "cubed_int"]


def _view(lib, t, kind):
    if kind == "slice":
        return t[1:]
    if kind == "int":
        return t[0]
    if kind == "t":
        return t.t() if t.ndim <= 2 else t.transpose(0, 1)
    if kind == "view":
        return t.view(-1)
    if kind == "unsqueeze":
        return t.unsqueeze(0)
    if kind == "narrow":
        return t.narrow(0, 0, 1)
    if kind == "unbind":
        return t.unbind(0)[-1]
    if kind == "no_grad_slice":   # changing it, or its base afterwards, raises in both
        with lib.no_grad():
            return t[1:]
    if kind == "diagonal":      # a 1-D tensor has no diagonal: take the one of its (1, n) view
        return t.diagonal(1, -2, -1) if t.ndim >= 2 else t.unsqueeze(0).diagonal()
    return t.reshape(-1)


def _derived(t, kind):
    if kind == "times":
        return t * 2.5
    if kind == "times_left":
        return -0.5 * t
    if kind == "over":
        return t / 4.0
    if kind == "squared":
        return t ** 2.0
    return t ** 3


def _change(lib, t, kind, x):
    if kind == "mul_":
        return t.mul_(1.5)
    if kind == "div_":
        return t.div_(-2.0)
    if kind == "pow_":
        return t.pow_(2.0)
    if kind == "add_":
        return t.add_(0.25)
    if kind == "neg_":
        return t.neg_()
    if kind == "fill_diagonal_":
        return t.fill_diagonal_(-0.5) if t.ndim == 2 else t.mul_(-1.0)
    return t.add_(x.sum() * 0.5)


def _run(lib, steps):
    """The chain ``steps`` on ``lib``: values of every tensor, x.grad, or the error's type."""
    x = lib.tensor(np.arange(1.0, 13.0).reshape(3, 4) / 7, dtype=lib.float64,
                   requires_grad=True)
    tensors = [x * 1.0]
    try:
        for what, kind, which in steps:
            target = tensors[which % len(tensors)]
            if what == "view":
                tensors.append(_view(lib, target, kind))
            elif what == "derive":
                tensors.append(_derived(target, kind))
            else:
                _change(lib, target, kind, x)
        total = sum(((t * t).sum() if t.ndim else t * t) for t in tensors)
        total.backward()
    except (RuntimeError, IndexError, ValueError) as e:
        return type(e).__name__
    return [t.detach().numpy().copy() for t in tensors], x.grad.numpy().copy()


STEP = st.tuples(st.sampled_from(["view", "change", "derive"]),
                 st.sampled_from(VIEWS + CHANGES + DERIVED), st.integers(0, 20))
KINDS = {"view": VIEWS, "change": CHANGES, "derive": DERIVED}


@settings(max_examples=150, deadline=None, derandomize=True)
@given(st.lists(STEP, min_size=1, max_size=7))
def test_random_chains_of_views_and_in_place_changes_match_pytorch(steps):
    torch = torch_or_skip()
    steps = [(what, kind if kind in KINDS[what] else KINDS[what][len(kind) % 4], which)
             for what, kind, which in steps]
    theirs, ours = _run(torch, steps), _run(dt, steps)
    if isinstance(theirs, str) or isinstance(ours, str):
        assert isinstance(theirs, str) and isinstance(ours, str), (steps, theirs, ours)
        return
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=str(steps))
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-12, err_msg=str(steps))


def test_a_base_and_its_views_share_one_version_counter():
    torch = torch_or_skip()
    seen = []
    for lib in (torch, dt):
        y = lib.ones(4) * 1
        v = y[:2]
        versions = [(y._version, v._version)]
        y.mul_(2)
        versions.append((y._version, v._version))
        v.add_(1)
        later = y[1:]
        versions.append((y._version, v._version, later._version))
        v[0].mul_(3)
        versions.append((y._version, v._version, later._version))
        seen.append(versions)
    assert seen[0] == seen[1]


# ---- cost linear in the views: none of these paths may grow faster than the work
def _many_live_views(n):
    X = dt.zeros(n, 3, requires_grad=True) * 1
    y = dt.zeros(n)

    def work():
        rows, unbound, pairs = list(X), X.unbind(), list(zip(X, y))
        assert len(rows) == len(unbound) == len(pairs) == n
    return work


@pytest.mark.slow
def test_taking_many_live_views_of_one_tensor_grows_linearly():
    """``list(X)``, ``X.unbind()``, ``list(zip(X, y))``: taking a view costs the same however
    many are alive (the base once rebuilt its list of views every 64: k 1.5-1.6)."""
    assert_linear(_many_live_views, 3_000, "n live views of one tensor")


def _writes_while_views_live(n):
    x = dt.ones(4, requires_grad=True)

    def work():
        y = x * 1
        views = [y[1:3] for _ in range(n)]
        for _ in range(n):
            y.mul_(1.0)                         # n writes, each with n views alive
        sum(v.sum() for v in views).backward()  # then each view used: regenerated once
        assert x.grad.tolist() == [0.0, n, n, 0.0]
        x.grad = None
    return work


@pytest.mark.slow
def test_in_place_writes_while_many_views_live_grow_linearly():
    """A write does nothing per live view: a view is regenerated when next used, as in
    PyTorch (every write once replayed every live view's operation: k 2.1)."""
    assert_linear(_writes_while_views_live, 1_000, "n writes with n live views")
