"""Redraw the README's picture (``make docs-images``): the README example's graph with the
value and the gradient on every edge, as docs/images/readme_graph.svg."""
import pathlib

from dagrad import autograd as ag, viz

OUT = pathlib.Path(__file__).resolve().parent / "images"


def readme_graph():
    """The README's example, with its tensors named so the picture reads like the code."""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = ag.tensor(0.5, requires_grad=True)
    x.name, w.name = "x", "w"
    with viz.record():
        y = (w * x).tanh().sum()
    return viz.draw(y, grads=True)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    path = viz.save(readme_graph(), OUT / "readme_graph.svg")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
