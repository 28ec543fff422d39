"""viz.embedding_plot: a labelled 2-D map of embeddings (matplotlib)."""
import numpy as np
import pytest

from dagrad import viz

pytest.importorskip("matplotlib", reason="viz.plots needs matplotlib: install the notebooks extra")


def test_points_with_texts_and_groups():
    from matplotlib.figure import Figure
    z = np.random.default_rng(0).normal(size=(6, 2))
    words = ["cat", "dog", "red", "blue", "one", "two"]
    groups = ["animal", "animal", "colour", "colour", "number", "number"]
    fig = viz.embedding_plot(z, texts=words, labels=groups, title="words")
    assert isinstance(fig, Figure)
    axis = fig.axes[0]
    assert [t.get_text() for t in axis.texts] == words
    assert [t.get_text() for t in axis.get_legend().get_texts()] == ["animal", "colour",
                                                                      "number"]
    assert axis.texts[0].get_color() == axis.texts[1].get_color() != axis.texts[2].get_color()
    assert isinstance(viz.embedding_plot(z), Figure)            # plain points


def test_errors():
    with pytest.raises(ValueError, match=r"\(n, 2\)"):
        viz.embedding_plot(np.zeros((3, 5)))
    with pytest.raises(ValueError, match="texts"):
        viz.embedding_plot(np.zeros((3, 2)), texts=["a"])
