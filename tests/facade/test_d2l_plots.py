"""dagrad.d2l's figures hold what the book's show: the curves, images and heat maps drawn
are the numbers given (read back from matplotlib's figure)."""
import numpy as np
import pytest

from dagrad import d2l, torch

plt = pytest.importorskip("matplotlib.pyplot")


@pytest.fixture(autouse=True)
def agg():
    import matplotlib
    matplotlib.use("Agg")
    yield
    plt.close("all")


def test_plot_draws_each_curve_with_its_legend():
    x = torch.arange(0.0, 3.0, 1.0)
    d2l.plot(x, [x ** 2, 2 * x], "x", "f(x)", legend=["x²", "2x"])
    axes = plt.gca()
    lines = axes.get_lines()
    assert [list(line.get_ydata()) for line in lines] == [[0, 1, 4], [0, 2, 4]]
    assert axes.get_xlabel() == "x" and [t.get_text() for t in axes.get_legend().texts] == \
        ["x²", "2x"]


def test_show_heatmaps_draws_one_panel_per_matrix_and_a_colour_bar():
    matrices = torch.arange(24.0).reshape(1, 2, 3, 4) / 24
    fig = d2l.show_heatmaps(matrices, "Keys", "Queries", titles=["a", "b"])
    panels = [ax for ax in fig.axes if ax.images and ax.get_title()]
    assert len(panels) == 2 and len(fig.axes) == 3                 # + the colour bar
    np.testing.assert_allclose(panels[1].images[0].get_array(), matrices.numpy()[0, 1])
    assert panels[0].get_xlabel() == "Keys" and panels[0].get_ylabel() == "Queries"


def test_show_images_puts_each_image_under_its_title():
    images = torch.rand(3, 4, 4)
    axes = d2l.show_images(images, 1, 3, titles=["a", "b", "c"])
    assert [ax.get_title() for ax in axes] == ["a", "b", "c"]
    np.testing.assert_allclose(axes[2].images[0].get_array(), images.numpy()[2])


def test_animator_keeps_every_point_and_skips_none(capsys):
    animator = d2l.Animator(xlabel="epoch", legend=["train", "test"])
    animator.add(1, (0.5, None))
    animator.add(2, (0.25, 0.75))
    assert animator.X == [[1, 2], [2]] and animator.Y == [[0.5, 0.25], [0.75]]
    assert [list(line.get_ydata()) for line in animator.axes[0].get_lines()] == \
        [[0.5, 0.25], [0.75]]
    assert capsys.readouterr().out == ""                 # a script prints no figure


def test_show_trace_2d_and_the_length_histogram():
    def f(x1, x2):
        return x1 ** 2 + 2 * x2 ** 2

    def gd(x1, x2, s1, s2):
        return x1 - 0.2 * 2 * x1, x2 - 0.2 * 4 * x2, 0, 0
    results = d2l.train_2d(gd, steps=5)
    assert len(results) == 6 and abs(results[-1][0]) < 1
    d2l.show_trace_2d(f, results)
    axes = plt.gca()
    assert list(axes.get_lines()[0].get_xdata()) == [r[0] for r in results]
    assert axes.collections                                     # the contour lines
    plt.figure()
    d2l.show_list_len_pair_hist(["source", "target"], "# tokens", "count",
                                [[1, 2], [1]], [[1, 2, 3], [4]])
    assert len(plt.gca().patches) == 20                          # 10 bins for each list
