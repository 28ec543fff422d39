"""2-D test functions and run_trajectory, the helper for plotting optimizer paths."""
import numpy as np
import pytest

from dagrad import optim
from dagrad.optim.testfunctions import narrow_valley, rosenbrock, run_trajectory


def test_functions_take_arrays_for_contour_plots():
    x, y = np.meshgrid(np.linspace(-2, 2, 5), np.linspace(-1, 3, 4))
    assert rosenbrock(x, y).shape == (4, 5)
    assert rosenbrock(1.0, 1.0) == 0.0
    assert narrow_valley(0.0, 0.0) == 0.0
    assert narrow_valley(1.0, 1.0) == pytest.approx(2.1)


def test_gradient_descent_on_narrow_valley_follows_closed_form():
    """GD on 0.1 x² + 2 y²: x_k = x0 (1 - 0.2 ε)^k and y_k = y0 (1 - 4 ε)^k."""
    lr, steps = 0.4, 30
    path = run_trajectory(lambda params: optim.SGD(params, lr=lr), narrow_valley,
                          (-5.0, 2.0), steps)
    k = np.arange(steps + 1)
    assert path.shape == (steps + 1, 2) and path.dtype == np.float64
    np.testing.assert_allclose(path[:, 0], -5.0 * (1 - 0.2 * lr) ** k, rtol=1e-12)
    np.testing.assert_allclose(path[:, 1], 2.0 * (1 - 4 * lr) ** k, rtol=1e-12, atol=1e-15)


def test_momentum_and_adam_get_further_along_rosenbrock_valley():
    start, steps = (-1.5, 2.0), 500

    def final_value(make):
        path = run_trajectory(make, rosenbrock, start, steps)
        np.testing.assert_array_equal(path[0], start)
        assert np.isfinite(path).all()
        return rosenbrock(*path[-1])

    plain = final_value(lambda p: optim.SGD(p, lr=2e-4))
    momentum = final_value(lambda p: optim.SGD(p, lr=2e-4, momentum=0.9))
    adam = final_value(lambda p: optim.Adam(p, lr=0.05))
    assert rosenbrock(*start) > plain > momentum > adam


def test_zero_steps_and_errors():
    path = run_trajectory(lambda p: optim.Adam(p), rosenbrock, (0.5, 0.5), 0)
    np.testing.assert_array_equal(path, [[0.5, 0.5]])
    with pytest.raises(ValueError, match="start must be a point"):
        run_trajectory(lambda p: optim.Adam(p), rosenbrock, (0.5, 0.5, 0.5), 3)
    with pytest.raises(ValueError, match="steps must be an integer"):
        run_trajectory(lambda p: optim.Adam(p), rosenbrock, (0.5, 0.5), -1)
    with pytest.raises(TypeError, match="must return an optim.Optimizer"):
        run_trajectory(lambda p: p, rosenbrock, (0.5, 0.5), 3)
