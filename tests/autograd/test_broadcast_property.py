"""Property test: binary operations reduce their gradients to each input's own shape, for any
pair of broadcastable shapes."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import mutually_broadcastable_shapes

import autograd as ag

BINARY = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / (b * b + 1),
    "maximum": ag.maximum,
    "where": lambda a, b: ag.where(a > 0, a, b),
}


@pytest.mark.parametrize("name", sorted(BINARY))
@settings(max_examples=25, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=3),
       seed=st.integers(0, 2 ** 16))
def test_broadcast_gradients(name, shapes, seed):
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = ag.tensor(rng.standard_normal(sa), requires_grad=True)
    b = ag.tensor(rng.standard_normal(sb), requires_grad=True)
    assert ag.gradcheck(BINARY[name], [a, b])
    out = BINARY[name](a, b)
    assert out.shape == shapes.result_shape
    out.sum().backward()
    assert a.grad.shape == a.shape and b.grad.shape == b.shape
