"""``player``: one self-contained HTML page that steps through frames: the one laid-out
picture (inline SVG) whose pieces appear frame by frame, a slider, previous / next / play
buttons, arrow keys, and pan and zoom. No network: no scripts, styles or fonts are loaded from
anywhere. It shows inline in Jupyter and opens in any browser."""
from . import markup
from .saving import save
from .quiz import quiz_parts
from .svgview import PICTURE_STYLE, new_uid, page, view_html

_STYLE = """
#{uid} {{ font-family: Helvetica, Arial, sans-serif; font-size: 14px; color: #222; }}
#{uid} .vz-controls {{ display: flex; align-items: center; gap: 6px; margin: 4px 0 8px; }}
#{uid} .vz-controls button {{ font-size: 14px; padding: 2px 10px; cursor: pointer;
  white-space: nowrap; }}
#{uid} .vz-controls input[type=range] {{ flex: 1; max-width: 480px; }}
#{uid} .vz-count {{ color: #555; min-width: 5em; }}
#{uid} .vz-title {{ font-weight: bold; }}
#{uid} .vz-formula {{ font-family: Menlo, Consolas, monospace; color: #444; margin: 2px 0 6px; }}
#{uid} .vz-numbers {{ font-family: Menlo, Consolas, monospace; color: #b71c1c; margin: 0 0 6px;
  white-space: pre-wrap; }}
#{uid}.vz-forward .vz-title {{ color: #1a5fb4; }}
#{uid}.vz-backward .vz-title {{ color: #b71c1c; }}
/* a phone: the buttons keep one row, the slider goes across the row below */
@media (max-width: 600px) {{
  #{uid} .vz-controls {{ flex-wrap: wrap; }}
  #{uid} .vz-controls input[type=range] {{ order: 1; min-width: 100%; max-width: none;
    margin: 4px 0; }}
}}
"""

_SCRIPT = """
(function () {{
  var root = document.getElementById("{uid}");
  var frames = {frames};
  var slider = root.querySelector(".vz-slider"), count = root.querySelector(".vz-count");
  var play = root.querySelector(".vz-play");
  var title = root.querySelector(".vz-title"), formula = root.querySelector(".vz-formula");
  var numbers = root.querySelector(".vz-numbers");
  var texts = root.querySelectorAll("text[data-at]");
  var edges = root.querySelectorAll("g[data-sent]");
  var ops = root.querySelectorAll("g[data-hl]");
  var tipped = root.querySelectorAll("g[data-tip]");
  tipped.forEach(function (g) {{ g.vzTip = JSON.parse(g.dataset.tip); }});
  // A tooltip shows the lines known at frame i (a value from its forward frame, a δ from its
  // backward frame); lines from frame ``held`` on stay out (a quiz's unfound δ's).
  root.vzTip = function (g, i, held) {{
    var text = g.vzTip.filter(function (l) {{
      return l[0] <= i && (held === null || held === undefined || l[0] < held);
    }})
      .map(function (l) {{ return l[1]; }}).join("\\n");
    g.querySelectorAll("a").forEach(function (a) {{
      a.setAttributeNS("http://www.w3.org/1999/xlink", "title", text);
    }});
  }};
  var current = 0, timer = null;
  function show(i) {{
    i = Math.max(0, Math.min(frames.length - 1, i));
    current = i;
    texts.forEach(function (t) {{ t.classList.toggle("vz-hidden", +t.dataset.at > i); }});
    edges.forEach(function (e) {{ e.classList.toggle("vz-pending", +e.dataset.sent > i); }});
    tipped.forEach(function (g) {{ root.vzTip(g, i, null); }});
    ops.forEach(function (n) {{
      n.classList.toggle("vz-hl", n.dataset.hl.split(" ").indexOf(String(i)) >= 0);
    }});
    root.classList.toggle("vz-forward", frames[i][0] === "forward");
    root.classList.toggle("vz-backward", frames[i][0] === "backward");
    title.textContent = frames[i][1];
    formula.textContent = frames[i][2];
    numbers.textContent = frames[i][3];
    slider.value = i;
    count.textContent = (i + 1) + " / " + frames.length;
    root.dataset.frame = i;
    root.dispatchEvent(new CustomEvent("vz-frame", {{detail: i}}));
    // the operation of this frame (and the edges a quiz asks about) scrolled into the view
    root.vzReveal(Array.from(root.querySelectorAll("g.vz-hl"))
                  .concat(Array.from(root.querySelectorAll("g.vz-ask"))));
  }}
  function stop() {{
    if (timer) {{ clearInterval(timer); timer = null; play.textContent = "\u25B6 play"; }}
  }}
  root.querySelector(".vz-prev").onclick = function () {{ stop(); show(current - 1); }};
  root.querySelector(".vz-next").onclick = function () {{ stop(); show(current + 1); }};
  slider.oninput = function () {{ stop(); show(parseInt(slider.value, 10)); }};
  play.onclick = function () {{
    if (timer) {{ stop(); return; }}
    if (current === frames.length - 1) show(0);
    play.textContent = "\u23F8 pause";
    timer = setInterval(function () {{
      if (current >= frames.length - 1) {{ stop(); return; }}
      show(current + 1);
    }}, {interval});
  }};
  // A key the player uses is marked handled (preventDefault): a host with its own use for it
  // (JupyterLab moves between headings with the arrows) then leaves it alone.
  root.addEventListener("keydown", function (e) {{
    if (e.target.tagName === "INPUT" && e.target.type === "text") return;   // typing a δ
    var step = {{ArrowRight: 1, ArrowLeft: -1}}[e.key];
    if (!step) return;
    stop(); show(current + step); e.preventDefault();
  }});
  // The frame's text takes the height of the tallest frame's at this width, so stepping never
  // moves the zoom buttons and the picture when one frame's text wraps onto more lines.
  var lines = [title, formula, numbers], width = -1;
  function reserve() {{
    if (root.clientWidth === width) return;
    width = root.clientWidth;
    var tallest = lines.map(function (el) {{ el.style.minHeight = ""; return 0; }});
    frames.forEach(function (f) {{
      lines.forEach(function (el, k) {{
        el.textContent = f[k + 1]; tallest[k] = Math.max(tallest[k], el.offsetHeight);
      }});
    }});
    lines.forEach(function (el, k) {{ el.style.minHeight = tallest[k] + "px"; }});
    show(current);
    root.vzFitBox();
  }}
  show(0);
  reserve();
  if ("ResizeObserver" in window) new ResizeObserver(reserve).observe(root);
  // The arrow keys work as soon as the player is on screen: it takes the keyboard focus when at
  // least half of it (or of the screen, for a tall one) comes into view, unless the reader is
  // typing (a text box, a notebook cell's editor), another picture in view has the focus, or
  // the focus is outside the page the player is in (JupyterLab's file browser beside the
  // notebook). It does not scroll the page to do so, and the wheel still scrolls the page.
  // Taking the focus is not the reader choosing the player, so the host is not told (the
  // focusin event stops here): JupyterLab keeps its selected cell, and Shift+Enter runs that
  // cell, not the player's.
  var claiming = false;
  root.addEventListener("focusin", function (e) {{ if (claiming) e.stopPropagation(); }});
  function typing(el) {{
    return el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName);
  }}
  function inView(el) {{
    var r = el.getBoundingClientRect();
    return r.bottom > 0 && r.top < window.innerHeight;
  }}
  function claimKeys() {{
    var a = document.activeElement;
    if (a && a !== document.body) {{
      var other = a.closest(".vz-viewer");
      if (other === root || typing(a) || (other && inView(other))) return;
      if (!root.vzPageScroller().contains(a)) return;
    }}
    claiming = true;
    try {{ root.focus({{preventScroll: true}}); }} finally {{ claiming = false; }}
  }}
  if ("IntersectionObserver" in window) {{
    new IntersectionObserver(function (entries) {{
      entries.forEach(function (e) {{
        var screen = e.rootBounds ? e.rootBounds.height : window.innerHeight;
        var half = 0.5 * Math.min(e.boundingClientRect.height, screen);
        if (e.isIntersecting && e.intersectionRect.height >= half) claimKeys();
      }});
    }}, {{threshold: [0, 0.25, 0.5, 0.75, 1]}}).observe(root);
  }}
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
        return page(self.html, self.title)

    def save(self, path):
        """Write the page to ``path`` (``.html``); returns the path."""
        return save(self, path)

    def __repr__(self):
        return f"<viz.Player {self.title!r}: {self.count} frames>"


def player(frames, interval=1.0, title="dagrad: forward and backward, step by step",
           quiz=False, tol=0.01):
    """A self-contained HTML step-through of ``frames`` (from ``viz.steps``).

    ``interval``: seconds per frame when playing. The picture is rendered once with Graphviz's
    ``dot``; each frame shows or hides parts of it. Returns a :class:`Player`: displays inline
    in Jupyter, ``viz.save(p, "steps.html")`` (or ``p.save(...)``) writes a page that opens in
    any browser without network access.

    ``quiz=True``: predict, then reveal (``viz.quiz``). In each backward frame the δ on each
    input edge of the operation stays hidden until the student types it; within ``tol``
    (relative: 0.01 is 1%) it is marked right, else wrong, with the right value and the local
    rule that gives it.
    """
    frames = list(frames)
    if not frames:
        raise ValueError("viz.player: no frames to show (the graph has no operations)")
    pictures = {id(f.picture) for f in frames}
    if len(pictures) != 1:
        raise ValueError("viz.player: the frames come from different viz.steps calls; pass the "
                         "frames of one")
    n = len(frames)
    controls = ('<div class="vz-controls">'
                '<button type="button" class="vz-prev" title="previous (←)">◀ prev</button>'
                '<button type="button" class="vz-play">▶ play</button>'
                '<button type="button" class="vz-next" title="next (→)">next ▶</button>'
                f'<input type="range" class="vz-slider" min="0" max="{n - 1}" value="0" '
                f'step="1" aria-label="frame"><span class="vz-count">1 / {n}</span></div>'
                f'<div class="vz-title">{markup.text(frames[0].title)}</div>'
                f'<div class="vz-formula">{markup.text(frames[0].formula)}</div>'
                '<div class="vz-numbers"></div>')
    # backward frames: δ_in = δ_out × local derivative with the numbers (a quiz asks for them)
    table = markup.script_json([[f.phase, f.title, f.formula, "" if quiz else f.numbers]
                                for f in frames])
    uid = new_uid()
    style = _STYLE.format(uid=uid) + PICTURE_STYLE
    script = _SCRIPT.format(uid=uid, frames=table, interval=int(interval * 1000))
    if quiz:
        panel, quiz_style, quiz_script = quiz_parts(frames, uid, tol)
        controls, style, script = controls + panel, style + quiz_style, script + quiz_script
    fragment = view_html(frames[0].picture.svg(), uid, extra_style=style, before=controls,
                         after_script=script, role="vz-player", still=frames[0].svg(),
                         still_note="its first frame; run the cell to step through the "
                                    "forward and backward passes")
    return Player(fragment, title, n)
