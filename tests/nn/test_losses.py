"""Every loss with every reduction: float64 gradcheck and parity with PyTorch (values and
gradients for the prediction, and for float targets), plus numerical stability."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import torch_or_skip, torch_parity

R = np.random.default_rng(0)
X = R.standard_normal((4, 3))
Y = R.standard_normal((4, 3))
PROB = R.uniform(0.05, 0.95, (4, 3))
BIN = (R.uniform(size=(4, 3)) > 0.5).astype(np.float64)
LOGITS3 = R.standard_normal((3, 4, 2))
CLASSES = np.array([2, 0, 1, 2])
CLASSES_IGNORED = np.array([2, -100, 1, 0])
CLASSES3 = np.array([[0, 3], [1, 2], [3, 3]])
CLASS_WEIGHT = np.array([0.5, 2.0, 1.5])
SOFT = np.exp(Y) / np.exp(Y).sum(1, keepdims=True)
LOGP = X - np.log(np.exp(X).sum(1, keepdims=True))
VAR = R.uniform(0.2, 2.0, (4, 3))


def _tt(torch, a):
    """A constant torch tensor (float64, or int64 for index arrays)."""
    return torch.tensor(a)


# (name, our loss (module instance), torch loss factory, float arrays (differentiable), constant
#  arrays passed after them). Both are called as loss(*floats, *constants).
def cases(reduction):
    r = reduction
    return [
        ("MSELoss", nn.MSELoss(reduction=r), lambda t: t.nn.MSELoss(reduction=r), [X, Y], []),
        ("L1Loss", nn.L1Loss(reduction=r), lambda t: t.nn.L1Loss(reduction=r), [X, Y], []),
        ("HuberLoss", nn.HuberLoss(reduction=r, delta=0.7),
         lambda t: t.nn.HuberLoss(reduction=r, delta=0.7), [X, Y], []),
        ("SmoothL1Loss", nn.SmoothL1Loss(reduction=r, beta=0.6),
         lambda t: t.nn.SmoothL1Loss(reduction=r, beta=0.6), [X, Y], []),
        ("CrossEntropyLoss", nn.CrossEntropyLoss(reduction=r),
         lambda t: t.nn.CrossEntropyLoss(reduction=r), [X], [CLASSES]),
        ("CrossEntropyLoss-weight-ignore", nn.CrossEntropyLoss(CLASS_WEIGHT, reduction=r),
         lambda t: t.nn.CrossEntropyLoss(t.tensor(CLASS_WEIGHT), reduction=r), [X],
         [CLASSES_IGNORED]),
        # every target a class, none ignored: the loss skips the mask of kept targets
        ("CrossEntropyLoss-weight", nn.CrossEntropyLoss(CLASS_WEIGHT, reduction=r),
         lambda t: t.nn.CrossEntropyLoss(t.tensor(CLASS_WEIGHT), reduction=r), [X], [CLASSES]),
        ("CrossEntropyLoss-smoothing-none-ignored",
         nn.CrossEntropyLoss(reduction=r, label_smoothing=0.2),
         lambda t: t.nn.CrossEntropyLoss(reduction=r, label_smoothing=0.2), [X], [CLASSES]),
        ("CrossEntropyLoss-smoothing", nn.CrossEntropyLoss(reduction=r, label_smoothing=0.2),
         lambda t: t.nn.CrossEntropyLoss(reduction=r, label_smoothing=0.2), [X],
         [CLASSES_IGNORED]),
        ("CrossEntropyLoss-weight-smoothing",
         nn.CrossEntropyLoss(CLASS_WEIGHT, ignore_index=1, reduction=r, label_smoothing=0.3),
         lambda t: t.nn.CrossEntropyLoss(t.tensor(CLASS_WEIGHT), ignore_index=1, reduction=r,
                                         label_smoothing=0.3), [X], [CLASSES]),
        ("CrossEntropyLoss-spatial", nn.CrossEntropyLoss(reduction=r),
         lambda t: t.nn.CrossEntropyLoss(reduction=r), [LOGITS3], [CLASSES3]),
        ("CrossEntropyLoss-unbatched", nn.CrossEntropyLoss(reduction=r),
         lambda t: t.nn.CrossEntropyLoss(reduction=r), [X[0]], [np.array(1)]),
        ("CrossEntropyLoss-probabilities",
         nn.CrossEntropyLoss(CLASS_WEIGHT, reduction=r, label_smoothing=0.1),
         lambda t: t.nn.CrossEntropyLoss(t.tensor(CLASS_WEIGHT), reduction=r,
                                         label_smoothing=0.1), [X, SOFT], []),
        ("NLLLoss", nn.NLLLoss(reduction=r), lambda t: t.nn.NLLLoss(reduction=r), [LOGP],
         [CLASSES]),
        ("NLLLoss-weight-ignore", nn.NLLLoss(CLASS_WEIGHT, ignore_index=0, reduction=r),
         lambda t: t.nn.NLLLoss(t.tensor(CLASS_WEIGHT), ignore_index=0, reduction=r), [LOGP],
         [CLASSES]),
        ("NLLLoss-spatial", nn.NLLLoss(reduction=r), lambda t: t.nn.NLLLoss(reduction=r),
         [LOGITS3], [CLASSES3]),
        # hard 0/1 labels are constants: a central difference would step them outside [0, 1],
        # which BCELoss refuses (as PyTorch); BCELoss-weight differentiates soft labels
        ("BCELoss", nn.BCELoss(reduction=r), lambda t: t.nn.BCELoss(reduction=r), [PROB],
         [BIN]),
        ("BCELoss-weight", nn.BCELoss(CLASS_WEIGHT, reduction=r),
         lambda t: t.nn.BCELoss(t.tensor(CLASS_WEIGHT), reduction=r), [PROB, PROB[::-1]], []),
        ("BCEWithLogitsLoss", nn.BCEWithLogitsLoss(reduction=r),
         lambda t: t.nn.BCEWithLogitsLoss(reduction=r), [X, PROB], []),
        ("BCEWithLogitsLoss-pos_weight",
         nn.BCEWithLogitsLoss(CLASS_WEIGHT[::-1].copy(), reduction=r, pos_weight=CLASS_WEIGHT),
         lambda t: t.nn.BCEWithLogitsLoss(t.tensor(CLASS_WEIGHT[::-1].copy()), reduction=r,
                                          pos_weight=t.tensor(CLASS_WEIGHT)), [X, BIN], []),
        ("KLDivLoss", nn.KLDivLoss(reduction=r), lambda t: t.nn.KLDivLoss(reduction=r),
         [LOGP, SOFT], []),
        ("KLDivLoss-log_target", nn.KLDivLoss(reduction=r, log_target=True),
         lambda t: t.nn.KLDivLoss(reduction=r, log_target=True), [LOGP, np.log(SOFT)], []),
        ("GaussianNLLLoss", nn.GaussianNLLLoss(reduction=r),
         lambda t: t.nn.GaussianNLLLoss(reduction=r), [X, Y, VAR], []),
        ("GaussianNLLLoss-full-shared", nn.GaussianNLLLoss(full=True, reduction=r),
         lambda t: t.nn.GaussianNLLLoss(full=True, reduction=r), [X, Y, VAR[:, :1]], []),
        ("GaussianNLLLoss-one-less-dim", nn.GaussianNLLLoss(reduction=r),
         lambda t: t.nn.GaussianNLLLoss(reduction=r), [X, Y, VAR[:, 0]], []),
    ]


REDUCTIONS = ["mean", "sum", "none"]
ALL = [pytest.param(r, k, id=f"{cases(r)[k][0]}-{r}")
       for r in REDUCTIONS for k in range(len(cases(r)))]
ALL += [pytest.param("batchmean", k, id=f"{cases('mean')[k][0]}-batchmean")
        for k in range(len(cases("mean"))) if cases("mean")[k][0].startswith("KLDiv")]


def _case(reduction, k):
    if reduction == "batchmean":
        name, ours, _, floats, consts = cases("mean")[k]
        return (name, nn.KLDivLoss(reduction="batchmean", log_target=ours.log_target),
                lambda t: t.nn.KLDivLoss(reduction="batchmean", log_target=ours.log_target),
                floats, consts)
    return cases(reduction)[k]


@pytest.mark.parametrize("reduction,k", ALL)
def test_gradcheck(reduction, k):
    name, ours, _, floats, consts = _case(reduction, k)
    ours.double()
    xs = [ag.tensor(a, requires_grad=True) for a in floats]
    assert ag.gradcheck(lambda *t: ours(*t, *consts), xs)


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("reduction,k", ALL)
def test_matches_pytorch(reduction, k):
    torch = torch_or_skip()
    name, ours, theirs, floats, consts = _case(reduction, k)
    ours.double()
    reference = theirs(torch)
    torch_consts = [_tt(torch, c) for c in consts]
    torch_parity(lambda *t: ours(*t, *consts), lambda *t: reference(*t, *torch_consts), floats)


def test_reduction_is_checked():
    with pytest.raises(ValueError, match="reduction"):
        nn.MSELoss(reduction="avg")
    with pytest.raises(ValueError, match="reduction"):
        nn.functional.cross_entropy(ag.randn(2, 3), ag.tensor(np.array([0, 1])),
                                    reduction="batchmean")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_logit_losses_are_stable_for_huge_logits(dtype):
    torch = torch_or_skip()
    logits = np.array([[1e4, -1e4, 0.0], [-1e4, 1e4, 5.0]], dtype=dtype)
    target = np.array([1, 1])
    x = ag.tensor(logits, requires_grad=True)
    loss = nn.CrossEntropyLoss()(x, ag.tensor(target))
    loss.backward()
    t = torch.tensor(logits, requires_grad=True)
    tl = torch.nn.CrossEntropyLoss()(t, torch.tensor(target))
    tl.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(loss.item(), tl.item(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-6)

    y = np.array([[1.0, 0.0, 1.0], [1.0, 0.0, 0.0]], dtype=dtype)
    x = ag.tensor(logits, requires_grad=True)
    loss = nn.BCEWithLogitsLoss(pos_weight=np.array([2.0, 1.0, 3.0], dtype))(x, ag.tensor(y))
    loss.backward()
    t = torch.tensor(logits, requires_grad=True)
    tl = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor([2.0, 1.0, 3.0], dtype=t.dtype))(
        t, torch.tensor(y))
    tl.backward()
    assert np.isfinite(loss.item()) and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(loss.item(), tl.item(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), atol=1e-6)


def test_kl_div_treats_zero_targets_as_zero_contribution():
    torch = torch_or_skip()
    target = SOFT * (SOFT > 0.2)
    x = ag.tensor(LOGP, requires_grad=True)
    loss = nn.KLDivLoss(reduction="batchmean")(x, target)
    loss.backward()
    t = torch.tensor(LOGP, requires_grad=True)
    tl = torch.nn.KLDivLoss(reduction="batchmean")(t, torch.tensor(target))
    tl.backward()
    np.testing.assert_allclose(loss.item(), tl.item(), rtol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-12)


HUGE = np.array([[1e4, -1e4, 0.0, 3.0], [-1e4, 1e4, 5.0, -1e4], [1e4, 1e4, -1e4, -2.0]])
HUGE_CLASSES = np.array([1, 0, 2])
HUGE_PROB = np.full((3, 4), 0.25)
HUGE_WEIGHT = np.array([1.0, 2.0, 0.5, 3.0])


# (name, ours(F, x, dtype), theirs(torch F, x, torch)): losses of logits x = HUGE
HUGE_CASES = [
    ("cross_entropy", lambda F, x, dt, r: F.cross_entropy(x, HUGE_CLASSES, reduction=r),
     lambda F, x, t, r: F.cross_entropy(x, t.tensor(HUGE_CLASSES), reduction=r)),
    ("cross_entropy-weight-ignore-smoothing",
     lambda F, x, dt, r: F.cross_entropy(x, np.array([1, -100, 3]), HUGE_WEIGHT.astype(dt),
                                         reduction=r, label_smoothing=0.1),
     lambda F, x, t, r: F.cross_entropy(x, t.tensor([1, -100, 3]),
                                        t.tensor(HUGE_WEIGHT, dtype=x.dtype), reduction=r,
                                        label_smoothing=0.1)),
    ("cross_entropy-probabilities",
     lambda F, x, dt, r: F.cross_entropy(x, HUGE_PROB.astype(dt), reduction=r,
                                         label_smoothing=0.2),
     lambda F, x, t, r: F.cross_entropy(x, t.tensor(HUGE_PROB, dtype=x.dtype), reduction=r,
                                        label_smoothing=0.2)),
    ("nll_loss-of-log_softmax",
     lambda F, x, dt, r: F.nll_loss(F.log_softmax(x, 1), HUGE_CLASSES, reduction=r),
     lambda F, x, t, r: F.nll_loss(F.log_softmax(x, 1), t.tensor(HUGE_CLASSES), reduction=r)),
    ("binary_cross_entropy_with_logits",
     lambda F, x, dt, r: F.binary_cross_entropy_with_logits(
         x, np.eye(3, 4, dtype=dt), HUGE_WEIGHT.astype(dt), reduction=r,
         pos_weight=HUGE_WEIGHT[::-1].astype(dt)),
     lambda F, x, t, r: F.binary_cross_entropy_with_logits(
         x, t.eye(3, 4, dtype=x.dtype), t.tensor(HUGE_WEIGHT, dtype=x.dtype), reduction=r,
         pos_weight=t.tensor(HUGE_WEIGHT[::-1].copy(), dtype=x.dtype))),
    ("binary_cross_entropy-of-sigmoid",
     lambda F, x, dt, r: F.binary_cross_entropy(F.sigmoid(x), np.eye(3, 4, dtype=dt),
                                                reduction=r),
     lambda F, x, t, r: F.binary_cross_entropy(t.sigmoid(x), t.eye(3, 4, dtype=x.dtype),
                                               reduction=r)),
    ("kl_div-of-log_softmax",
     lambda F, x, dt, r: F.kl_div(F.log_softmax(x, 1), HUGE_PROB.astype(dt), reduction=r),
     lambda F, x, t, r: F.kl_div(F.log_softmax(x, 1), t.tensor(HUGE_PROB, dtype=x.dtype),
                                 reduction=r)),
    ("kl_div-log_target",
     lambda F, x, dt, r: F.kl_div(F.log_softmax(x, 1), F.log_softmax(x[::-1], 1),
                                  reduction=r, log_target=True),
     lambda F, x, t, r: F.kl_div(F.log_softmax(x, 1), F.log_softmax(x.flip(0), 1),
                                 reduction=r, log_target=True)),
]


@pytest.mark.filterwarnings("ignore:reduction. 'mean' divides the total loss")
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name,ours,theirs", HUGE_CASES, ids=[c[0] for c in HUGE_CASES])
def test_losses_of_logits_of_1e4_are_finite_and_match_pytorch(name, ours, theirs, reduction,
                                                              dtype):
    torch = torch_or_skip()
    x = ag.tensor(HUGE.astype(dtype), requires_grad=True)
    with np.errstate(over="raise", invalid="raise"):    # no overflow, not even an intermediate
        loss = ours(nn.functional, x, dtype, reduction)
        w = np.random.default_rng(0).uniform(0.5, 2.0, loss.shape).astype(dtype)
        (loss * ag.tensor(w)).sum().backward()
    t = torch.tensor(HUGE.astype(dtype), requires_grad=True)
    tl = theirs(torch.nn.functional, t, torch, reduction)
    (tl * torch.tensor(w)).sum().backward()
    assert loss.dtype == dtype and x.grad.dtype == dtype
    assert np.isfinite(loss.numpy()).all() and np.isfinite(x.grad.numpy()).all()
    tol = 1e-6 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(loss.numpy(), tl.detach().numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=["float32", "float64"])
def test_bce_clamps_its_logs_at_minus_100_like_pytorch(dtype):
    torch = torch_or_skip()
    p = np.array([0.0, 1.0, 0.5, 1.0, 0.0, 1e-30], dtype=dtype)
    y = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0], dtype=dtype)
    x = ag.tensor(p, requires_grad=True)
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        loss = nn.BCELoss(reduction="none")(x, ag.tensor(y))
        loss.sum().backward()
    t = torch.tensor(p, requires_grad=True)
    expected = torch.nn.BCELoss(reduction="none")(t, torch.tensor(y))
    expected.sum().backward()
    np.testing.assert_allclose(loss.numpy(), expected.detach().numpy(), rtol=1e-6)
    assert loss.numpy()[0] == loss.numpy()[1] == 100            # log 0 clamped at -100
    assert np.isfinite(x.grad.numpy()).all()                  # never NaN
    # PyTorch's gradient (x - y) / max(x(1 - x), 1e-12): large where a saturated prediction
    # is wrong (so it can leave), 0 where it is right
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), [-1e12, 1e12, -2.0, 0.0, 0.0, -1e12], rtol=1e-6)
    with pytest.raises(ValueError, match="probability"):
        nn.BCELoss()(ag.tensor([1.5]), ag.tensor([1.0]))


def test_cross_entropy_checks_targets():
    logits = ag.randn(3, 4)
    with pytest.raises(IndexError, match="out of bounds for 4 classes"):
        nn.CrossEntropyLoss()(logits, ag.tensor(np.array([0, 4, 1])))
    with pytest.raises(IndexError, match="out of bounds"):
        nn.CrossEntropyLoss()(logits, ag.tensor(np.array([0, -2, 1])))
    with pytest.raises(ValueError, match="shape"):
        nn.CrossEntropyLoss()(logits, ag.tensor(np.array([0, 1])))
    with pytest.raises(ValueError, match="label_smoothing"):
        nn.functional.cross_entropy(logits, ag.tensor(np.array([0, 1, 2])),
                                    label_smoothing=1.5)


def test_mse_refuses_a_shape_mismatch_that_would_broadcast():
    with pytest.raises(ValueError, match="reshape"):
        nn.MSELoss()(ag.randn(5, 1), ag.randn(5))
    assert nn.MSELoss()(ag.randn(5, 3), ag.randn(3)).shape == ()   # true broadcasting is fine


def test_losses_keep_float32():
    x, y = ag.randn(4, 3), ag.rand(4, 3)
    idx = ag.tensor(np.array([0, 1, 2, 0]))
    for loss in [nn.MSELoss()(x, y), nn.L1Loss()(x, y), nn.HuberLoss()(x, y),
                 nn.CrossEntropyLoss(label_smoothing=0.1)(x, idx), nn.NLLLoss()(x, idx),
                 nn.BCEWithLogitsLoss()(x, y), nn.BCELoss()(y, y),
                 nn.GaussianNLLLoss(full=True)(x, y, y + 1), nn.KLDivLoss()(x, y)]:
        assert loss.dtype == np.float32


def test_cross_entropy_second_derivative_matches_pytorch():
    torch = torch_or_skip()

    def ours(x):
        loss = nn.functional.cross_entropy(x, CLASSES_IGNORED, label_smoothing=0.1)
        g, = ag.grad(loss, [x], create_graph=True)
        return (g * g).sum()

    def theirs(x):
        loss = torch.nn.functional.cross_entropy(x, torch.tensor(CLASSES_IGNORED),
                                                 label_smoothing=0.1)
        g, = torch.autograd.grad(loss, [x], create_graph=True)
        return (g * g).sum()

    torch_parity(ours, theirs, [X])
