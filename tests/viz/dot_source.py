"""Reading viz's DOT source in tests: nodes by name, edges with their labels."""
import re

from dagrad import autograd as ag

_NODE = re.compile(r"^\s*(\w+) \[label=<(.*?)>(?= [\w-]+=|\]$)", re.M)
_EDGE = re.compile(r"^\s*(\w+) -> (\w+) \[(.*)\]$", re.M)
_BOLD = re.compile(r"<B>(.*?)</B>")
_GRAD = re.compile(r"(?:Σ?δ)(?: seed)? ([^<]*)<")


def leaf(value, name, dtype="float32"):
    """A named leaf tensor that requires grad."""
    t = ag.tensor(value, dtype=dtype, requires_grad=True)
    t.name = name
    return t


def node_names(source):
    """{dot id: name shown in bold}."""
    return {m.group(1): _BOLD.search(m.group(2)).group(1) for m in _NODE.finditer(source)}


def node_labels(source):
    return {m.group(1): m.group(2) for m in _NODE.finditer(source)}


def edges(source):
    """[(source name, target name, attribute text)] in file order."""
    names = node_names(source)
    return [(names[m.group(1)], names[m.group(2)], m.group(3)) for m in _EDGE.finditer(source)]


def gradients(label):
    """The δ texts in a label, e.g. ['0.25']."""
    return [g.strip() for g in _GRAD.findall(label)]
