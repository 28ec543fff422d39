"""In-place operations, as PyTorch: ``y += x``, ``y[mask] = v``, ``y.relu_()``, ``w.zero_()``.

Every in-place method is one call of :func:`write` with the out-of-place operation that gives
the new values from the old ones. ``write`` computes them, copies them into the tensor's memory
(so every view and alias sees them) and calls the one write recorder,
``versions.mark_written``. Then:

* outside the graph (under ``no_grad()``, or when nothing involved requires grad) that is all;
* in the graph, the operations were recorded, and the tensor's history is *rebased* on them:
  ``y.grad_fn`` becomes the last new node, whose input is a stand-in holding ``y``'s old values
  and old history. After ``y = x * 2; y += w``, ``y.sum().backward()`` gives both ``x`` and
  ``w`` their gradients. A node recorded *before* the write that saved the overwritten values
  raises at backward (``z = y * y`` before ``y += w``; ``y.relu_()`` then ``y += 1``, as ReLU
  saved its output): PyTorch's rule, raise only when a value some backward needs was
  overwritten;
* a leaf that requires grad cannot change in place while gradients are recorded (its gradient
  would belong to values it no longer holds): PyTorch's error. Parameter updates run under
  ``no_grad()``, or write through ``.data``;
* a view (``v = y[i]``, ``y.reshape(...)``, ``y.T``; ``y.flip(0)`` is a copy) shares ``y``'s
  memory, so changing ``v`` in place changes ``y``: ``y``'s history is rebased too, on the view operation's
  ``write_back`` (``y[i] = v`` for a slice, ``v.reshape(y.shape)`` for a reshape).
"""
import weakref

import numpy as np

from .dtypes import category
from .function import Function
from .grad_mode import STATE, enable_grad
from .tensor import Tensor
from .versions import WRITES, mark_written


def write(tensor, what, new_values, *operands, arithmetic=True, **options):
    """Give ``tensor`` the values ``new_values(old, *operands, **options)`` in place.

    Args:
        tensor: the Tensor to change.
        what: the method's name, for errors (``"add_"``).
        new_values: an out-of-place operation on Tensors (``Tensor.add``), recorded in the
            graph when something requires grad.
        operands, options: its other arguments.
        arithmetic: True when the values are computed from the old ones (``add_``): as in
            PyTorch the result may not need a higher dtype category than the tensor's
            (``int_tensor.add_(1.5)`` raises instead of truncating). Assignments (``copy_``,
            ``fill_``, ``x[i] = v``) convert to the tensor's dtype.

    Returns ``tensor``.
    """
    in_graph = STATE.enabled and (tensor.requires_grad or any(
        isinstance(x, Tensor) and x.requires_grad for x in operands))
    if in_graph:
        _refuse_view_that_cannot_follow(tensor, what)
        base_views = _views_to_rebase(tensor, what)
        # The stand-in owns a copy: a new node may save the old values we are overwriting.
        old = Tensor._make(tensor._data.copy(), tensor.grad_fn)
    else:
        old = Tensor._make(tensor._data, None)
    new = new_values(old, *operands, **options)
    if not isinstance(new, Tensor):
        new = Tensor._make(np.asarray(new), None)
    if new.shape != tensor.shape:
        raise RuntimeError(f"{what}: output with shape {list(tensor.shape)} doesn't match the "
                           f"broadcast shape {list(new.shape)}; an in-place operation keeps "
                           f"the tensor's shape, use the out-of-place form (x = x + y)")
    if new.dtype != tensor.dtype:
        if arithmetic and new.dtype.kind != tensor.dtype.kind and (
                category(new.dtype) > category(tensor.dtype)):
            raise TypeError(_dtype_message(what, new.dtype, tensor.dtype))
        new = new.to(tensor.dtype)
    _copy_into(tensor, new._data, what)
    mark_written(tensor)
    if in_graph and new.requires_grad:
        _rebase(tensor, new.grad_fn)
        for view, node in base_views:
            _rebase_base(view, node)
        _share_saved_output(new.grad_fn, new._data, tensor._data)   # after the last stamp
        regenerate_views(tensor, {id(tensor)} | {id(v) for v, _ in base_views}
                         | {id(node.source) for _, node in base_views})
    return tensor


def _refuse_view_that_cannot_follow(tensor, what):
    """PyTorch's errors for an in-place change, recorded in the graph, of a view whose history
    cannot be rebased: one of the views a function returns several of (split, chunk,
    unbind), or a view made under ``no_grad()`` (which would change a base that requires grad
    without the graph knowing which mode was meant)."""
    if tensor.__dict__.get("_multi_output"):
        raise RuntimeError(
            f"{what}: this tensor is one of the views {tensor._multi_output} returns, and "
            f"it is being modified inplace. This view is the output of a function that "
            f"returns multiple views. Such functions do not allow the output views to be "
            f"modified inplace. You should replace the inplace operation by an "
            f"out-of-place one (or clone() the view first).")
    if tensor.__dict__.get("_no_grad_view"):
        raise RuntimeError(
            f"{what}: A view was created in no_grad mode and is being modified inplace with "
            f"grad mode enabled (this tensor, or the view it was taken from, was made under "
            f"no_grad()). Given that this use case is ambiguous and error-prone, it is "
            f"forbidden, as in PyTorch. Move both the view and the in-place change inside the "
            f"no_grad() block (if the change should not be recorded), or both outside it (if "
            f"it should), or change a clone() of the view.")


def regenerate_views(tensor, rebased):
    """After an in-place change of ``tensor`` (and the rebasing of the views it is made of),
    give every other live view of the same memory a history on the new values, as PyTorch
    regenerates a view's ``grad_fn`` when its base's version changes: ``v = y[:2]; y.mul_(2)``
    then ``v``'s gradient flows through the ``mul_``. Each view's operation is replayed, in the
    order the views were made, on its parent's current history; ``rebased`` holds the ids of
    the tensors the write itself rebased."""
    base = tensor if tensor._base is None else tensor._base
    views = base.__dict__.get("_views")
    if not views:
        return
    alive = [v for v in map(lambda ref: ref(), views) if v is not None]
    views[:] = [weakref.ref(v) for v in alive]
    for view in alive:
        if id(view) in rebased:
            continue
        if not view._view_of.requires_grad:
            continue
        if _why_stale(view):
            make_stale(view)
        else:
            view.grad_fn, view.requires_grad = _view_node(view), True


def make_stale(view):
    """Give ``view``, whose history cannot be regenerated after an in-place change of its
    memory (``_why_stale``), a history whose backward raises PyTorch's error. Called for writes
    recorded in the graph (``regenerate_views``) and for writes outside it too (``versions.
    share_version``: a no_grad view of a weight an optimizer step then changed), so it records
    its one node whatever the grad mode."""
    parent = view._view_of
    stand_in = Tensor._make(parent._data, parent.grad_fn)
    stand_in.requires_grad = True
    with enable_grad():
        view.grad_fn = _StaleView.apply(stand_in, why=_why_stale(view)).grad_fn
    view.requires_grad = True


def restride(tensor, what, view_op, *args):
    """Change ``tensor``'s shape in place, keeping its memory (``unsqueeze_``, ``t_``): it
    becomes ``view_op(tensor, *args)``, a view, and in the graph its history is rebased on that
    view operation. As every in-place operation it counts as a write (PyTorch bumps the version
    too) and a leaf that requires grad refuses it."""
    in_graph = STATE.enabled and tensor.requires_grad
    if in_graph:
        _views_to_rebase(tensor, what)
    old = Tensor._make(tensor._data, tensor.grad_fn)
    old.requires_grad = tensor.requires_grad
    new = view_op(old, *args)
    tensor._data = new._data
    mark_written(tensor)
    if in_graph:
        _rebase(tensor, new.grad_fn)
    return tensor


def _why_stale(view):
    """PyTorch's error for a backward through ``view`` after its base changed in place, when
    the view's history cannot be regenerated; None when it can."""
    if view.__dict__.get("_multi_output"):
        return (f"Output of {view._multi_output} is a view and its base or another view of its "
                f"base has been modified inplace. This view is the output of a function that "
                f"returns multiple views. Such functions do not allow the output views to be "
                f"modified inplace. You should replace the inplace operation by an "
                f"out-of-place one (or clone() the views first).")
    if view.__dict__.get("_no_grad_view"):
        return ("A view was created in no_grad mode and its base or another view of its base "
                "has been modified inplace with grad mode enabled. Given that this use case is "
                "ambiguous and error-prone, it is forbidden, as in PyTorch. Take the view "
                "again after the in-place change (outside no_grad() if its gradient should "
                "flow to the base), or clone() it under no_grad() if it should keep the old "
                "values.")
    return None


class _StaleView(Function):
    """The history of a view that cannot be regenerated after its base changed in place (one
    of several outputs of ``unbind``, a view made under ``no_grad``): PyTorch cannot regenerate
    such views, and neither do we; a backward through it raises PyTorch's error, ``why``."""

    def forward(ctx, x, why):
        ctx.why = why
        return x

    def backward(ctx, grad):
        raise RuntimeError(ctx.why)


def _copy_into(tensor, values, what):
    try:
        np.copyto(tensor._data, values, casting="unsafe")
    except ValueError as e:
        if tensor._data.flags.writeable:
            raise
        raise RuntimeError(
            f"{what}: unsupported operation: more than one element of the written-to tensor "
            f"refers to a single memory location (it is an expand()/broadcast view, or "
            f"read-only). Please clone() the tensor before performing the operation.") from e


def _share_saved_output(node, computed, memory):
    """A node that saved its output (``relu_``, ``exp_``, ``tanh_`` save y) keeps the tensor's
    memory instead of its own copy, as PyTorch: no second copy is held, and a later in-place
    change of the tensor is caught at backward."""
    if node.saves_output and node.saved[-1] is computed:
        node.saved = node.saved[:-1] + (memory,)
        node.tick = WRITES.tick             # the write that put the output there is not a change


def _rebase(tensor, node):
    """Make ``node`` (recorded by the in-place operation) the history of ``tensor``."""
    previous = tensor.grad_fn
    tensor.grad_fn = node
    tensor.requires_grad = True
    if previous is not None and previous.retained is not None:   # retain_grad() moves along
        node.retained, previous.retained = previous.retained, None
        node.watched = True


def _views_to_rebase(tensor, what):
    """The chain of views ``tensor`` is (innermost first), as (view, a node of the view's
    operation whose ``source`` is the view's parent), checked before anything is written: a
    view of a leaf that requires grad raises. The chain is read from what ``mark_view``
    recorded, so it holds after earlier in-place changes of the view too."""
    chain = []
    view = tensor
    while view.__dict__.get("_view_of") is not None:
        base = view._view_of
        if base.requires_grad and base.grad_fn is None:
            raise RuntimeError(
                f"{what}: a view of a leaf Variable that requires grad is being used in an "
                f"in-place operation. Do it inside `with ag.no_grad():`, or clone() the leaf "
                f"first.")
        chain.append((view, _view_node(view)))
        view = base
    if view is tensor and tensor.requires_grad and tensor.grad_fn is None:
        raise RuntimeError(
            f"{what}: a leaf Variable that requires grad is being used in an in-place "
            f"operation (its gradient would belong to values it no longer holds). Do it inside "
            f"`with ag.no_grad():` (e.g. a parameter update), write through `.data`, or use the "
            f"out-of-place form.")
    return chain


def _view_node(view):
    """A node of ``view``'s operation, replayed on its parent's current history (its
    ``write_back`` records a change of the view as a change of the parent)."""
    parent = view._view_of
    op, attrs = view._view_op
    stand_in = Tensor._make(parent._data, parent.grad_fn)
    stand_in.requires_grad = True
    node = op.apply(stand_in, **attrs).grad_fn
    node.source = parent
    return node


def _rebase_base(view, node):
    """``view`` (made from ``node.source`` by ``node``) was just changed in place, and with it
    the memory of its base: record the base's new values as the view operation's write-back.
    The stand-in for the base's old history may share the changed memory: a write-back never
    reads the values the view overwrote."""
    base = node.source
    new = node.write_back(Tensor._make(base._data, base.grad_fn), view)
    mark_written(base)
    _rebase(base, new.grad_fn)


def _dtype_message(what, result, dtype):
    kind = {"b": "a bool", "i": "an integer", "u": "an integer"}.get(result.kind,
                                                                    "a floating-point")
    return (f"{what}: the result is {kind} tensor and can't be cast to the tensor's dtype "
            f"{dtype} (PyTorch refuses it too): an in-place operation keeps the tensor's dtype. "
            f"Use the out-of-place form (x = x + y) or convert first, e.g. x = x.float().")
