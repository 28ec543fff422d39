"""Bad input gets a clear error naming the operation, the shapes or dtypes, and the fix."""
import numpy as np
import pytest

from dagrad import autograd as ag


def test_mismatched_shapes_name_both_shapes_and_the_operation():
    a, b = ag.ones(3, 4), ag.ones(5)
    with pytest.raises(ValueError, match=r"Add.*\(3, 4\).*\(5,\)"):
        a + b
    with pytest.raises(ValueError, match=r"matmul.*\(3, 4\).*\(5,\)"):
        a @ b
    with pytest.raises(ValueError, match=r"cat.*\[\(3, 4\), \(2, 5\)\]"):
        ag.cat([a, ag.ones(2, 5)])
    with pytest.raises(RuntimeError, match=r"reshape: shape '\[5, 5\]' is invalid.*\(3, 4\)"):
        a.reshape(5, 5)
    with pytest.raises(ValueError, match=r"linear.*\(3, 4\).*\(2, 3\)"):
        ag.linear(a, ag.ones(2, 3))


def test_requires_grad_on_integer_tensor_is_refused():
    with pytest.raises(TypeError, match="int64.*floating-point.*float()"):
        ag.tensor([1, 2, 3], requires_grad=True)
    with pytest.raises(TypeError, match="floating-point"):
        ag.arange(3).requires_grad_()


def test_backward_of_non_scalar_without_gradient():
    y = ag.ones(3, requires_grad=True) * 2
    with pytest.raises(RuntimeError, match=r"scalar outputs.*\(3,\).*sum\(\)"):
        y.backward()
    with pytest.raises(RuntimeError, match="shape"):
        y.backward(gradient=ag.ones(4))


def test_backward_of_tensor_without_grad():
    with pytest.raises(RuntimeError, match="requires_grad=True"):
        ag.ones(1).backward()


def test_dimension_out_of_range_names_the_operation():
    with pytest.raises(IndexError, match=r"sum.*\[-2, 1\].*got 2"):
        ag.ones(3, 4).sum(dim=2)
    with pytest.raises(TypeError, match="dim.*axis"):
        ag.ones(3).sum(dim=0, axis=0)


def test_bad_index_names_the_shape():
    with pytest.raises(IndexError, match=r"\(3, 4\)"):
        ag.ones(3, 4)[5]
    with pytest.raises(IndexError, match="integer or boolean"):
        ag.ones(3)[ag.tensor([0.5])]


def test_gradcheck_reports_the_worst_element():
    class Wrong(ag.Function):
        def forward(ctx, x):
            return x * x

        def backward(ctx, grad):
            return grad            # should be 2x

    x = ag.tensor(np.array([1.0, 3.0]), requires_grad=True)
    with pytest.raises(ag.GradcheckError, match=r"input 0 .*index \(1,\): analytic .* vs numerical"):
        ag.gradcheck(lambda t: Wrong.apply(t), [x])
    with pytest.raises(TypeError, match="float64"):
        ag.gradcheck(lambda t: t * 2, [ag.ones(2, requires_grad=True)])
