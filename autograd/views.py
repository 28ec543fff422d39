"""Views: tensors that share their memory with another, as PyTorch's do, and how their
histories follow in-place changes.

A view operation (basic indexing, ``view``/``reshape``, ``transpose``/``permute``, ``expand``,
``squeeze``/``unsqueeze``, ``unbind``, ``narrow``, ``diagonal``) whose result shares its
input's memory makes that result a view (``mark_view``): a ``ViewTensor``, a Tensor in every
other respect, whose one field ``_view`` holds a ``View`` record of where it came from. This
module owns that state: marking, the version counter a base shares with its views, regenerating
a view's history and making it stale.

* **One version counter**: a base and its views share the base's ``_version`` (a view reads
  its base's), so an in-place write costs nothing per live view, and a base keeps no list of
  its views.
* **Regenerated lazily**, as in PyTorch: after an in-place change recorded in the graph
  (``y.mul_(2)`` with ``v = y[:2]`` alive), a view's history is out of date. When the view's
  ``grad_fn`` or ``requires_grad`` is next read (by an operation that uses it, a backward, a
  picture), and its base's version moved, its operation is replayed on its parent's current
  history, so ``v``'s gradient flows through the ``mul_``.
* **Stale**: the views PyTorch cannot regenerate (one of several a call returns, ``unbind``;
  one made under ``no_grad``) get, once their base changed, a history whose backward raises
  PyTorch's error.
* **No gradient for a view made under no_grad** of a tensor that requires grad: it requires
  grad, as in PyTorch, but ``collects_gradient`` says it collects none; the engine and the
  reference engine both ask it.
"""
import numpy as np

from .function import Function
from .grad_mode import STATE, enable_grad
from .tensor import make_tensor, Tensor

FIELDS = ("_view",)     # the Tensor fields views declare (tests/test_structure.py reads it)


class View:
    """What a view remembers: ``parent``, the tensor it was taken from; ``op`` and ``attrs``,
    the operation that took it (to replay it); ``base``, the tensor owning the memory
    (``_base``, PyTorch's name); ``no_grad``, taken under ``no_grad`` (or from such a view);
    ``multi_output``, the name of the call that returned it among others (``"unbind"``);
    ``version``, the base's version its history was last made at; ``made_on``, the parent's
    history (``grad_fn``) then; ``parent_shape``, the parent's shape then."""

    __slots__ = ("parent", "op", "attrs", "base", "no_grad", "multi_output", "version",
                 "made_on", "parent_shape")

    def __init__(self, parent, op, attrs, base, no_grad):
        self.parent, self.op, self.attrs, self.base = parent, op, attrs, base
        self.no_grad, self.multi_output = no_grad, None
        self.version, self.made_on = base._version, parent.grad_fn
        self.parent_shape = parent._data.shape


# The Tensor slots a view reads through its properties.
_GRAD_FN, _REQUIRES_GRAD = Tensor.__dict__["grad_fn"], Tensor.__dict__["requires_grad"]


class ViewTensor(Tensor):
    """A Tensor that views another's memory. Its ``grad_fn`` and ``requires_grad`` are brought
    up to date when read (``refresh``); its version is its base's."""

    __slots__ = ()

    @property
    def grad_fn(self):
        view = self._view
        if view.version != view.base._version:
            refresh(self, view)
        return _GRAD_FN.__get__(self)

    @grad_fn.setter
    def grad_fn(self, node):
        _GRAD_FN.__set__(self, node)

    @property
    def requires_grad(self):
        view = self._view
        if view.version != view.base._version:
            refresh(self, view)
        return _REQUIRES_GRAD.__get__(self)

    @requires_grad.setter
    def requires_grad(self, value):
        _REQUIRES_GRAD.__set__(self, value)

    @property
    def _version(self):
        return self._view.base._version

    @property
    def _base(self):
        return self._view.base


def mark_view(out, x, op, **attrs):
    """Make ``out`` = ``op.apply(x, **attrs)`` a view of ``x`` when it shares x's memory. As in
    PyTorch, a view taken under ``no_grad`` of a tensor that requires grad requires grad too (a
    leaf: no gradient flows back to ``x`` through it, ``collects_gradient``)."""
    if out is x or not np.may_share_memory(out._data, x._data):
        return out
    base = x if x._view is None else x._view.base
    no_grad = not STATE.enabled or (x._view is not None and x._view.no_grad)
    out.__class__ = ViewTensor
    out._view = View(x, op, attrs, base, no_grad)
    if x.requires_grad and _GRAD_FN.__get__(out) is None:
        out.requires_grad = True
    return out


def mark_multi_output(views, call):
    """``views`` were all returned by one ``call`` (``unbind``): PyTorch regenerates none of
    them after an in-place change, nor lets them be changed in place in the graph."""
    for view in views:
        if view._view is not None:
            view._view.multi_output = call


def collects_gradient(tensor):
    """Whether a leaf ``tensor`` receives the gradient that reaches it: not a view made under
    ``no_grad`` (PyTorch: backward through it fills neither its ``.grad`` nor its base's, and
    ``autograd.grad`` finds it unused). The engine and the reference engine both ask this."""
    return tensor._view is None or not tensor._view.no_grad


def refresh(tensor, view):
    """Bring ``tensor``'s history up to date with its base's version: replay its operation on
    its parent's current history when that history changed (an in-place change recorded in
    the graph), or make it stale when PyTorch could not regenerate it."""
    view.version = view.base._version
    parent = view.parent
    history = parent.grad_fn                # (the parent's own refresh, when it is a view)
    if why_stale(view):
        if _REQUIRES_GRAD.__get__(tensor) or parent.requires_grad:
            make_stale(tensor)
    elif (history is not view.made_on and parent.requires_grad
          and parent._data.shape == view.parent_shape):     # (unsqueeze_ of the parent: keep)
        _GRAD_FN.__set__(tensor, replay(tensor))
        _REQUIRES_GRAD.__set__(tensor, True)
        view.made_on = history


def replay(tensor):
    """A node of view ``tensor``'s operation applied to its parent's current history (what
    its history is when the view is taken now); its ``write_back`` records a change of the
    view as a change of the parent (``inplace.py``)."""
    view = tensor._view
    with enable_grad():
        return view.op.apply(_stand_in(view.parent), **view.attrs).grad_fn


def _stand_in(parent):
    """``parent``'s values and current history, to replay a view operation on: the parent
    itself when it is a leaf that requires grad (the gradient is its own), else a tensor
    that requires grad so that a node is recorded (a parent that needs no gradient sends it
    nowhere)."""
    history = parent.grad_fn
    if history is None and parent.requires_grad:
        return parent
    stand_in = make_tensor(parent._data, history)
    stand_in.requires_grad = True
    return stand_in


def settle(tensors):
    """These views were just given their histories by an in-place write (the tensor written
    and the views it is made of): they are up to date with their base's version."""
    for tensor in tensors:
        view = tensor._view
        view.version, view.made_on = view.base._version, view.parent.grad_fn


def why_stale(view):
    """PyTorch's error for a backward through a view whose history cannot be regenerated after
    its base changed in place; None when it can."""
    if view.multi_output:
        return (f"Output of {view.multi_output} is a view and its base or another view of its "
                f"base has been modified inplace. This view is the output of a function that "
                f"returns multiple views. Such functions do not allow the output views to be "
                f"modified inplace. You should replace the inplace operation by an "
                f"out-of-place one (or clone() the views first).")
    if view.no_grad:
        return ("A view was created in no_grad mode and its base or another view of its base "
                "has been modified inplace with grad mode enabled. Given that this use case is "
                "ambiguous and error-prone, it is forbidden, as in PyTorch. Take the view "
                "again after the in-place change (outside no_grad() if its gradient should "
                "flow to the base), or clone() it under no_grad() if it should keep the old "
                "values.")
    return None


def make_stale(tensor):
    """Give view ``tensor`` a history whose backward raises ``why_stale``'s error. It records
    its one node whatever the grad mode (a no_grad view of a weight an optimizer step then
    changed is stale too)."""
    view = tensor._view
    with enable_grad():
        node = _StaleView.apply(_stand_in(view.parent), why=why_stale(view)).grad_fn
    _GRAD_FN.__set__(tensor, node)
    _REQUIRES_GRAD.__set__(tensor, True)


class _StaleView(Function):
    """The history of a view that cannot be regenerated after its base changed in place (one
    of several outputs of ``unbind``, a view made under ``no_grad``): PyTorch cannot regenerate
    such views, and neither do we; a backward through it raises PyTorch's error, ``why``."""

    def forward(ctx, x, why):
        ctx.why = why
        return x

    def backward(ctx, grad):
        raise RuntimeError(ctx.why)


def refuse_change_in_the_graph(tensor, what):
    """PyTorch's errors for an in-place change, recorded in the graph, of a view whose history
    cannot be rebased: one of the views a function returns several of (``unbind``), or a view
    made under ``no_grad()`` (which would change a base that requires grad without the graph
    knowing which mode was meant)."""
    view = tensor._view
    if view is None:
        return
    if view.multi_output:
        raise RuntimeError(
            f"{what}: this tensor is one of the views {view.multi_output} returns, and "
            f"it is being modified inplace. This view is the output of a function that "
            f"returns multiple views. Such functions do not allow the output views to be "
            f"modified inplace. You should replace the inplace operation by an "
            f"out-of-place one (or clone() the view first).")
    if view.no_grad:
        raise RuntimeError(
            f"{what}: A view was created in no_grad mode and is being modified inplace with "
            f"grad mode enabled (this tensor, or the view it was taken from, was made under "
            f"no_grad()). Given that this use case is ambiguous and error-prone, it is "
            f"forbidden, as in PyTorch. Move both the view and the in-place change inside the "
            f"no_grad() block (if the change should not be recorded), or both outside it (if "
            f"it should), or change a clone() of the view.")
