"""Higher-order derivatives (create_graph=True) and the functional transforms."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd import functional as AF
from tests.helpers import torch_or_skip


def f64(value, requires_grad=True):
    return ag.tensor(np.asarray(value, dtype=np.float64), requires_grad=requires_grad)


def second_derivative(fn, x0):
    x = f64(x0)
    g, = ag.grad(fn(x), x, create_graph=True)
    g2, = ag.grad(g, x)
    return g.item(), g2.item()


@pytest.mark.parametrize("x0", [-1.3, 0.0, 0.4])
def test_second_derivatives_match_analytic(x0):
    t = np.tanh(x0)
    assert second_derivative(ag.tanh, x0) == pytest.approx((1 - t * t, -2 * t * (1 - t * t)))
    s = 1 / (1 + np.exp(-x0))
    assert second_derivative(ag.sigmoid, x0) == pytest.approx((s * (1 - s),
                                                              s * (1 - s) * (1 - 2 * s)))
    assert second_derivative(lambda x: x ** 3, x0) == pytest.approx((3 * x0 ** 2, 6 * x0))


def test_third_derivative_of_cube_is_six():
    x = f64(1.7)
    g1, = ag.grad(x ** 3, x, create_graph=True)
    g2, = ag.grad(g1, x, create_graph=True)
    g3, = ag.grad(g2, x)
    assert (g1.item(), g2.item(), g3.item()) == pytest.approx((3 * 1.7 ** 2, 6 * 1.7, 6.0))


def two_layer(params, x):
    """f(w) = Σ tanh(x W1ᵀ) W2ᵀ, a small two-layer network as a function of its weights."""
    w1, w2 = params[:6].reshape(3, 2), params[6:].reshape(1, 3)
    return (ag.tanh(x @ w1.T) @ w2.T).sum()


def analytic_hessian(p, x):
    """The Hessian of ``two_layer`` by hand (float64), to check the engine's Hvp."""
    w1, w2 = p[:6].reshape(3, 2), p[6:].reshape(1, 3)
    h = np.zeros((9, 9))
    for xn in x:
        a = w1 @ xn
        t = np.tanh(a)
        d1 = 1 - t * t                # tanh'
        d2 = -2 * t * d1              # tanh''
        for j in range(3):
            for k in range(2):
                for jj in range(3):
                    for kk in range(2):
                        if j == jj:
                            h[2 * j + k, 2 * jj + kk] += w2[0, j] * d2[j] * xn[k] * xn[kk]
                h[2 * j + k, 6 + j] += d1[j] * xn[k]
                h[6 + j, 2 * j + k] += d1[j] * xn[k]
    return h


def test_hessian_vector_product_of_two_layer_function():
    rng = np.random.default_rng(0)
    p0, x0, v0 = rng.standard_normal(9), rng.standard_normal((4, 2)), rng.standard_normal(9)
    x = f64(x0, requires_grad=False)
    _, hv = AF.hvp(lambda p: two_layer(p, x), f64(p0), f64(v0, requires_grad=False))
    np.testing.assert_allclose(hv.numpy(), analytic_hessian(p0, x0) @ v0, rtol=1e-10, atol=1e-12)
    h = AF.hessian(lambda p: two_layer(p, x), f64(p0))
    np.testing.assert_allclose(h.numpy(), analytic_hessian(p0, x0), rtol=1e-10, atol=1e-12)


def test_jacobian_vjp_jvp_agree_with_each_other_and_with_pytorch():
    torch = torch_or_skip()
    rng = np.random.default_rng(1)
    a0, u0, v0 = rng.standard_normal((3,)), rng.standard_normal((2,)), rng.standard_normal(3)
    m = rng.standard_normal((2, 3))

    def fn(a, mod=ag):
        return mod.tanh(a * a) @ (mod.tensor(m) if mod is ag else torch.tensor(m)).T

    jac = AF.jacobian(fn, f64(a0))
    tjac = torch.autograd.functional.jacobian(lambda a: fn(a, torch), torch.tensor(a0))
    np.testing.assert_allclose(jac.numpy(), tjac.numpy(), rtol=1e-10)
    _, vjp = AF.vjp(fn, f64(a0), f64(u0, requires_grad=False))
    np.testing.assert_allclose(vjp.numpy(), u0 @ jac.numpy(), rtol=1e-10)
    _, jvp = AF.jvp(fn, f64(a0), f64(v0, requires_grad=False))
    np.testing.assert_allclose(jvp.numpy(), jac.numpy() @ v0, rtol=1e-10)


def test_hessian_of_several_inputs_is_a_tuple_of_tuples():
    x, y = f64([1.0, 2.0]), f64(3.0)
    h = AF.hessian(lambda a, b: (a * a * b).sum(), (x, y))
    np.testing.assert_allclose(h[0][0].numpy(), 2 * 3.0 * np.eye(2))
    np.testing.assert_allclose(h[0][1].numpy(), [2.0, 4.0])
    np.testing.assert_allclose(h[1][1].numpy(), 0.0)


@pytest.mark.parametrize("name,fn", [
    ("softmax", lambda x: x.softmax(dim=-1)[..., 0]),
    ("log_softmax", lambda x: x.log_softmax(dim=-1)[..., 1]),
    ("matmul", lambda x: (x @ x.T).sum()),
    ("getitem", lambda x: (x[[0, 0, 1]] ** 2).sum()),
    ("max", lambda x: (x.max(dim=1).values ** 2).sum()),
    ("gelu", lambda x: ag.gelu(x).sum()),
    ("logsumexp", lambda x: x.logsumexp(dim=1).sum()),
    ("var", lambda x: x.var(dim=1).sum()),
])
def test_gradient_of_gradient_passes_gradcheck(name, fn):
    """create_graph=True through each family of ops: gradcheck the gradient itself."""
    x = f64(np.random.default_rng(2).standard_normal((2, 3)))

    def grad_sum(t):
        g, = ag.grad(fn(t).sum(), t, create_graph=True)
        return (g * g).sum()
    assert ag.gradcheck(grad_sum, [x])
