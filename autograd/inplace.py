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
  memory, so changing ``v`` in place changes ``y``: ``y``'s history is rebased too, on the
  view operation's ``write_back`` (``y[i] = v`` for a slice, ``v.reshape(y.shape)`` for a
  reshape). The other views of the memory follow when next used (``views.py``).
"""
import numpy as np

from .dtypes import category
from .grad_mode import STATE
from .tensor import make_tensor, Tensor
from .versions import WRITES, mark_written
from .views import refuse_change_in_the_graph, replay, settle


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
        refuse_change_in_the_graph(tensor, what)
        chain = _views_to_rebase(tensor, what)
        # The stand-in owns a copy: a new node may save the old values we are overwriting.
        old = make_tensor(tensor._data.copy(), tensor.grad_fn)
    else:
        old = make_tensor(tensor._data, None)
    new = new_values(old, *operands, **options)
    if not isinstance(new, Tensor):
        new = make_tensor(np.asarray(new), None)
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
        for view, parent, node in chain:
            _rebase_base(view, parent, node)
        _share_saved_output(new.grad_fn, new._data, tensor._data)   # after the last stamp
        settle([view for view, _, _ in chain])   # other views follow when next used
    return tensor


def restride(tensor, what, view_op, *args):
    """Change ``tensor``'s shape in place, keeping its memory (``unsqueeze_``, ``t_``): it
    becomes ``view_op(tensor, *args)``, a view, and in the graph its history is rebased on that
    view operation. As every in-place operation it counts as a write (PyTorch bumps the version
    too) and a leaf that requires grad refuses it."""
    in_graph = STATE.enabled and tensor.requires_grad
    if in_graph:
        _views_to_rebase(tensor, what)
    old = make_tensor(tensor._data, tensor.grad_fn)
    old.requires_grad = tensor.requires_grad
    new = view_op(old, *args)
    tensor._data = new._data
    mark_written(tensor)
    if in_graph:
        _rebase(tensor, new.grad_fn)
    return tensor


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
    """The chain of views ``tensor`` is (innermost first), as (view, its parent, a node of
    the view's operation replayed on the parent's current history), checked before anything
    is written: a view of a leaf that requires grad raises. The chain is read from the views'
    records (``views.py``), so it holds after earlier in-place changes of the view too."""
    chain = []
    view = tensor
    while view._view is not None:
        parent = view._view.parent
        if parent.requires_grad and parent.grad_fn is None:
            raise RuntimeError(
                f"{what}: a view of a leaf Variable that requires grad is being used in an "
                f"in-place operation. Do it inside `with ag.no_grad():`, or clone() the leaf "
                f"first.")
        chain.append((view, parent, replay(view)))
        view = parent
    if view is tensor and tensor.requires_grad and tensor.grad_fn is None:
        raise RuntimeError(
            f"{what}: a leaf Variable that requires grad is being used in an in-place "
            f"operation (its gradient would belong to values it no longer holds). Do it inside "
            f"`with ag.no_grad():` (e.g. a parameter update), write through `.data`, or use the "
            f"out-of-place form.")
    return chain


def _rebase_base(view, parent, node):
    """``view`` (made from ``parent`` by ``node``'s operation) was just changed in place, and
    with it the memory of its parent: record the parent's new values as the view operation's
    write-back. The stand-in for the parent's old history may share the changed memory: a
    write-back never reads the values the view overwrote."""
    new = node.write_back(make_tensor(parent._data, parent.grad_fn), view)
    mark_written(parent)
    _rebase(parent, new.grad_fn)


def _dtype_message(what, result, dtype):
    kind = {"b": "a bool", "i": "an integer", "u": "an integer"}.get(result.kind,
                                                                    "a floating-point")
    return (f"{what}: the result is {kind} tensor and can't be cast to the tensor's dtype "
            f"{dtype} (PyTorch refuses it too): an in-place operation keeps the tensor's dtype. "
            f"Use the out-of-place form (x = x + y) or convert first, e.g. x = x.float().")
