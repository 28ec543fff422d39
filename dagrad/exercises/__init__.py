"""dagrad.exercises: checks for the answers a student writes in a lesson.

    from dagrad.exercises import check_value, check_shape, check_choice, check_grads
    check_value(dz_dx, 6.0, name="∂z/∂x", why="d(x²)/dx = 2x", exercise="01.2")
    check_grads({"w": dw, "b": db}, loss, names=locals(), exercise="08.3")
    check_backward(MyTanh, x, exercise="02.4")    # a student's Function, gradchecked

Every check returns a ``CheckResult``: ``.ok``, ``.message`` (what was expected and why),
``.diagnosis`` (a short tag of the mistake), ``.exercise``; ``bool(result)`` is ``.ok``,
``print(result)`` shows it in a terminal and Jupyter shows it as HTML. A blank answer
(``None`` or ``...``) gives "not answered yet", never an exception. When the environment
variable ``DAGRAD_EXERCISES_LOG`` names a file, every check appends one JSON line to it.
"""
from .backward import check_backward
from .grads import check_grads
from .result import CheckResult
from .values import check_choice, check_shape, check_value

__all__ = ["CheckResult", "check_value", "check_shape", "check_choice", "check_grads",
           "check_backward"]
