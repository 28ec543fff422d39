"""``viz.player(frames, quiz=True)``: predict, then reveal. In each backward frame the δ's the
highlighted operation sends along its input edges stay hidden until the student types a value
for each; a right one (within ``tol``) is marked right, a wrong one is marked wrong, in words,
and shown with the right value and the local rule that gives it (``LOCAL_RULES``).

An edge is asked about when its δ has at most ``MAX_ELEMENTS`` elements (typed as a number, or
a list such as ``[0.5, 1, 1.5]``); larger ones are shown as usual. The seed δ into the output
is not asked.
"""
import numpy as np

from . import labels
from . import markup

MAX_ELEMENTS = 4

# The local rule per operation and input: δ_in = δ_out times the local derivative ∂out/∂in.
# Inputs are a, b (binary operations) or x (unary ones); "out" is the operation's output.
LOCAL_RULES = {
    "Add": ("δ_a = δ_out", "δ_b = δ_out"),
    "Sub": ("δ_a = δ_out", "δ_b = −δ_out"),
    "Mul": ("δ_a = δ_out · b", "δ_b = δ_out · a"),
    "Div": ("δ_a = δ_out / b", "δ_b = −δ_out · a / b²"),
    "Neg": ("δ_x = −δ_out",),
    "Pow": ("δ_a = δ_out · b · a^(b−1)", "δ_b = δ_out · out · log a"),
    "Exp": ("δ_x = δ_out · out",),
    "Log": ("δ_x = δ_out / x",),
    "Sqrt": ("δ_x = δ_out / (2 · out)",),
    "Abs": ("δ_x = δ_out · sign(x)",),
    "Sin": ("δ_x = δ_out · cos x",),
    "Cos": ("δ_x = −δ_out · sin x",),
    "Tanh": ("δ_x = δ_out · (1 − out²)",),
    "Sigmoid": ("δ_x = δ_out · out · (1 − out)",),
    "Relu": ("δ_x = δ_out · [x > 0]",),
    "Sum": ("δ_x = δ_out, copied to every element that was summed",),
    "Mean": ("δ_x = δ_out / n, copied to every element of the n averaged",),
    "MatMul": ("δ_a = δ_out @ bᵀ", "δ_b = aᵀ @ δ_out"),
}
SYMBOLS = {1: ("x",), 2: ("a", "b")}
# the operation names of other engines (viz.foreign, micrograd's Value) with a rule above
FOREIGN_NAMES = {"+": "Add", "add": "Add", "*": "Mul", "mul": "Mul", "-": "Sub", "sub": "Sub",
                 "/": "Div", "div": "Div", "neg": "Neg", "tanh": "Tanh", "exp": "Exp",
                 "log": "Log", "relu": "Relu", "sigmoid": "Sigmoid"}


def questions(frames):
    """The questions of a step-through, one per quizzed edge: the frame that asks it, the
    SVG ids of the edge and of the tensor's box, what to call it, the right value and the
    rule with the numbers that give it."""
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
        asked.append({
            "frame": frame, "edge": f"vz_e{i}", "node": f"vz_{src.id}",
            "label": f"{src.name} → {dst.name}",
            "slot": e.slot, "shape": labels.shape(g.shape) if g.ndim else "",
            "values": [float(v) for v in g.reshape(-1)],
            "right": labels.array(g, MAX_ELEMENTS),
            "rule": rule_text(graph, dst, e),
        })
    return asked


def rule_text(graph, op, edge):
    """The local rule that gives the δ on ``edge`` (into operation ``op``), with the numbers:
    ``δ_a = δ_out · b, with δ_out = 2 and b = 3``."""
    inputs = sorted(graph.edges_into(op.id), key=lambda e: e.slot)
    count = max((e.slot for e in inputs), default=0) + 1
    rules = LOCAL_RULES.get(op.name) or LOCAL_RULES.get(FOREIGN_NAMES.get(op.name.lower()))
    if rules is None and op.name.startswith("**"):        # micrograd's power x ** k
        rules = (f"δ_x = δ_out · {op.name[2:]} · x^({op.name[2:]} − 1)",)
    if rules is None or len(rules) != count or edge.slot >= len(rules):
        part = _derivative_part(op.formula)
        rule = (f"δ = δ_out · (the local derivative: {part})" if part else
                "δ = δ_out · ∂out/∂(this input)")
        symbols = ()
    else:
        rule = rules[edge.slot]
        symbols = SYMBOLS.get(count, ())
    known = []
    if op.grad is not None:
        known.append(f"δ_out = {labels.array(op.grad, MAX_ELEMENTS)}")
    for e in inputs:
        if e.slot < len(symbols) and e.value is not None and _mentions(rule, symbols[e.slot]):
            known.append(f"{symbols[e.slot]} = {labels.array(e.value, MAX_ELEMENTS)}")
    if "out" in rule.replace("δ_out", "") and op.value is not None:
        known.append(f"out = {labels.array(op.value, MAX_ELEMENTS)}")
    text = rule + (", with " + ", ".join(known) if known else "")
    if edge.shape is not None and op.grad is not None and \
            tuple(edge.shape) != tuple(np.shape(op.grad)) and op.name not in ("Sum", "Mean",
                                                                               "MatMul"):
        text += " (summed over the axes the input was broadcast along)"
    return text


def _mentions(rule, symbol):
    """Does the right-hand side of ``rule`` use input ``symbol``?"""
    rhs = rule.split("=", 1)[-1]
    return any(tok == symbol for tok in
               rhs.replace("·", " ").replace("/", " ").replace("(", " ").replace(")", " ")
               .replace("^", " ").replace("@", " ").replace("ᵀ", " ").replace("²", " ")
               .replace("[", " ").replace("]", " ").replace(">", " ").split())


def _derivative_part(formula):
    return labels.formula_part(formula, "backward") if formula else ""


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
  var state = asked.map(function () {{ return null; }});
  var items = root.querySelectorAll(".vz-q"), notes = root.querySelectorAll(".vz-quiz-note");
  var score = root.querySelector(".vz-quiz-score");
  function group(id) {{ return root.querySelector("#{uid}-" + id); }}
  function parse(text) {{
    var parts = text.split(/[\\s,;\\[\\]()]+/).filter(function (s) {{ return s.length; }});
    var nums = parts.map(Number);
    return nums.length && nums.every(isFinite) ? nums : null;
  }}
  function close(got, want) {{
    var big = Math.max.apply(null, want.map(Math.abs));
    return want.every(function (v, k) {{
      return Math.abs(got[k] - v) <= tol * Math.max(Math.abs(v), 1e-3 * big, 1e-12);
    }});
  }}
  function refresh() {{
    var frame = +root.dataset.frame;
    var pending = {{}};
    asked.forEach(function (q, k) {{
      var open = q.frame === frame && state[k] === null;
      if (open) {{ pending[q.node] = true; }}
      var e = group(q.edge);
      e.classList.toggle("vz-ask", q.frame === frame && state[k] === null);
      e.querySelectorAll('text[data-at="' + q.frame + '"]').forEach(function (t) {{
        t.classList.toggle("vz-quiz-hidden", open);
      }});
      items[k].classList.toggle("vz-current", q.frame === frame);
    }});
    asked.forEach(function (q, k) {{
      var held = !!pending[q.node] && q.frame === frame;
      group(q.node).querySelectorAll('text[data-at="' + q.frame + '"]').forEach(function (t) {{
        t.classList.toggle("vz-quiz-hidden", held);
      }});
      // tooltips keep an unanswered δ out too (the edge's, and the total it completes)
      var e = group(q.edge), n = group(q.node);
      if (e.vzTip) root.vzTip(e, frame, q.frame === frame && state[k] === null ? frame : null);
      if (n.vzTip && q.frame === frame) root.vzTip(n, frame, held ? frame : null);
    }});
    notes.forEach(function (n) {{
      n.classList.toggle("vz-current", n.dataset.frames.split(" ").indexOf(String(frame)) >= 0);
    }});
    function count(v) {{ return state.filter(function (s) {{ return s === v; }}).length; }}
    score.textContent = "Your answers: " + count("right") + " right, " + count("wrong") +
      " wrong (of " + asked.length + " δ's asked; your last answer to each counts).";
  }}
  function answer(k, reveal) {{
    var q = asked[k], item = items[k], box = item.querySelector("input");
    var feedback = item.querySelector(".vz-q-feedback");
    var got = parse(box.value);
    if (!reveal && (got === null || got.length !== q.values.length)) {{
      feedback.textContent = (q.values.length > 1 ? "This δ has " + q.values.length +
        " elements: type " + q.values.length + " numbers, such as [1, 2" +
        (q.values.length > 2 ? ", …]" : "]") : "Type one number") + ", then press check.";
      return;
    }}
    var right = !reveal && close(got, q.values);
    state[k] = reveal ? "shown" : right ? "right" : "wrong";
    item.classList.toggle("vz-right", right);
    item.classList.toggle("vz-wrong", !right && !reveal);
    feedback.textContent = (right ? "\\u2713 right: δ = " + q.right :
      reveal ? "δ = " + q.right :
      "\\u2717 wrong: you wrote " + box.value.trim() + ", but δ = " + q.right) +
      "\\nrule: " + q.rule;
    refresh();
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
}})();
"""


def quiz_parts(frames, uid, tol):
    """(HTML above the picture, CSS, script) of the quiz for a player with id ``uid``."""
    asked = questions(frames)
    blocks = []
    for k, q in enumerate(asked):
        shape = f", shape {q['shape']}" if q["shape"] else ""
        what = (f"δ on the edge <b>{markup.text(q['label'])}</b> (input {q['slot']}{shape}, "
                f"drawn in orange)?")
        blocks.append(
            f'<div class="vz-q" data-q="{k}"><span>{what}</span>'
            f'<input type="text" aria-label="your δ for {markup.text(q["label"])}" '
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
