"""A student's operation, in the two forms ``check_backward`` takes, behind one interface:
run the forward on arrays, run the student's backward as written (before the engine undoes
broadcasting), run it again with other saved values, and take second derivatives.

* ``FunctionForm``: a dagrad ``Function`` subclass (``forward(ctx, *arrays)`` with
  ``ctx.save``, ``backward(ctx, grad)``) or a ``CustomFunction`` subclass (PyTorch's
  ``torch.autograd.Function`` form).
* ``PairForm``: NumPy functions ``forward(*arrays) -> out`` and
  ``backward(grad_out, *arrays) -> one gradient per input`` (a single array for one input);
  a backward with one more parameter also gets the forward's output:
  ``backward(grad_out, *arrays, out)``.
"""
import inspect

import numpy as np


class StudentError(Exception):
    """The student's code raised, or returned something that is not gradients; the message
    says which part and what."""


def as_form(obj, attrs):
    """The form behind ``obj`` (a Function or CustomFunction subclass, or a pair)."""
    from dagrad.autograd import CustomFunction, Function
    if isinstance(obj, type) and issubclass(obj, (Function, CustomFunction)):
        return FunctionForm(obj, attrs)
    if isinstance(obj, (tuple, list)) and len(obj) == 2 and all(callable(f) for f in obj):
        return PairForm(obj[0], obj[1], attrs)
    raise TypeError(f"check_backward: expected an ag.Function subclass, an ag.CustomFunction "
                    f"subclass or a (forward, backward) pair of functions, got "
                    f"{type(obj).__name__}")


def _call(what, f, *args, **kwargs):
    try:
        return f(*args, **kwargs)
    except NotImplementedError:
        raise
    except Exception as e:               # the student's code: report it, never crash
        raise StudentError(f"your {what} raised {type(e).__name__}: {e}") from None


def _gradients(raw, count, what):
    """The backward's return value as a list of ``count`` arrays (None for no gradient)."""
    from dagrad.autograd import Tensor
    if not isinstance(raw, (tuple, list)):
        raw = (raw,)
    raw = list(raw)
    if len(raw) != count:
        raise StudentError(f"your {what} returned {len(raw)} gradient"
                           f"{'s' if len(raw) != 1 else ''} for {count} input"
                           f"{'s' if count != 1 else ''}: return one per input of forward")
    out = []
    for g in raw:
        if g is None:
            out.append(None)
            continue
        if isinstance(g, Tensor):
            g = g.numpy()
        try:
            out.append(np.array(g, dtype=np.float64))
        except (TypeError, ValueError):
            raise StudentError(f"your {what} returned a {type(g).__name__}, not an array of "
                               f"numbers") from None
    return out


class FunctionForm:
    """A Function or CustomFunction subclass."""

    def __init__(self, cls, attrs):
        self.cls, self.attrs = cls, attrs
        self.name = cls.__name__
        self.second_order = True

    def _tensors(self, arrays, requires_grad):
        from dagrad.autograd import tensor
        return [tensor(a, requires_grad=requires_grad and a.dtype.kind == "f")
                for a in arrays]

    def forward(self, arrays):
        from dagrad.autograd import no_grad
        with no_grad():
            out = _call("forward", self.cls.apply, *self._tensors(arrays, False), **self.attrs)
        return np.array(out.numpy(), dtype=np.float64)

    def _node(self, arrays):
        out = _call("forward", self.cls.apply, *self._tensors(arrays, True), **self.attrs)
        if out.grad_fn is None:
            raise StudentError("your forward's result has no graph: return the computed array "
                               "(dagrad records the operation)")
        return out, out.grad_fn

    def backward(self, arrays, grad):
        out, node = self._node(arrays)
        raw = _call("backward", node.backward, grad.astype(out.dtype))
        return _gradients(raw, len(arrays), "backward")

    def with_other_saves(self, arrays, grad):
        """For each positional save of the forward, and each other value it could have been
        (an input or the output of the same shape): (what was saved, what it is replaced by,
        the backward's gradients with that replacement)."""
        out, node = self._node(arrays)
        saved = tuple(node.saved)
        values = [(f"input {k}", np.asarray(a)) for k, a in enumerate(arrays)] + \
            [("the output", out.numpy())]
        for k, s in enumerate(saved):
            if not isinstance(s, np.ndarray):
                continue
            was = next((name for name, v in values
                        if v.shape == s.shape and np.array_equal(v, s)), None)
            for name, v in values:
                if name == was or v.shape != s.shape or np.array_equal(v, s):
                    continue
                node.saved = saved[:k] + (v.astype(s.dtype),) + saved[k + 1:]
                try:
                    raw = _gradients(node.backward(grad.astype(out.dtype)), len(arrays),
                                     "backward")
                except Exception:
                    continue
                finally:
                    node.saved = saved
                yield was or f"saved value {k}", name, raw

    def saves_output_positionally(self, arrays):
        """Does forward save its own output positionally before another value (only the last
        positional save is known as the output)?"""
        try:
            out, node = self._node(arrays)
        except StudentError:
            return False
        saved = [a for a in tuple(node.saved or ()) if isinstance(a, np.ndarray)]
        if node.saves_output:
            saved = saved[:-1]
        return any(a.shape == out.shape and np.array_equal(a, out.numpy()) for a in saved)

    def first_order(self, tensors, grad):
        """The gradients through the engine on tensors (differentiable when ``tensors``
        require grad and grad mode is on)."""
        from dagrad.autograd import grad as autograd_grad, tensor
        out = self.cls.apply(*tensors, **self.attrs)
        floats = [t for t in tensors if t.requires_grad]
        return floats, autograd_grad(out, floats, grad_outputs=tensor(grad.astype(out.dtype)),
                                     create_graph=True, allow_unused=True)


class PairForm:
    """NumPy forward and backward functions."""

    def __init__(self, forward, backward, attrs):
        self.f, self.b, self.attrs = forward, backward, attrs
        self.name = getattr(forward, "__name__", "forward")
        self.second_order = False
        self._takes_output = None

    def forward(self, arrays):
        out = _call("forward", self.f, *[a.copy() for a in arrays], **self.attrs)
        try:
            return np.array(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise StudentError(f"your forward returned a {type(out).__name__}, not an array "
                               f"of numbers") from None

    def takes_output(self, count):
        """Does backward take the forward's output after the inputs?"""
        if self._takes_output is None:
            try:
                params = inspect.signature(self.b).parameters.values()
            except (TypeError, ValueError):
                self._takes_output = False
                return False
            positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY,
                                                          p.POSITIONAL_OR_KEYWORD)]
            self._takes_output = len(positional) == count + 2
        return self._takes_output

    def _run(self, grad, args):
        raw = _call("backward", self.b, grad.copy(), *[a.copy() for a in args])
        return raw

    def backward(self, arrays, grad):
        args = list(arrays)
        if self.takes_output(len(arrays)):
            args.append(self.forward(arrays))
        return _gradients(self._run(grad, args), len(arrays), "backward")

    def with_other_saves(self, arrays, grad):
        """The backward with one argument replaced by another value of the same shape (the
        output for an input, an input for the output)."""
        out = self.forward(arrays)
        names = [f"input {k}" for k in range(len(arrays))]
        args = list(arrays)
        values = list(zip(names, arrays)) + [("the output", out)]
        if self.takes_output(len(arrays)):
            args.append(out)
            names.append("the output")
        for k, a in enumerate(args):
            for name, v in values:
                if name == names[k] or v.shape != np.shape(a) or np.array_equal(v, a):
                    continue
                try:
                    raw = _gradients(self._run(grad, args[:k] + [v] + args[k + 1:]),
                                     len(arrays), "backward")
                except Exception:
                    continue
                yield names[k], name, raw
