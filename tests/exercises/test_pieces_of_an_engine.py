"""Exercises whose answer is a piece of code (``Value(run=...)``: judged by the numbers the
check computes with it) and exercises that build on earlier ones (``builds_on``: a wrong answer
here, while an earlier answer in the notebook is wrong too, is sent back to that one first)."""
from types import SimpleNamespace

from dagrad.exercises import Exercise, Misconception, Value, check, define, given, ladder


def square_exercise(ident="93.1"):
    """The student writes square(x); the check runs it at 2 and 3."""
    define(Exercise(ident, Value(
        "square", lambda g: [4.0, 9.0],
        name="The result of your square", run=lambda g, piece: [piece(2.0), piece(3.0)],
        coords=(lambda i: ("x = 2", "x = 3")[i],),
        misconceptions=[Misconception("doubled", lambda g: [4.0, 6.0],
                                      "yours doubles x: x² is x times itself")],
        why="square(x) = x * x")))
    given(ident)


def test_a_piece_of_code_is_judged_by_the_numbers_the_check_computes_with_it():
    square_exercise()
    assert check("93.1", lambda x: x * x).ok
    wrong = check("93.1", lambda x: 2 * x)
    assert not wrong and wrong.diagnosis == "doubled"
    assert "yours doubles x" in wrong.message
    unlisted = check("93.1", lambda x: x * x + 1)     # no misconception: what and where
    assert unlisted.diagnosis == "value" and "x = 2" in unlisted.message


def test_a_piece_that_is_not_code_or_raises_is_told_so_without_a_crash():
    square_exercise()
    not_code = check("93.1", 4.0)
    assert not_code.diagnosis == "type" and "should be a function" in not_code.message
    raises = check("93.1", lambda x: x.nope)
    assert raises.diagnosis == "error" and "AttributeError" in raises.message
    assert check("93.1", None).diagnosis == "not_answered"


def engine_of_two_pieces(monkeypatch, namespace):
    """93.1 (square) and 93.2 (fourth power, which the student writes with their square):
    93.2 builds on 93.1. ``namespace`` stands for the notebook's variables."""
    square_exercise()
    define(Exercise("93.2", Value(
        "fourth", lambda g: [16.0, 81.0], name="The result of your fourth",
        run=lambda g, piece: [piece(2.0), piece(3.0)]), builds_on=("93.1",)))
    given("93.2")
    monkeypatch.setattr(ladder, "_ipython", lambda: SimpleNamespace(user_ns=namespace))


def test_a_wrong_answer_built_on_a_wrong_earlier_one_is_sent_back_to_it(monkeypatch):
    doubled = lambda x: 2 * x                       # noqa: E731 (a student's 93.1)
    engine_of_two_pieces(monkeypatch, {"square": doubled})
    r = check("93.2", lambda x: doubled(doubled(x)))
    assert not r and r.diagnosis == "earlier_exercise"
    assert "builds on exercise 93.1, whose answer is not right yet: fix it first" in r.message
    # the quiet look at 93.1 counted no attempt there
    assert check("93.1", doubled).attempt == 1


def test_a_right_or_blank_earlier_answer_is_not_blamed(monkeypatch):
    namespace = {"square": lambda x: x * x}
    engine_of_two_pieces(monkeypatch, namespace)
    r = check("93.2", lambda x: x ** 3)
    assert not r and r.diagnosis != "earlier_exercise" and "builds on" not in r.message
    namespace["square"] = None                      # not answered: the lesson's stand-in runs
    assert check("93.2", lambda x: x ** 3).diagnosis != "earlier_exercise"
    assert check("93.2", lambda x: x ** 4).ok
