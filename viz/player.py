"""``player``: one self-contained HTML page that steps through frames (inline SVG, a slider,
previous / next / play buttons, arrow keys). No network: no scripts, styles or fonts are loaded
from anywhere. It shows inline in Jupyter and opens in any browser."""
import html
import itertools
import re

from .render import fit_svg, save

_COUNTER = itertools.count()

_STYLE = """
#{uid} {{ font-family: Helvetica, Arial, sans-serif; font-size: 14px; color: #222; }}
#{uid} .vz-controls {{ display: flex; align-items: center; gap: 6px; margin: 4px 0 8px; }}
#{uid} .vz-controls button {{ font-size: 14px; padding: 2px 10px; cursor: pointer; }}
#{uid} .vz-controls input[type=range] {{ flex: 1; max-width: 480px; }}
#{uid} .vz-count {{ color: #555; min-width: 5em; }}
#{uid} .vz-title {{ font-weight: bold; }}
#{uid} .vz-formula {{ font-family: Menlo, Consolas, monospace; color: #444; margin: 2px 0 6px; }}
#{uid} .vz-forward .vz-title {{ color: #1a5fb4; }}
#{uid} .vz-backward .vz-title {{ color: #b71c1c; }}
"""

_SCRIPT = """
(function () {{
  var root = document.getElementById("{uid}");
  var frames = root.querySelectorAll(".vz-frame");
  var slider = root.querySelector(".vz-slider");
  var count = root.querySelector(".vz-count");
  var play = root.querySelector(".vz-play");
  var current = 0, timer = null;
  function show(i) {{
    i = Math.max(0, Math.min(frames.length - 1, i));
    frames[current].style.display = "none";
    frames[i].style.display = "block";
    current = i;
    slider.value = i;
    count.textContent = (i + 1) + " / " + frames.length;
  }}
  function stop() {{
    if (timer) {{ clearInterval(timer); timer = null; play.textContent = "\\u25B6 play"; }}
  }}
  root.querySelector(".vz-prev").onclick = function () {{ stop(); show(current - 1); }};
  root.querySelector(".vz-next").onclick = function () {{ stop(); show(current + 1); }};
  slider.oninput = function () {{ stop(); show(parseInt(slider.value, 10)); }};
  play.onclick = function () {{
    if (timer) {{ stop(); return; }}
    if (current === frames.length - 1) show(0);
    play.textContent = "\\u23F8 pause";
    timer = setInterval(function () {{
      if (current >= frames.length - 1) {{ stop(); return; }}
      show(current + 1);
    }}, {interval});
  }};
  root.onkeydown = function (e) {{
    if (e.key === "ArrowRight") {{ stop(); show(current + 1); e.preventDefault(); }}
    if (e.key === "ArrowLeft") {{ stop(); show(current - 1); e.preventDefault(); }}
  }};
  show(0);
}})();
"""


class Player:
    """The HTML of a step-through. ``html`` is a fragment (what Jupyter shows), ``page()`` a
    complete document, ``save(path)`` writes that document."""

    def __init__(self, html_fragment, title, count):
        self.html, self.title, self.count = html_fragment, title, count

    def _repr_html_(self):
        return self.html

    def page(self):
        """A complete HTML document holding the player."""
        return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
                f"<title>{html.escape(self.title)}</title>\n</head>\n<body>\n{self.html}\n"
                "</body>\n</html>\n")

    def save(self, path):
        """Write the page to ``path`` (``.html``); returns the path."""
        return save(self, path)

    def __repr__(self):
        return f"<viz.Player {self.title!r}: {self.count} frames>"


def player(frames, interval=1.0, title="dagrad: forward and backward, step by step"):
    """A self-contained HTML step-through of ``frames`` (from ``viz.steps``).

    ``interval``: seconds per frame when playing. Renders every frame with Graphviz's ``dot``.
    Returns a :class:`Player`: displays inline in Jupyter, ``viz.save(p, "steps.html")`` (or
    ``p.save(...)``) writes a page that opens in any browser without network access.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("viz.player: no frames to show (the graph has no operations)")
    uid = f"vz-player-{next(_COUNTER)}"
    parts = [f'<div id="{uid}" class="vz-player" tabindex="0">',
             f"<style>{_STYLE.format(uid=uid)}</style>",
             '<div class="vz-controls">'
             '<button type="button" class="vz-prev" title="previous (←)">◀ prev</button>'
             '<button type="button" class="vz-play">▶ play</button>'
             '<button type="button" class="vz-next" title="next (→)">next ▶</button>'
             f'<input type="range" class="vz-slider" min="0" max="{len(frames) - 1}" '
             f'value="0" step="1" aria-label="frame">'
             f'<span class="vz-count">1 / {len(frames)}</span></div>']
    for k, frame in enumerate(frames):
        display = "block" if k == 0 else "none"
        parts.append(
            f'<div class="vz-frame vz-{frame.phase}" style="display:{display}">'
            f'<div class="vz-title">{html.escape(frame.title)}</div>'
            f'<div class="vz-formula">{html.escape(frame.formula)}</div>'
            f"{inline_svg(frame.svg(), f'{uid}-{k}')}</div>")
    parts.append(f"<script>{_SCRIPT.format(uid=uid, interval=int(interval * 1000))}</script>")
    parts.append("</div>")
    return Player("\n".join(parts), title, len(frames))


def inline_svg(text, prefix):
    """SVG from ``dot`` made fit for inlining in HTML: no XML prolog, no namespace URLs (HTML
    needs none), element ids made unique with ``prefix``, scaled to the page width."""
    text = fit_svg(text)
    text = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", text)
    return re.sub(r'\bid="', f'id="{prefix}-', text)
