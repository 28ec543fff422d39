"""Hostile text for the escaping tests: strings that would be markup, script or a Graphviz
escape if viz let them through, and graphs that carry one of them on every surface a name
reaches (module paths, Function names, docstrings, tensor names, ``names=`` keys, foreign
values' ``_op`` and label). Each payload sets ``top.__pwned`` or opens a dialog if it ever runs;
none has a ``.`` (a module name cannot)."""
import numpy as np

from dagrad import autograd as ag, nn
from dagrad.autograd import Function

from .micrograd_style import Value

PAYLOADS = {
    "html_label": '<<TABLE HREF="javascript:alert(1)"><TR><TD>Linear</TD></TR></TABLE>>',
    "dot_attribute": "<x> URL=\"javascript:top['__pwned']=2\" z=<y>",
    "script": "<script>top['__pwned']=3</script>",
    "event_handler": "<img src=x onerror=\"top['__pwned']=4\">",
    "quote_break": "a\" URL=\"javascript:alert(5)\" tooltip=\"b",
    "escapes": "\\N \\G \\E \\T \\H \\L \\l \\n \\r end\\",
    "entities": "&lt;b&gt; &amp; &#x27; &quot;",
    "script_end": "</script><!--<script>",
    "control": "bell\x07esc\x1b",
}


def shown(payload):
    """What a person must read where ``payload`` is shown: the payload itself, with control
    characters written out."""
    return payload.replace("\x07", "\\x07").replace("\x1b", "\\x1b")


def function_named(name, doc):
    """A ``Function`` subclass called ``name`` (a class name can be any string through
    ``type``) whose docstring, the formula viz shows, is ``doc``: y = 3x."""
    def forward(ctx, x):
        return 3 * x

    def backward(ctx, grad):
        return 3 * grad
    return type(name, (Function,), {"__doc__": doc, "forward": forward, "backward": backward})


def graph(payload):
    """A small graph with ``payload`` as a module's name, a Function's name and formula, a
    leaf's name and an intermediate tensor's ``names=`` key: (loss, names, model)."""
    ag.manual_seed(0)
    model = nn.Sequential()
    model.add_module(payload, nn.Linear(2, 2))
    custom = function_named(payload, f"y = 3 x {payload};   dy/dx = 3 {payload}")
    x = ag.tensor([[1.0, -2.0]], requires_grad=True)
    x.name = payload
    hidden = model(x)
    scaled = custom.apply(hidden)
    loss = (scaled * scaled).sum()
    return loss, {payload + " h": scaled}, model


def foreign(payload):
    """A micrograd-style graph whose operation ``_op`` and labels are ``payload``."""
    a, b = Value(2.0, label=payload), Value(-3.0, label="b")
    c = a * b
    c.label = payload
    d = Value(np.tanh(c.data), (c,), payload)      # an operation viz knows no rule for
    d.grad = 1.0
    c.grad = 1 - d.data ** 2
    a.grad, b.grad = c.grad * b.data, c.grad * a.data
    return d


def everything():
    """One graph carrying every payload at once, for the browser: each payload names a
    module, a Function (and its formula), an intermediate tensor and, on the first, the input.
    (loss, names)."""
    ag.manual_seed(0)
    model = nn.Sequential()
    for payload in PAYLOADS.values():
        model.add_module(payload, nn.Linear(2, 2))
    x = ag.tensor([[1.0, -2.0]], requires_grad=True)
    x.name = PAYLOADS["html_label"]
    names, h = {}, x
    for layer, payload in zip(model.children(), PAYLOADS.values()):
        h = function_named(payload, f"y = 3 x {payload};   dy/dx = 3 {payload}").apply(layer(h))
        names[payload + " h"] = h
    return (h * h).sum(), names


def foreign_everything():
    """A micrograd-style chain whose every operation ``_op`` and label is a payload, with the
    gradients its backward would leave."""
    chain = [Value(0.5, label=PAYLOADS["script"])]
    for payload in PAYLOADS.values():         # each value is 0.9 times the one before
        chain.append(Value(0.9 * chain[-1].data, (chain[-1],), payload, label=payload))
    for k, value in enumerate(chain):
        value.grad = 0.9 ** (len(chain) - 1 - k)
    return chain[-1]
