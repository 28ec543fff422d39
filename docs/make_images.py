"""Redraw the README's pictures (``make docs-images``): the README example's graph with the
value and the gradient on every edge (docs/images/readme_graph.svg), and a screenshot of its
step-through player in headless Chromium (docs/images/player.png; needs Debian's chromium and
the playwright package from the test extra)."""
import pathlib
import shutil
import tempfile

from dagrad import autograd as ag, viz

OUT = pathlib.Path(__file__).resolve().parent / "images"


def readme_example():
    """The README's example, its tensors named by their variables."""
    x = ag.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = ag.tensor(0.5, requires_grad=True)
    with viz.record():
        y = (w * x).tanh().sum()
    return y, {"x": x, "w": w, "y": y}


def player_screenshot(path):
    """The player at Backward 2/3 in a 900 x 640 window."""
    from playwright.sync_api import sync_playwright
    y, names = readme_example()
    with tempfile.TemporaryDirectory() as tmp:
        page_path = viz.save(viz.player(viz.steps(y, names=names)), pathlib.Path(tmp) / "p.html")
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"),
                                        args=["--headless=new", "--no-sandbox", "--disable-gpu"])
            page = browser.new_page(viewport={"width": 900, "height": 640})
            page.goto(pathlib.Path(page_path).as_uri())
            for _ in range(4):
                page.click(".vz-next")
            page.screenshot(path=str(path))
            browser.close()
    return path


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    y, names = readme_example()
    print("wrote", viz.save(viz.draw(y, grads=True, names=names), OUT / "readme_graph.svg"))
    print("wrote", player_screenshot(OUT / "player.png"))


if __name__ == "__main__":
    main()
