"""check_backward: right backwards pass (first and second order) and each usual mistake, built
here as a student would make it, gets its diagnosis."""
import json

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.exercises import check_backward

X = np.array([0.3, -1.2, 0.8])
A = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.7]])          # (2, 3)
B = np.array([[1.0, 0.3], [-0.4, 2.0], [0.6, -1.1]])        # (3, 2)


def tanh_function(backward, save_output=True):
    """A Tanh written as the lesson asks, with the given backward."""
    def forward(ctx, x):
        y = np.tanh(x)
        if save_output:
            ctx.save(output=y)
        else:
            ctx.save(x)
        return y
    return type("Tanh", (ag.Function,), {"forward": forward, "backward": backward})


def right_tanh_backward(ctx, grad):
    y, = ctx.saved
    return grad * (1 - y * y)


def test_a_right_function_passes_first_and_second_order():
    r = check_backward(tanh_function(right_tanh_backward), X, exercise="02.4")
    assert r.ok and r.exercise == "02.4"
    assert "first and second order" in r.message
    assert r.table[1][2] == "✓ right" and r.table[1][3] == "✓ right"


def test_missing_one_minus_y_squared_is_a_missing_local_derivative():
    r = check_backward(tanh_function(lambda ctx, grad: grad), X)
    assert not r and r.diagnosis == "missing_local_derivative"
    assert "passed through unchanged" in r.message


def test_a_known_factor_left_out_is_named():
    class Sigmoid(ag.Function):
        def forward(ctx, x):
            y = 1 / (1 + np.exp(-x))
            ctx.save(output=y)
            return y

        def backward(ctx, grad):
            y, = ctx.saved
            return grad * y                 # forgot the (1 - y)
    r = check_backward(Sigmoid, X)
    assert r.diagnosis == "missing_local_derivative" and "factor (1 − out) " in r.message


def test_the_local_derivative_alone_is_a_missing_upstream_gradient():
    def backward(ctx, grad):
        y, = ctx.saved
        return 1 - y * y + 0 * grad
    r = check_backward(tanh_function(backward), X)
    assert r.diagnosis == "missing_upstream" and "upstream gradient" in r.message


def test_saving_the_input_where_the_output_is_needed_is_a_wrong_saved_value():
    r = check_backward(tanh_function(right_tanh_backward, save_output=False), X)
    assert r.diagnosis == "wrong_saved_value"
    assert "saves input 0" in r.message and "the output" in r.message


class Mul(ag.Function):
    def forward(ctx, a, b):
        ctx.save(a, b)
        return a * b

    def backward(ctx, grad):
        a, b = ctx.saved
        return grad * b, -(grad * a)        # sign error on b


def test_a_sign_error():
    r = check_backward(Mul, X, X[::-1].copy())
    assert r.diagnosis == "sign" and "input 1" in r.message and "negative" in r.message
    assert r.table[1][2] == "✓ right" and r.table[2][2] == "✗ sign"


def test_a_factor_of_two():
    class Square(ag.Function):
        def forward(ctx, x):
            ctx.save(x)
            return x * x

        def backward(ctx, grad):
            x, = ctx.saved
            return grad * x                  # d(x²)/dx = 2x
    r = check_backward(Square, X)
    assert r.diagnosis == "factor" and "factor of 2 is missing" in r.message


class MatMulTransposed(ag.Function):
    def forward(ctx, a, b):
        ctx.save(a, b)
        return a @ b

    def backward(ctx, grad):
        a, b = ctx.saved
        return b @ grad.T, a.T @ grad      # δA = grad Bᵀ, written transposed


def test_a_transposed_gradient():
    r = check_backward(MatMulTransposed, A, B)
    assert r.diagnosis == "transposed" and "input 0" in r.message
    square = np.array([[1.0, 2.0], [-0.5, 0.3]])
    assert check_backward(MatMulTransposed, square, square.T.copy()).diagnosis == "transposed"


def add_forward(x, b):
    return x + b


def test_a_missing_broadcast_sum_when_input_shaped_gradients_are_asked_for():
    bias = np.array([0.1, -0.2, 0.3])
    r = check_backward((add_forward, lambda g, x, b: (g, g)), A, bias, expected_shapes=True)
    assert r.diagnosis == "missing_broadcast_sum" and "sum over axis 0" in r.message
    right = (add_forward, lambda g, x, b: (g, g.sum(axis=0)))
    assert check_backward(right, A, bias, expected_shapes=True)
    # without expected_shapes the engine's own sum makes the output-shaped gradient right
    assert check_backward((add_forward, lambda g, x, b: (g, g)), A, bias)


def test_a_numpy_pair_and_its_wrong_saved_value():
    right = (np.tanh, lambda g, x: g * (1 - np.tanh(x) ** 2))
    r = check_backward(right, X)
    assert r.ok and "first order" in r.message and "second" not in r.message
    with_output = (np.tanh, lambda g, x, y: g * (1 - y ** 2))
    assert check_backward(with_output, X)
    uses_input = (np.tanh, lambda g, x, y: g * (1 - x ** 2))
    r = check_backward(uses_input, X)
    assert r.diagnosis == "wrong_saved_value" and "uses input 0" in r.message


def test_numpy_calls_in_backward_fail_the_second_order_check():
    class TanhNumPy(ag.Function):
        def forward(ctx, x):
            ctx.save(x)
            return np.tanh(x)

        def backward(ctx, grad):
            x, = ctx.saved
            return grad * (1 - np.tanh(x) ** 2)
    r = check_backward(TanhNumPy, X)
    assert r.diagnosis == "gradgrad" and "ctx.xp" in r.message
    assert check_backward(TanhNumPy, X, gradgrad=False)


def test_a_custom_function_in_pytorchs_form():
    class Exp(ag.CustomFunction):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, grad):
            y, = ctx.saved_tensors
            return grad * y
    assert check_backward(Exp, X)

    class ExpWrong(Exp):
        @staticmethod
        def backward(ctx, grad):
            return grad
    assert check_backward(ExpWrong, X).diagnosis == "missing_local_derivative"


def test_blank_and_broken_answers_never_raise(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("DAGRAD_EXERCISES_LOG", str(log))
    assert check_backward(None, X, exercise="02.1").diagnosis == "not_answered"

    def unfinished(ctx, grad):
        raise NotImplementedError
    assert check_backward(tanh_function(unfinished), X).diagnosis == "not_answered"
    assert check_backward(tanh_function(lambda ctx, grad: None), X).diagnosis == "not_answered"

    def crashes(ctx, grad):
        return grad @ np.ones((5, 5))
    r = check_backward(tanh_function(crashes), X)
    assert r.diagnosis == "error" and "raised ValueError" in r.message
    r = check_backward(Mul.__base__ and (add_forward, lambda g, x, b: g), A, A)
    assert r.diagnosis == "error" and "1 gradient for 2 inputs" in r.message
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [d["diagnosis"] for d in lines] == ["not_answered", "not_answered", "not_answered",
                                               "error", "error"]


def test_wrong_setup_is_a_clear_error():
    with pytest.raises(TypeError, match="Function subclass"):
        check_backward(np.tanh, X)
    with pytest.raises(ValueError, match="floating-point"):
        check_backward((np.negative, lambda g, i: -g), np.array([1, 2]))


def test_backwards_written_with_ctx_xp_and_broadcasting_pass_second_order():
    class TanhXp(ag.Function):
        def forward(ctx, x):
            ctx.save(x)
            return np.tanh(x)

        def backward(ctx, grad):
            x, = ctx.saved
            return grad * (1 - ctx.xp.tanh(x) ** 2)

    class BiasMul(ag.Function):
        def forward(ctx, x, b):
            ctx.save(x, b)
            return x * b

        def backward(ctx, grad):
            x, b = ctx.saved
            return grad * b, grad * x        # the engine sums the second over axis 0
    assert "second order" in check_backward(TanhXp, X).message
    r = check_backward(BiasMul, A, np.array([0.1, -0.2, 0.3]))
    assert r.ok and r.table[2][2] == "✓ right (summed)" and r.table[2][3] == "✓ right"


def test_a_gradient_of_another_shape_and_a_plain_wrong_value():
    def wrong_shape(g, x):
        return g.reshape(-1)[:4]
    r = check_backward((np.sin, wrong_shape), A)
    assert r.diagnosis == "shape" and "shape (4,)" in r.message
    r = check_backward((np.sin, lambda g, x: g * np.sin(x)), X)
    assert r.diagnosis == "value" and "grad = [" in r.message
    assert "3 of 3 elements" in r.message or "every element is wrong" in r.message
    assert "should be" not in r.message and "should be" in r.reveal().message


def test_a_large_input_is_checked_at_a_sample_said_in_the_message():
    big = np.random.default_rng(0).normal(size=20_000)
    r = check_backward((np.tanh, lambda g, x: g * (1 - np.tanh(x) ** 2)), big)
    assert r.ok and "200 of its 20,000 elements" in r.message
    r = check_backward((np.tanh, lambda g, x: g), big)
    assert r.diagnosis == "missing_local_derivative" and "20,000" in r.message


def test_the_cost_of_a_check_grows_linearly_with_the_input():
    """Complexity, not speed: a numerical derivative at every element would make the check
    quadratic in n (56 s at n = 20,000); sampled, 10x the input costs about 10x (the forward
    itself), asserted with a generous bound."""
    import time
    pair = (np.tanh, lambda g, x: g * (1 - np.tanh(x) ** 2))
    rng = np.random.default_rng(1)

    def seconds(n):
        x = rng.normal(size=n)
        best = float("inf")
        for _ in range(3):
            start = time.perf_counter()
            check_backward(pair, x)
            best = min(best, time.perf_counter() - start)
        return best
    small, large = seconds(5_000), seconds(50_000)
    assert large / small < 30, (small, large)


def test_a_tanh_saving_its_output_positionally_is_right():
    """A right tanh written as PyTorch users write it, saving its output positionally: the
    save contract takes it (as PyTorch's save_for_backward(output) does), first and second
    order."""
    class Tanh(ag.Function):
        def forward(ctx, x):
            y = np.tanh(x)
            ctx.save(y)
            return y

        def backward(ctx, grad):
            return grad * (1 - ctx.saved[0] ** 2)
    r = check_backward(Tanh, X)
    assert r.ok, r.message
