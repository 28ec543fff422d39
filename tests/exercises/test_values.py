"""check_value, check_shape, check_choice and the CheckResult protocol: right answers pass,
wrong ones fail with the diagnosis and words that say what was expected, blank ones never
raise, and every check logs one JSON line."""
import json

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.exercises import CheckResult, check_choice, check_shape, check_value
from dagrad.exercises.result import NOT_ANSWERED
from tests.helpers import torch_or_skip


@pytest.mark.parametrize("blank", [None, ...])
@pytest.mark.parametrize("check", [
    lambda a: check_value(a, 3.0), lambda a: check_shape(a, (2, 3)),
    lambda a: check_choice(a, "b", options=["a", "b"])])
def test_a_blank_answer_is_not_answered_and_never_raises(check, blank):
    r = check(blank)
    assert not r and r.diagnosis == "not_answered" and r.message == NOT_ANSWERED
    assert "not answered" in str(r) and "not answered" in r._repr_html_()


def test_check_value_right_and_wrong():
    r = check_value(6.0, 6, name="∂z/∂x", exercise="01.2")
    assert r.ok and bool(r) and r.diagnosis is None and r.exercise == "01.2"
    assert str(r).splitlines()[0] == "Exercise 01.2: ✓ right"
    assert "right" in r._repr_html_()
    r = check_value(3.0, 6, name="∂z/∂x", why="d(x²)/dx = 2x")
    assert not r and r.diagnosis == "value"
    assert "yours is 3" in r.message and "exactly half the right value" in r.message
    assert "6" not in r.message and "d(x²)/dx" not in r.message      # a first attempt
    assert str(r).splitlines()[0] == "✗ wrong:"
    assert ">✗ wrong:<" in r._repr_html_()
    shown = r.reveal()
    assert "should be 6" in shown.message and "Why: d(x²)/dx = 2x" in shown.message


def test_check_value_accepts_tensors_lists_and_one_element_arrays():
    assert check_value(ag.tensor([1.0, 2.0], requires_grad=True), [1, 2])
    assert check_value(np.array([6.0]), 6.0)
    assert check_value(6.0 + 1e-9, 6.0)
    assert not check_value(6.001, 6.0)
    assert check_value(6.001, 6.0, tol=1e-3)


def test_check_value_shape_and_type():
    r = check_value(np.ones((2, 3)), np.ones((3, 2)))
    assert r.diagnosis == "shape" and "(3, 2)" in r.message and "transpose" in r.message
    r = check_value("3", 3)
    assert r.diagnosis == "type" and "without quotes" in r.message
    r = check_value([[1, 2], [3]], 3)
    assert r.diagnosis == "type"


def test_check_value_hints_sign_and_transpose():
    e = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert "negative" in check_value(-e, e).message
    assert "transpose" in check_value(e.T, e).message
    assert check_value(e.T, e).diagnosis == "value"


def test_check_shape():
    assert check_shape((2, 3), (2, 3))
    assert check_shape(np.zeros((2, 3)), (2, 3))
    assert check_shape(5, (5,))
    r = check_shape((3, 2), (2, 3), name="the shape of W")
    assert r.diagnosis == "shape" and "another order" in r.message
    assert r.message.startswith("the shape of W is wrong: yours is (3, 2)")
    assert "(2, 3)" not in r.message and "should be (2, 3)" in r.reveal().message
    r = check_shape((2, 3, 1), (2, 3))
    assert "2 dimensions, not 3" in r.message
    assert check_shape("2x3", (2, 3)).diagnosis == "type"


def test_check_choice():
    assert check_choice(" B ", "b", options=["a", "b", "c"])
    assert check_choice(2, {2, 3})
    assert check_choice(2.0, 2)
    r = check_choice("d", "b", options={"a": "sum", "b": "product"})
    assert r.diagnosis == "not_an_option" and "product" in r.message
    r = check_choice("a", "b", why="the gradient flows through the product")
    assert r.diagnosis == "choice" and "'a' is wrong" in r.message and "'b'" not in r.message
    assert "The answer is 'b'" in r.reveal().message and "product" in r.reveal().message


def test_every_check_logs_one_json_line(tmp_path, monkeypatch):
    log = tmp_path / "log.jsonl"
    monkeypatch.setenv("DAGRAD_EXERCISES_LOG", str(log))
    check_value(None, 1, exercise="01.1")
    check_value(2, 1, exercise="01.2")
    check_shape((1,), (1,), exercise="01.3")
    lines = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    assert [(d["exercise"], d["ok"], d["diagnosis"]) for d in lines] == [
        ("01.1", False, "not_answered"), ("01.2", False, "value"), ("01.3", True, None)]
    assert all(d["message"] for d in lines)


def test_result_text_and_html_escape_the_message():
    r = CheckResult(False, "a <b> & c", "value", "03.1", table=[("x", "y"), ("1", "✗ wrong")])
    html = r._repr_html_()
    assert "a &lt;b&gt; &amp; c" in html and "<table" in html
    assert "x  y" in str(r)


def test_checks_take_pytorch_values():
    """A lesson run on PyTorch (notebook 14 through the exit door) hands the checks PyTorch's
    tensors, shapes and numbers: they judge them as they judge dagrad's, right or wrong."""
    torch = torch_or_skip()
    answer = torch.tensor([0.5, 1.0], requires_grad=True) * 1     # requires grad: not a leaf
    assert check_value(answer, [0.5, 1.0])
    assert check_value(torch.tensor(0.5), 0.5)
    assert check_value(0.5, torch.tensor(0.5, dtype=torch.float64))
    wrong = check_value(answer * 2, torch.tensor([0.5, 1.0]))
    assert not wrong and wrong.diagnosis == "value" and "2" in wrong.message
    assert check_shape(torch.zeros(1, 2).shape, torch.Size([1, 2]))
    assert check_shape((1, 2), torch.zeros(1, 2))
    transposed = check_shape((2, 1), torch.Size([1, 2]))
    assert not transposed and "another order" in transposed.message


def test_answers_of_every_type_are_judged_as_values():
    inf, nan = float("inf"), float("nan")
    assert check_value(inf, inf) and check_value([1.0, nan], [1.0, nan])
    assert check_value(-inf, -inf) and not check_value(inf, -inf)
    r = check_value(1.0, inf)
    assert not r and "should be inf, but yours is inf" not in r.reveal().message
    assert check_value(1 + 2j, 1).diagnosis == "type" and "complex" in check_value(1j, 1).message
    r = check_value(["6"], 6)
    assert r.diagnosis == "type" and "the text '6' inside a list" in r.message
    assert check_value([["1", 2]], [[1, 2]]).diagnosis == "type"
    assert check_shape(np.int64(3), (3,)) and check_shape(np.int32(4), 4)
    assert check_shape(True, (1,)).diagnosis == "type"


@pytest.mark.parametrize("tol", [-1e-6, float("nan"), float("inf"), "0.1"])
def test_a_bad_tolerance_is_a_clear_error(tol):
    with pytest.raises(ValueError, match="tol must be a finite number"):
        check_value(1.0, 1.0, tol=tol)


def test_an_expected_none_is_a_clear_error():
    with pytest.raises(ValueError, match="expected is None"):
        check_value(1.0, None)
    with pytest.raises(ValueError, match="expected is None"):
        check_choice("a", None)
    with pytest.raises(ValueError, match="expected is None"):
        check_shape((1,), None)


def test_check_choice_reads_answers_as_a_student_writes_them():
    r = check_choice("2", 2, options=[0, 1, 2])
    assert r.ok and "read as the number 2" in r.message
    assert not check_choice("1", 2, options=[0, 1, 2]).ok
    assert check_choice("One Hot", "one-hot") and check_choice("one_hot", "one-hot")
    topologies = ["one-to-many", "many-to-one", "many-to-many"]
    assert check_choice("many-to-o", "many-to-one", options=topologies)
    r = check_choice("many", "many-to-one", options=topologies)
    assert r.diagnosis == "not_an_option" and "starts 2 of the choices" in r.message
    r = check_choice("one-to-many", "many-to-one", options=topologies)
    assert r.diagnosis == "choice" and "many-to-one" not in r.message


def test_factors_are_worded_as_a_student_reads_them():
    assert "exactly half the right value" in check_value(0.5, 1.0).message
    assert "about half the right value" in check_value(0.4995, 1.0).message
    assert "exactly twice" in check_value([2.0, 4.0], [1.0, 2.0]).message
    assert "2.00" not in check_value(0.4995, 1.0).message
    r = check_value([1.0, 2.0], [1.0, 2.0004])
    assert "yours 2, too small" in r.message
    assert "should be [1, 2.0004]" in r.reveal().message


def test_a_log_in_a_missing_folder_still_gives_the_verdict(tmp_path, monkeypatch):
    monkeypatch.setenv("DAGRAD_EXERCISES_LOG", str(tmp_path / "no" / "such" / "log.jsonl"))
    with pytest.warns(RuntimeWarning, match="cannot write the log file"):
        r = check_value(2.0, 1.0, exercise="01.9")
    assert not r and r.diagnosis == "value"
    assert check_value(1.0, 1.0)             # warned once; the verdict still comes back
