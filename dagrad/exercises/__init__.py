"""dagrad.exercises: checks for the answers a student writes in a lesson, as a tutor.

    from dagrad.exercises import check, given, reveal
    given("02.3", z=z_relu, W1=layer1.weight, loss=loss_relu)   # in the cell that builds it
    check("02.3", relu_d_z, relu_d_W1, dead_unit)               # the check cell
    reveal("02.3")                                              # the right value, on request

The exercises of the lessons are defined in ``dagrad.exercises.lessons`` (expected values,
``why``, misconceptions), apart from the cells the student reads. The checks themselves work on
their own too:

    check_value(dz_dx, 6.0, name="∂z/∂x", why="d(x²)/dx = 2x", exercise="01.2")
    check_grads({"w": dw, "b": db}, loss, names=locals(), exercise="08.3")
    check_backward(MyTanh, x, exercise="02.4")    # a student's Function, gradchecked

Every check returns a ``CheckResult``: ``.ok``, ``.message`` (what is wrong and where; a
stronger hint on the second wrong attempt; the right value and why only on ``reveal()`` or
after three), ``.diagnosis`` (a short tag of the mistake), ``.exercise``; ``bool(result)`` is
``.ok``. In IPython a check shows itself in the cell's output as it runs. A blank answer
(``None`` or ``...``) gives "not answered yet", never an exception. When the environment
variable ``DAGRAD_EXERCISES_LOG`` names a file, every check appends one JSON line to it.
"""
from .backward import check_backward
from .detectors import Misconception
from .explain import Coordinates
from .grads import check_grads
from .ladder import reveal
from .result import CheckResult
from .tutor import Backward, Choice, Exercise, Grads, Shape, Value, check, define, given
from .values import check_choice, check_shape, check_value

__all__ = ["CheckResult", "check_value", "check_shape", "check_choice", "check_grads",
           "check_backward", "check", "given", "reveal", "Exercise", "Value", "Shape",
           "Choice", "Grads", "Backward", "Misconception", "Coordinates", "define"]
