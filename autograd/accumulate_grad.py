"""PyTorch's view of the graph from a node: ``grad_fn.next_functions``.

``next_functions`` is one ``(node, 0)`` pair per input of the operation: the node that made
that input, an ``AccumulateGrad`` for a leaf that requires grad (PyTorch's node that adds the
gradient into the leaf's ``.grad``; ``.variable`` is the leaf), or ``(None, 0)`` for an input
that needs no gradient. Walking it from ``loss.grad_fn`` visits the graph as in PyTorch::

    x = ag.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    y.grad_fn.next_functions                        # ((<Mul>, 0),)
    y.grad_fn.next_functions[0][0].next_functions   # ((<AccumulateGrad ...>, 0), (None, 0))
"""
import weakref

# One AccumulateGrad per leaf, as in PyTorch, for as long as the leaf lives. Keyed by id: a
# WeakKeyDictionary would compare tensors with ==, which is elementwise.
_LEAF_NODES = {}


class AccumulateGrad:
    """The node at a leaf tensor that requires grad: backward adds the gradient arriving here
    into ``variable.grad``. It has no inputs (``next_functions`` is empty)."""

    __slots__ = ("_variable", "__weakref__")
    next_functions = ()

    def __init__(self, leaf):
        self._variable = weakref.ref(leaf)

    @property
    def variable(self):
        """The leaf tensor whose ``.grad`` this node fills."""
        return self._variable()

    def name(self):
        return "torch::autograd::AccumulateGrad"

    def __repr__(self):
        return f"<AccumulateGrad object at {hex(id(self))}>"


def next_functions(node):
    """``node``'s inputs as PyTorch lists them: ``((producer or AccumulateGrad or None, 0),
    ...)``, one pair per input (``Function.parents``: a node, a leaf Tensor or None)."""
    pairs = []
    for parent in getattr(node, "parents", ()):
        if parent is None or hasattr(parent, "parents"):
            pairs.append((parent, 0))
        else:
            pairs.append((_accumulate_grad(parent), 0))
    return tuple(pairs)


def _accumulate_grad(leaf):
    key = id(leaf)
    accumulate = _LEAF_NODES.get(key)
    if accumulate is None or accumulate.variable is not leaf:
        accumulate = _LEAF_NODES[key] = AccumulateGrad(leaf)
        weakref.finalize(leaf, _LEAF_NODES.pop, key, None)
    return accumulate
