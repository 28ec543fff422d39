"""``viz.player(frames, quiz=True)``: predict, then reveal. In each backward frame the δ's the
highlighted operation sends along its input edges stay hidden until the student finds them:

* a right value (within ``tol``) is marked right and appears in the picture;
* a wrong one is marked wrong, in words, with what it looks like (the δ of the operation's
  other input: swapped; the right one's negative) and the local rule written with the graph's
  names and numbers (``δ_w = δ_out · x = (-1.997) · 0.5``, ``viz.rules``), never the δ itself;
  the δ stays hidden and the student tries again;
* "show" gives the δ; it counts as shown (a wrong try before it stays wrong), and a value
  typed after it is not counted.

Nothing else on the page gives an unanswered δ away: its edge label, its tooltip, the total it
completes and the colour legend's numbers (the range of every δ) stay hidden. An edge is asked
about when its δ has at most ``MAX_ELEMENTS`` elements (typed as a number, or a list such as
``[0.5, 1, 1.5]``); larger ones are shown as usual. The seed δ into the output is not asked.
"""
import numpy as np

from . import labels
from . import markup
from .columns import PREFIX as STEP
from .rules import Symbols, rule_text

MAX_ELEMENTS = 4


def questions(frames):
    """The questions of a step-through, one per quizzed edge: the frame that asks it, the SVG
    ids of the edge and of the tensor's box, the δ it asks for by the tensor's name, where
    (the operations, the input, the time step), the right value, the rule with the graph's
    names and numbers, and the δ's of the operation's other inputs (a swap is named)."""
    picture = frames[0].picture
    graph, timeline = picture.graph, picture.timeline
    backward = {f.index for f in frames if f.phase == "backward"}
    asked = []
    for i, e in enumerate(graph.edges):
        frame = timeline.sent_at.get(i)
        if frame not in backward or e.grad is None or e.dst == graph.root:
            continue
        g = np.asarray(e.grad)
        if g.size > MAX_ELEMENTS:
            continue
        src, dst = graph[e.src], graph[e.dst]
        symbols = Symbols(graph, dst)
        asked.append({
            "frame": frame, "edge": f"vz_e{i}", "node": f"vz_{src.id}",
            "name": f"δ_{symbols.of(e.slot)}", "where": _where(src, dst, e),
            "label": f"{src.name} → {dst.name}",
            "slot": e.slot, "shape": labels.shape(g.shape) if g.ndim else "",
            "values": [float(v) for v in g.reshape(-1)],
            "right": labels.array(g, MAX_ELEMENTS),
            "rule": rule_text(graph, dst, e),
            "others": [{"name": f"δ_{symbols.of(o.slot)}",
                        "values": [float(v) for v in np.asarray(o.grad).reshape(-1)]}
                       for o in graph.edges_into(dst.id)
                       if o is not e and o.grad is not None and np.size(o.grad) == g.size
                       and symbols.of(o.slot) != symbols.of(e.slot)],
        })
    return asked


def _where(src, dst, edge):
    """"w → Mul, input 1, t = 2": the edge by its operations, input and time step."""
    step = ""
    for node in (dst, src):
        last = (node.module or "").rpartition(".")[2]
        if last.startswith(STEP):
            step = f", {last}"
            break
    return f"{src.name} → {dst.name}, input {edge.slot}{step}"


STYLE = """
#{uid} .vz-quiz {{ margin: 2px 0 8px; }}
#{uid} .vz-q {{ display: none; margin: 4px 0; padding: 4px 8px; border-left: 3px solid #e65100;
  background: #fff8e1; }}
#{uid} .vz-q.vz-current {{ display: block; }}
#{uid} .vz-q input {{ font-size: 14px; width: 12em; margin: 0 4px; }}
#{uid} .vz-q button {{ font-size: 13px; padding: 1px 8px; cursor: pointer; }}
#{uid} .vz-q-feedback {{ margin-top: 3px; white-space: pre-wrap; }}
#{uid} .vz-q.vz-right .vz-q-feedback {{ color: #1b5e20; }}
#{uid} .vz-q.vz-wrong .vz-q-feedback {{ color: #b71c1c; }}
#{uid} .vz-quiz-note {{ display: none; color: #555; margin: 4px 0; }}
#{uid} .vz-quiz-note.vz-current {{ display: block; }}
#{uid} .vz-quiz-score {{ color: #555; font-size: 12px; }}
.vz-quiz-hidden {{ visibility: hidden; }}
.vz-ask path, .vz-ask polygon {{ stroke: #e65100 !important; stroke-width: 3 !important; }}
.vz-ask polygon {{ fill: #e65100 !important; }}
"""

SCRIPT = """
(function () {{
  var root = document.getElementById("{uid}");
  var asked = {questions}, tol = {tol};
  // per question: null (open), "right", "wrong" (tried, not found yet), "shown"; and whether
  // a wrong try came first (a δ shown after a wrong try stays wrong in the score)
  var state = asked.map(function () {{ return null; }});
  var missed = asked.map(function () {{ return false; }});
  var items = root.querySelectorAll(".vz-q"), notes = root.querySelectorAll(".vz-quiz-note");
  var score = root.querySelector(".vz-quiz-score");
  var legend = root.querySelectorAll("text[data-legend]");
  function group(id) {{ return root.querySelector("#{uid}-" + id); }}
  function parse(text) {{
    var parts = text.split(/[\\s,;\\[\\]()]+/).filter(function (s) {{ return s.length; }});
    var nums = parts.map(function (s) {{ return Number(s.replace("\\u2212", "-")); }});
    return nums.length && nums.every(isFinite) ? nums : null;
  }}
  function close(got, want) {{
    if (got.length !== want.length) return false;
    var big = Math.max.apply(null, want.map(Math.abs));
    return want.every(function (v, k) {{
      return Math.abs(got[k] - v) <= tol * Math.max(Math.abs(v), 1e-3 * big, 1e-12);
    }});
  }}
  function found(k) {{ return state[k] === "right" || state[k] === "shown"; }}
  function refresh() {{
    var frame = +root.dataset.frame;
    var hold = {{}};            // a box's δ's stay hidden from the frame of its first unfound δ
    asked.forEach(function (q, k) {{
      var e = group(q.edge), unfound = !found(k);
      e.classList.toggle("vz-ask", q.frame === frame && unfound);
      e.querySelectorAll('text[data-at="' + q.frame + '"]').forEach(function (t) {{
        t.classList.toggle("vz-quiz-hidden", unfound);
      }});
      if (e.vzTip) root.vzTip(e, frame, unfound ? q.frame : null);
      if (unfound) hold[q.node] = Math.min(q.frame, q.node in hold ? hold[q.node] : Infinity);
      items[k].classList.toggle("vz-current", q.frame === frame);
    }});
    asked.forEach(function (q) {{
      var n = group(q.node), from = q.node in hold ? hold[q.node] : null;
      n.querySelectorAll("text[data-at]").forEach(function (t) {{
        t.classList.toggle("vz-quiz-hidden", from !== null && +t.dataset.at >= from);
      }});
      if (n.vzTip) root.vzTip(n, frame, from);
    }});
    // the legend's numbers are the range of every δ: hidden until every δ asked is found
    var done = asked.every(function (q, k) {{ return found(k); }});
    legend.forEach(function (t) {{ t.classList.toggle("vz-quiz-hidden", !done); }});
    notes.forEach(function (n) {{
      n.classList.toggle("vz-current", n.dataset.frames.split(" ").indexOf(String(frame)) >= 0);
    }});
    var right = 0, wrong = 0, shown = 0;
    asked.forEach(function (q, k) {{
      if (state[k] === "right") right++;
      else if (state[k] === "wrong" || (state[k] === "shown" && missed[k])) wrong++;
      else if (state[k] === "shown") shown++;
    }});
    score.textContent = "Your answers: " + right + " right, " + wrong + " wrong, " + shown +
      " shown (of " + asked.length + " δ's asked).";
  }}
  // What the feedback line says: "right", "wrong" (with what a wrong value looks like),
  // "shown", "late" (typed after show) or "count" (not the δ's number of elements).
  function message(q, kind, typed, hint) {{
    var rule = "\\nThe rule: " + q.rule;
    if (kind === "right") return "\\u2713 right: " + q.name + " = " + q.right + rule;
    if (kind === "wrong") return "\\u2717 wrong: you wrote " + typed + ". " +
      (hint ? hint + " " : "") + "Try again, or press show." + rule;
    if (kind === "shown") return q.name + " = " + q.right + " (shown)" + rule;
    if (kind === "late") return q.name + " = " + q.right + " was shown: a value typed now " +
      "is not counted." + rule;
    return (q.values.length > 1 ? "This δ has " + q.values.length + " elements: type " +
      q.values.length + " numbers, such as [1, 2" + (q.values.length > 2 ? ", …]" : "]") :
      "Type one number") + ", then press check.";
  }}
  var SIGN = "It has the wrong sign.";
  function swapped(q, other) {{
    return "That is " + other.name + ", the δ this operation sends to its other input: the " +
      "question is " + q.name + ".";
  }}
  function looksLike(q, got) {{
    var other = q.others.filter(function (o) {{ return close(got, o.values); }})[0];
    if (other) return swapped(q, other);
    if (close(got, q.values.map(function (v) {{ return -v; }}))) return SIGN;
    return "";
  }}
  function answer(k, reveal) {{
    var q = asked[k], item = items[k], box = item.querySelector("input");
    var feedback = item.querySelector(".vz-q-feedback");
    if (reveal) {{
      if (state[k] !== "right") state[k] = "shown";
      item.classList.remove("vz-wrong");
      feedback.textContent = message(q, "shown");
      refresh();
      return;
    }}
    if (state[k] === "shown") {{
      feedback.textContent = message(q, "late");
      return;
    }}
    var got = parse(box.value);
    if (got === null || got.length !== q.values.length) {{
      feedback.textContent = message(q, "count");
      return;
    }}
    var right = close(got, q.values);
    if (!right) missed[k] = true;
    state[k] = right ? "right" : "wrong";
    item.classList.toggle("vz-right", right);
    item.classList.toggle("vz-wrong", !right);
    feedback.textContent = right ? message(q, "right") :
      message(q, "wrong", box.value.trim(), looksLike(q, got));
    refresh();
  }}
  // The panel keeps the height of its tallest frame at the player's width, every question
  // measured with its longest answer (a wrong try, its hint and the rule): neither a question
  // appearing nor its answer moves the picture below (measured again on a resize).
  var panel = root.querySelector(".vz-quiz"), panelWidth = -1;
  var panelFrames = asked.map(function (q) {{ return q.frame; }});
  notes.forEach(function (n) {{
    panelFrames = panelFrames.concat(n.dataset.frames.split(" ").map(Number));
  }});
  function longestAnswers(q) {{
    var hints = q.others.map(function (o) {{ return swapped(q, o); }}).concat([SIGN]);
    return ["right", "shown", "late", "count"].map(function (kind) {{ return message(q, kind); }})
      .concat(hints.map(function (h) {{ return message(q, "wrong", q.right, h); }}));
  }}
  function reservePanel() {{
    if (!panel.offsetWidth || panel.offsetWidth === panelWidth) return;
    panelWidth = panel.offsetWidth;
    panel.style.minHeight = "";
    var kept = [];
    items.forEach(function (item, k) {{
      var feedback = item.querySelector(".vz-q-feedback"), tallest = -1, chosen = "";
      kept.push(feedback.textContent);
      item.classList.add("vz-current");
      longestAnswers(asked[k]).forEach(function (text) {{
        feedback.textContent = text;
        if (item.offsetHeight > tallest) {{ tallest = item.offsetHeight; chosen = text; }}
      }});
      feedback.textContent = chosen;
    }});
    var tallest = 0;
    panelFrames.forEach(function (f) {{
      items.forEach(function (item, k) {{
        item.classList.toggle("vz-current", asked[k].frame === f);
      }});
      notes.forEach(function (n) {{
        n.classList.toggle("vz-current", n.dataset.frames.split(" ").indexOf(String(f)) >= 0);
      }});
      tallest = Math.max(tallest, panel.offsetHeight);
    }});
    items.forEach(function (item, k) {{
      item.querySelector(".vz-q-feedback").textContent = kept[k];
    }});
    panel.style.minHeight = tallest + "px";
    refresh();
    root.vzFitBox();
  }}
  items.forEach(function (item, k) {{
    item.querySelector(".vz-q-check").onclick = function () {{ answer(k, false); }};
    item.querySelector(".vz-q-show").onclick = function () {{ answer(k, true); }};
    item.querySelector("input").addEventListener("keydown", function (e) {{
      if (e.key === "Enter") {{ answer(k, false); e.preventDefault(); }}
    }});
  }});
  root.addEventListener("vz-frame", refresh);
  refresh();
  reservePanel();
  if ("ResizeObserver" in window) new ResizeObserver(reservePanel).observe(root);
}})();
"""


def quiz_parts(frames, uid, tol):
    """(HTML above the picture, CSS, script) of the quiz for a player with id ``uid``."""
    asked = questions(frames)
    blocks = []
    for k, q in enumerate(asked):
        shape = f", shape {q['shape']}" if q["shape"] else ""
        what = (f"<b>{markup.text(q['name'])}</b>, the δ on the edge "
                f"{markup.text(q['where'])}{shape} (drawn in orange)?")
        blocks.append(
            f'<div class="vz-q" data-q="{k}"><span>{what}</span>'
            f'<input type="text" aria-label="your {markup.text(q["name"])} '
            f'({markup.text(q["where"])})" '
            f'placeholder="{"[…, …]" if len(q["values"]) > 1 else "a number"}">'
            f'<button type="button" class="vz-q-check">check</button> '
            f'<button type="button" class="vz-q-show">show</button>'
            f'<div class="vz-q-feedback" role="status"></div></div>')
    quizzed = {q["frame"] for q in asked}
    silent = [f.index for f in frames if f.phase == "backward" and f.index not in quizzed]
    forward = [f.index for f in frames if f.phase == "forward"]
    notes = [
        (forward, "Forward pass. In the backward frames you will be asked for each δ before "
                  "it is shown."),
        (silent, "No question in this frame (its δ's are too large to type)."),
    ]
    for frames_of_note, text in notes:
        if frames_of_note:
            blocks.append(f'<div class="vz-quiz-note" data-frames="'
                          f'{" ".join(map(str, frames_of_note))}">{markup.text(text)}</div>')
    blocks.append('<div class="vz-quiz-score"></div>')
    panel = f'<div class="vz-quiz">{"".join(blocks)}</div>'
    data = markup.script_json(asked)
    return panel, STYLE.format(uid=uid), SCRIPT.format(uid=uid, questions=data, tol=float(tol))
