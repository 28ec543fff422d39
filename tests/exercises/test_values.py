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
    assert "should be 6" in r.message and "yours is 3" in r.message
    assert "d(x²)/dx = 2x" in r.message and "factor of 2" in r.message
    assert str(r).splitlines()[0] == "✗ wrong:"
    assert ">✗ wrong:<" in r._repr_html_()


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
    assert r.message.startswith("the shape of W should be (2, 3)")
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
    assert r.diagnosis == "choice" and "'b', not 'a'" in r.message and "product" in r.message


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
