"""One statement of each derivative (``autograd/rules.py``): every operation the quiz, foreign
graphs and check_backward know, and every elementwise, reduction, matrix-product and shape
operation, states its local rule per input beside its backward; the statements parse, and where
they are formulas they compute what the operation's backward computes."""
import ast
import inspect

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd import rules
from dagrad.autograd.function import Function
from dagrad.autograd.ops import (activation, arithmetic, cast, diagonal, elementary, indexing,
                                 linalg, piecewise, reduction, shape)

# the operations viz/quiz.py, viz/foreign.py and exercises/backward.py name today
TAUGHT = ["Add", "Sub", "Mul", "Div", "Neg", "Pow", "Exp", "Log", "Sqrt", "Abs", "Sin", "Cos",
          "Tanh", "Sigmoid", "Relu", "Sum", "Mean", "MatMul"]
FAMILIES = [arithmetic, elementary, activation, piecewise, cast, reduction, linalg, shape,
            indexing, diagonal]


def _operations():
    return [cls for module in FAMILIES for cls in vars(module).values()
            if isinstance(cls, type) and issubclass(cls, Function)
            and cls.__module__ == module.__name__]


def test_every_taught_elementwise_reduction_product_and_shape_operation_states_its_rules():
    stated = {cls.__name__ for cls in _operations() if cls.rules}
    assert set(TAUGHT) <= stated
    assert [cls.__name__ for cls in _operations() if not cls.rules] == []
    assert len(stated) >= 50


@pytest.mark.parametrize("cls", _operations(), ids=lambda cls: cls.__name__)
def test_a_statement_per_input_in_the_one_parseable_form(cls):
    parameters = list(inspect.signature(cls.forward).parameters.values())[1:]
    inputs = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD,
                                                       p.VAR_POSITIONAL)}
    assert set(cls.rules) <= inputs, f"{cls.__name__}: rules for {set(cls.rules) - inputs}"
    for name, statement in cls.rules.items():
        stated, formula, note = rules.split(statement)
        assert stated == name and formula
        assert "δ_out" in formula or formula == "0 · δ_out"
        ast.parse(rules._as_python(formula), mode="eval")       # the formula language


def test_local_rule_finds_a_rule_by_class_node_name_and_position():
    x = ag.tensor([0.5], requires_grad=True)
    node = (x * 2).grad_fn
    assert rules.local_rule(arithmetic.Mul, "b") == "δ_b = δ_out · a"
    assert rules.local_rule(node, 0) == rules.local_rule("Mul", "a") == "δ_a = δ_out · b"
    assert rules.local_rule("Where", 0) is None                   # the condition has no δ
    assert rules.local_rule("Where", 2) == "δ_b = δ_out · [not cond]"
    assert rules.local_rule("Cat", 7) == rules.local_rule("Cat", 0)   # variadic
    assert rules.local_rule("NoSuchOperation", 0) is None


def test_a_formula_outside_the_language_is_refused():
    with pytest.raises(ValueError, match="cannot call"):
        rules.evaluate("δ_x = δ_out · __import__(x)", {"δ_out": 1, "x": 1})
    with pytest.raises(ValueError, match="not a rule statement"):
        rules.split("dx = g")


RNG = np.random.default_rng(0)


def _normal(*shape):
    return RNG.standard_normal(shape)


def _positive(*shape):
    return RNG.uniform(0.5, 2.0, shape)


# (operation, inputs (the ones that get δ are floating point), keyword attributes)
CASES = [
    (arithmetic.Add, [_normal(3, 4), _normal(4)], {}),
    (arithmetic.Sub, [_normal(3, 4), _normal(3, 1)], {}),
    (arithmetic.Mul, [_normal(3, 4), _normal(4)], {}),
    (arithmetic.Div, [_normal(3, 4), _positive(4)], {}),
    (arithmetic.Neg, [_normal(3)], {}),
    (arithmetic.Pow, [_positive(3, 2), _normal(3, 2)], {}),
    (arithmetic.FloorDivide, [_positive(5) * 3, _positive(5)], {}),
    (arithmetic.Remainder, [_positive(5) * 3, _positive(5)], {}),
    (elementary.Exp, [_normal(4)], {}),
    (elementary.Log, [_positive(4)], {}),
    (elementary.Log1p, [_positive(4)], {}),
    (elementary.Sqrt, [_positive(4)], {}),
    (elementary.Sin, [_normal(4)], {}),
    (elementary.Cos, [_normal(4)], {}),
    (activation.Tanh, [_normal(4)], {}),
    (activation.Sigmoid, [_normal(4)], {}),
    (activation.Relu, [_normal(6)], {}),
    (activation.LeakyRelu, [_normal(6)], {"negative_slope": 0.1}),
    (activation.Elu, [_normal(6)], {"alpha": 0.7}),
    (activation.Softplus, [_normal(6)], {"beta": 2.0, "threshold": 20.0}),
    (activation.Erf, [_normal(6)], {}),
    (activation.Gelu, [_normal(6)], {"approximate": "none"}),
    (piecewise.Abs, [_normal(6)], {}),
    (piecewise.Maximum, [np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])], {}),
    (piecewise.Minimum, [np.array([1.0, 2.0, 3.0]), np.array([3.0, 2.0, 1.0])], {}),
    (piecewise.Where, [_normal(5) > 0, _normal(5), _normal(5)], {}),
    (piecewise.Clamp, [_normal(8)], {"lo": -0.5, "hi": 0.5}),
    (piecewise.ClampTensor, [_normal(8), _normal(8) - 0.5, _normal(8) + 0.5], {}),
    (cast.Clone, [_normal(3)], {}),
    (reduction.Sum, [_normal(3, 4)], {"axis": None}),
    (reduction.Mean, [_normal(3, 4)], {"axis": (1,), "keepdims": True}),
    (reduction.Amax, [_normal(3, 4)], {"axis": None}),
    (reduction.Prod, [_positive(5)], {"axis": None}),
    (reduction.SafeSqrt, [_positive(5)], {}),
    (reduction.LogSumExp, [_normal(3, 4)], {"axis": 1, "keepdims": True}),
    (reduction.Softmax, [_normal(3, 4)], {"axis": 1}),
    (reduction.LogSoftmax, [_normal(3, 4)], {"axis": 1}),
    (linalg.MatMul, [_normal(3, 4), _normal(4, 2)], {}),
    (linalg.Linear, [_normal(5, 3), _normal(2, 3), _normal(2)], {}),
]


def _in_shape_of(value, shape):
    """A formula's value as a gradient of an input of ``shape``: copied over reduced axes (a
    reduction's δ_out), summed over broadcast ones."""
    value = np.asarray(value, dtype=np.float64)
    if value.size < int(np.prod(shape)):
        return np.broadcast_to(value, shape)
    return ag.unbroadcast(value, tuple(shape))


@pytest.mark.parametrize("cls, arrays, attrs", CASES, ids=[c[0].__name__ for c in CASES])
def test_each_formula_computes_what_the_backward_computes(cls, arrays, attrs):
    tensors = [ag.tensor(a, dtype=ag.float64, requires_grad=True) if a.dtype.kind == "f"
               else ag.tensor(a) for a in arrays]
    out = cls.apply(*tensors, **attrs)
    seed = RNG.standard_normal(out.shape)
    wanted = [t for t in tensors if t.requires_grad]
    grads = ag.grad(out, wanted, ag.tensor(seed))
    names, _ = rules._input_names(cls)
    values = dict(zip(names, arrays), **attrs, out=out.numpy(), δ_out=seed)
    values["n"] = arrays[0].size // max(out.numpy().size, 1)
    grads = iter(grads)
    for name, t in zip(names, tensors):
        if not t.requires_grad:
            continue
        g = next(grads)
        computed = rules.evaluate(rules.local_rule(cls, name), values)
        np.testing.assert_allclose(_in_shape_of(computed, t.shape), g.numpy(), rtol=1e-6,
                                   atol=1e-9, err_msg=f"{cls.__name__}: δ_{name}")
    assert next(grads, None) is None                 # every input's δ was compared
