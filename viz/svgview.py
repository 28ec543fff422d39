"""One SVG picture, many states, and a pan-and-zoom view of it in HTML.

A step-through (``viz.steps``) lays its graph out once. ``annotate`` marks, in that one SVG,
the frame at which each text row of a box or an edge becomes known (``data-at``), the frame at
which each edge's gradient is sent (``data-sent``) and the frames that evaluate each operation
(``data-hl``). A frame is then a state of the picture: ``state_svg`` removes what it does not
know yet (for a static picture), the player's script hides it. Nothing unknown is ever drawn
in a colour that a renderer might get wrong: it is absent or ``visibility: hidden``.

``view_html`` shows an SVG at a readable size: it shrinks to the width of the page only down to
the scale at which its smallest label is 10 CSS px, and beyond that the picture scrolls inside
its box (scroll bars, drag) and zooms (buttons, "fit", and the wheel once the picture is clicked
or with Ctrl held), never shrunk to a thumbnail. The wheel otherwise scrolls the page.
Where its script cannot run (JupyterLab strips scripts, styles and inline SVG from the outputs
of a notebook it does not trust), a still picture shows instead, as an image.
"""
import base64
import html
import itertools
import json
import re

from . import markup

MIN_LABEL_PX = 10          # the smallest label size the views allow at their initial scale
STILL_HEIGHT_PX = 600      # the height of a still picture's box (where scripts do not run)
PT_TO_PX = 96 / 72         # dot writes sizes in points
_COUNTER = itertools.count()
_GROUP = re.compile(r'<g id="(?!a_)([^"]*)" class="(node|edge|cluster)"')

PICTURE_STYLE = """
.vz-hidden { visibility: hidden; }
.vz-pending path, .vz-pending polygon { stroke: #c7c7c7 !important; stroke-width: 1 !important; }
.vz-pending polygon { fill: #c7c7c7 !important; }
.vz-pending polyline { visibility: hidden; }
.vz-hl > path, .vz-hl > polygon, .vz-hl > g > a > path, .vz-hl > g > a > polygon {
  fill: #fff176 !important; stroke: #e65100 !important; stroke-width: 2.5 !important; }
"""


def annotate(svg, marks):
    """Mark up ``svg`` (from ``dot``) with ``marks``: ``{element id: (rows, sent, highlight,
    tip)}`` where rows are ``(text, frame it appears at or None)`` in the order dot writes their
    ``<text>`` elements, ``sent`` the frame an edge's gradient arrives, ``highlight`` the
    frames evaluating an operation and ``tip`` the tooltip's lines, ``(text, frame)`` like the
    rows (or None). A tooltip with timed lines gets them as JSON in ``data-tip`` and, in its
    ``xlink:title``, only its always-known lines: a value or δ is never in a tooltip before
    its frame."""
    starts = [(m.start(), m.group(1)) for m in _GROUP.finditer(svg)]
    out, pos = [], 0
    for k, (start, element) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(svg)
        out.append(svg[pos:start])
        out.append(_annotate_group(svg[start:end], marks.get(element)))
        pos = end
    out.append(svg[pos:])
    return "".join(out)


def hold_legend(svg, frame):
    """``svg`` with the numbers of its colour legend (the gradient magnitudes, written in white
    on their colours) marked to appear at ``frame``, the first backward frame: before backward
    has run, no gradient is known, so none may be read off the legend."""
    first_group = _GROUP.search(svg)
    head_end = first_group.start() if first_group else len(svg)
    head = re.sub(r'<text\b(?=[^>]*\bfill="white")', f'<text data-at="{frame}" data-legend="1"',
                  svg[:head_end])
    return head + svg[head_end:]


def _annotate_group(text, mark):
    if mark is None:
        return text
    rows, sent, highlight, tip = mark
    head_end = text.index(">") + 1
    head, body = text[:head_end], text[head_end:]
    extra = ""
    if tip and any(at is not None for _, at in tip):
        lines = [[-1 if at is None else at, line] for line, at in tip]
        extra += f' data-tip="{markup.json_attr(lines)}"'
        title = _title(tip_at(lines, -1))
        body = _TITLE.sub(lambda _: title, body)
    if sent is not None:
        extra += f' data-sent="{sent}"'
    if highlight:
        extra += f' data-hl="{" ".join(str(f) for f in highlight)}"'
    head = head[:-1] + extra + ">"
    texts = list(re.finditer(r"<text\b", body))
    if len(texts) != len(rows):
        raise RuntimeError(f"viz: {len(texts)} text elements drawn for {len(rows)} label rows "
                           f"in {head}; cannot tell which to hide")
    out, pos = [], 0
    for m, (_, at) in zip(texts, rows):
        out.append(body[pos:m.end()])
        if at is not None:
            out.append(f' data-at="{at}"')
        pos = m.end()
    out.append(body[pos:])
    return head + "".join(out)


_TITLE = re.compile(r'xlink:title="[^"]*"')


def tip_at(lines, frame):
    """The tooltip text frame ``frame`` shows: the lines ``[at, text]`` known by then."""
    return "\n".join(text for at, text in lines if at <= frame)


def _title(text):
    """An ``xlink:title`` attribute holding ``text`` (line breaks as dot writes them)."""
    return 'xlink:title="' + markup.text(text).replace("\n", "&#10;") + '"'


def state_svg(svg, frame):
    """The annotated ``svg`` as frame ``frame`` shows it: rows not known yet removed, edges
    whose gradient has not arrived grey, the operation being evaluated highlighted."""
    svg = re.sub(r'<text\b[^>]*\bdata-at="(\d+)"[^>]*>.*?</text>\n?',
                 lambda m: "" if int(m.group(1)) > frame else m.group(0), svg, flags=re.S)

    def group(m):
        head = m.group(0)
        classes = []
        sent = re.search(r'data-sent="(\d+)"', head)
        if sent and int(sent.group(1)) > frame:
            classes.append("vz-pending")
        hl = re.search(r'data-hl="([\d ]+)"', head)
        if hl and str(frame) in hl.group(1).split():
            classes.append("vz-hl")
        if not classes:
            return head
        return head.replace('class="', f'class="{" ".join(classes)} ', 1)

    def tips(m):
        lines = json.loads(html.unescape(m.group(2)))
        title = _title(tip_at(lines, frame))
        return m.group(1) + _TITLE.sub(lambda _: title, m.group(3))
    svg = re.sub(r'(<g id="[^"]*" class="(?:node|edge)"[^>]*data-tip="([^"]*)"[^>]*>)'
                 r'(.*?)(?=<g id="[^"]*" class="(?:node|edge|cluster)"|</svg>)', tips, svg,
                 flags=re.S)
    svg = re.sub(r'<g id="[^"]*" class="(?:node|edge)"[^>]*>', group, svg)
    return _with_style(svg, PICTURE_STYLE)


def _with_style(svg, css):
    """``svg`` with a ``<style>`` element right after its opening tag."""
    m = re.search(r"<svg\b[^>]*>", svg)
    return svg[:m.end()] + f"\n<style>{css}</style>" + svg[m.end():]


def inline(svg, prefix):
    """SVG from ``dot`` made fit for inlining in HTML: no XML prolog or doctype, no namespace
    declarations (HTML needs none), every id made unique with ``prefix``, sized in CSS px."""
    svg = re.sub(r"^.*?(?=<svg\b)", "", svg, count=1, flags=re.S)
    svg = re.sub(r'\s+xmlns(?::\w+)?="[^"]*"', "", svg)
    svg = re.sub(r'\bid="', f'id="{prefix}-', svg)

    def px(m):
        return f'{m.group(1)}="{float(m.group(2)) * PT_TO_PX:.0f}px"'
    head = re.search(r"<svg\b[^>]*>", svg)
    opening = re.sub(r'\b(width|height)="([\d.]+)pt"', px, head.group(0))
    return svg[:head.start()] + opening + svg[head.end():]


# The picture is scaled by its transform alone: hosts cap an output's svg at max-width: 100%
# (JupyterLab does), which would shrink it a second time.
VIEW_STYLE = """
#{uid} .vz-view {{ position: relative; overflow: auto; width: 100%; border: 1px solid #ddd;
  background: white; cursor: grab; }}
#{uid} .vz-view.vz-dragging {{ cursor: grabbing; }}
#{uid} .vz-sizer {{ position: relative; }}
#{uid} .vz-sizer > svg {{ position: absolute; left: 0; top: 0; transform-origin: 0 0;
  max-width: none; max-height: none; }}
#{uid} .vz-zoom {{ display: flex; gap: 4px; margin: 4px 0; align-items: center;
  font-family: Helvetica, Arial, sans-serif; font-size: 13px; color: #555; }}
#{uid} .vz-zoom button {{ font-size: 13px; padding: 1px 8px; cursor: pointer; }}
"""

# The view is a scrolling box holding the picture at scale s: a tall or wide picture opens at
# a readable scale and scrolls inside its box (scroll bars, drag) instead of shrinking. The
# mouse wheel belongs to the page, as on a map embedded in a page: it scrolls past the picture
# unless the picture was clicked (it then has the focus) or Ctrl / Cmd is held; then the
# wheel zooms about the pointer.
VIEW_SCRIPT = """
(function () {{
  var root = document.getElementById("{uid}");
  root.querySelector(".vz-live").style.display = "";          // the script runs: no still
  root.removeChild(root.querySelector(".vz-still"));
  var view = root.querySelector(".vz-view"), sizer = view.querySelector(".vz-sizer");
  var svg = sizer.querySelector("svg");
  var w = parseFloat(svg.getAttribute("width")), h = parseFloat(svg.getAttribute("height"));
  var vb = svg.viewBox.baseVal, unit = vb && vb.width ? w / vb.width : 1;
  var smallest = Infinity;
  svg.querySelectorAll("text").forEach(function (t) {{
    var f = parseFloat(t.getAttribute("font-size"));
    if (f < smallest) smallest = f;
  }});
  // 0.1% above the exact scale: the picture's px size is rounded to whole pixels
  var readable = isFinite(smallest) ? 1.001 * {min_px} / (smallest * unit) : 0;
  var s = 1, engaged = false;
  function apply() {{
    sizer.style.width = w * s + "px"; sizer.style.height = h * s + "px";
    svg.style.transform = "scale(" + s + ")";
    root.querySelector(".vz-scale").textContent = Math.round(100 * s) + "%";
  }}
  function fitScale() {{ return Math.min(1, view.clientWidth / w); }}
  // The box takes at most 80% of ``room`` and leaves room for what is above it in the view (a
  // player's buttons, its frame's text, a quiz's questions, the zoom buttons): the whole view
  // fits on the screen.
  function boxHeight(room) {{
    var above = view.getBoundingClientRect().top - root.getBoundingClientRect().top;
    view.style.height = Math.min(h * s + 20,
                                 Math.max(240, Math.min(room * 0.8, room - above - 8))) + "px";
  }}
  function fitBox() {{
    boxHeight(window.innerHeight);
    // in a notebook the page scrolls inside a panel lower than the window: the box fits in it
    var scroller = pageScroller();
    if (scroller !== (document.scrollingElement || document.documentElement)) {{
      boxHeight(Math.min(window.innerHeight, scroller.clientHeight));
    }}
  }}
  root.vzFitBox = fitBox;       // again when what is above the box changes height
  function start() {{
    s = Math.max(fitScale(), Math.min(1, readable));
    apply(); fitBox();
    view.scrollLeft = 0; view.scrollTop = 0;
  }}
  function zoom(f, cx, cy) {{
    var n = Math.max(0.05, Math.min(8, s * f));
    var px = (view.scrollLeft + cx) / s, py = (view.scrollTop + cy) / s;
    s = n; apply();
    view.scrollLeft = px * s - cx; view.scrollTop = py * s - cy;
  }}
  root.querySelector(".vz-fit").onclick = function () {{
    s = Math.min(view.clientWidth / w, view.clientHeight / h); apply();
  }};
  root.querySelector(".vz-one").onclick = function () {{ s = 1; apply(); }};
  root.querySelector(".vz-in").onclick = function () {{ zoom(1.25, 0, 0); }};
  root.querySelector(".vz-out").onclick = function () {{ zoom(0.8, 0, 0); }};
  function pageScroller() {{
    // the element that scrolls the page around the picture (a notebook's panel, or the page)
    for (var p = root.parentElement; p; p = p.parentElement) {{
      var o = getComputedStyle(p).overflowY;
      if ((o === "auto" || o === "scroll") && p.scrollHeight > p.clientHeight) return p;
    }}
    return document.scrollingElement || document.documentElement;
  }}
  root.vzPageScroller = pageScroller;
  view.addEventListener("wheel", function (e) {{
    if (!(engaged || e.ctrlKey || e.metaKey)) {{             // the page scrolls ...
      if (view.scrollHeight > view.clientHeight || view.scrollWidth > view.clientWidth) {{
        var k = e.deltaMode === 1 ? 16 : e.deltaMode === 2 ? window.innerHeight : 1;
        pageScroller().scrollBy(e.deltaX * k, e.deltaY * k);  // ... past a box that scrolls too
        e.preventDefault();
      }}
      return;
    }}
    var r = view.getBoundingClientRect();
    zoom(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX - r.left, e.clientY - r.top);
    e.preventDefault();
  }}, {{passive: false}});
  root.addEventListener("focusout", function (e) {{
    if (!root.contains(e.relatedTarget)) engaged = false;
  }});
  var drag = null;
  view.addEventListener("pointerdown", function (e) {{
    engaged = true; root.focus({{preventScroll: true}});
    drag = [e.clientX + view.scrollLeft, e.clientY + view.scrollTop];
    view.classList.add("vz-dragging");
  }});
  window.addEventListener("pointermove", function (e) {{
    if (drag) {{ view.scrollLeft = drag[0] - e.clientX; view.scrollTop = drag[1] - e.clientY; }}
  }});
  window.addEventListener("pointerup", function () {{
    drag = null; view.classList.remove("vz-dragging");
  }});
  // Bring ``els`` (the operation a frame evaluates, the edges a quiz asks about) into the box:
  // scroll it so that they all show, or, when they cannot, so that the first is centred. The
  // scale stays the reader's; the page itself does not move.
  root.vzReveal = function (els) {{
    var vr = view.getBoundingClientRect(), box = null, first = null;
    els.forEach(function (el) {{
      var r = el.getBoundingClientRect();
      if (!r.width && !r.height) return;
      var b = [r.left - vr.left + view.scrollLeft, r.top - vr.top + view.scrollTop,
               r.right - vr.left + view.scrollLeft, r.bottom - vr.top + view.scrollTop];
      if (!first) first = b;
      box = box ? [Math.min(box[0], b[0]), Math.min(box[1], b[1]), Math.max(box[2], b[2]),
                   Math.max(box[3], b[3])] : b;
    }});
    if (!box || !view.clientWidth || !view.clientHeight) return;
    var m = 24, W = view.clientWidth, H = view.clientHeight;
    if (box[2] - box[0] + 2 * m > W || box[3] - box[1] + 2 * m > H) box = first;
    function into(lo, hi, at, size) {{
      if (hi - lo + 2 * m > size) return (lo + hi) / 2 - size / 2;
      if (lo - m < at) return lo - m;
      if (hi + m > at + size) return hi + m - size;
      return at;
    }}
    view.scrollLeft = into(box[0], box[2], view.scrollLeft, W);
    view.scrollTop = into(box[1], box[3], view.scrollTop, H);
  }};
  start();
}})();
"""


def new_uid():
    """A fresh id for one view on a page (a notebook shows many)."""
    return f"vz-view-{next(_COUNTER)}"


def view_html(svg, uid=None, extra_style="", before="", after_script="", role="vz-drawing",
              still=None, still_note="run the cell to pan and zoom"):
    """An HTML fragment showing ``svg`` (dot's output) in a pan-and-zoom view (see the module
    docstring). ``before`` goes above the picture, ``after_script`` runs after the view's
    script (the player's frame switching); ``role`` is a class of the outer element.

    ``still`` (default ``svg``) is the SVG shown, with ``still_note`` under it, where the
    script does not run; the view itself stays hidden there (its inline SVG would be stripped
    to a run of loose text)."""
    uid = uid or new_uid()
    return "\n".join([
        f'<div id="{uid}" class="vz-viewer {role}" tabindex="0">',
        f"<style>{VIEW_STYLE.format(uid=uid)}{extra_style}</style>",
        still_html(still or svg, still_note),
        '<div class="vz-live" style="display: none">',
        before,
        '<div class="vz-zoom"><button type="button" class="vz-fit" title="whole picture">'
        'fit</button><button type="button" class="vz-one">100%</button>'
        '<button type="button" class="vz-out" title="zoom out">−</button>'
        '<button type="button" class="vz-in" title="zoom in">+</button>'
        '<span class="vz-scale"></span><span>drag to move; click, then wheel to zoom '
        '(or Ctrl + wheel)</span></div>',
        f'<div class="vz-view"><div class="vz-sizer">{inline(svg, uid)}</div></div>',
        "</div>",
        f"<script>{VIEW_SCRIPT.format(uid=uid, min_px=MIN_LABEL_PX)}{after_script}</script>",
        "</div>"])


def still_html(svg, note):
    """``svg`` as an image (a data URI, which sanitizers keep) at its natural size in a box that
    scrolls (at most STILL_HEIGHT_PX high), and ``note`` under it in grey: the still picture a
    view shows where its script does not run. Inline styles only: a sanitizer drops style
    elements but keeps these (JupyterLab's drops a height in vh, so it is in px)."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    return (f'<div class="vz-still"><div style="overflow: auto; max-height: {STILL_HEIGHT_PX}px">'
            '<img alt="compute graph" style="max-width: none; max-height: none" '
            f'src="data:image/svg+xml;base64,{data}"></div>'
            '<div style="font-family: Helvetica, Arial, sans-serif; font-size: 13px; '
            f'color: #666">A still picture: {markup.text(note)}.</div></div>')


def page(fragment, title):
    """A complete HTML document around ``fragment``."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{markup.text(title)}</title>\n</head>\n<body>\n{fragment}\n"
            "</body>\n</html>\n")
