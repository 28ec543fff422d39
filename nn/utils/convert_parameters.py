"""Flatten parameters into one vector and back (e.g. for line searches or second-order
methods on the whole parameter vector)."""
from dagrad import autograd as ag
from dagrad.autograd import no_grad


def parameters_to_vector(parameters):
    """One 1-D tensor: every parameter flattened and concatenated, in order (differentiable)."""
    params = list(parameters)
    if not params:
        raise ValueError("parameters_to_vector: got no parameters")
    return ag.cat([p.reshape(-1) for p in params])


def vector_to_parameters(vec, parameters):
    """Copy consecutive slices of the 1-D ``vec`` into the parameters, in place (the inverse
    of ``parameters_to_vector``)."""
    data = ag.as_array(vec)
    if data.ndim != 1:
        raise TypeError(f"vector_to_parameters: expected a 1-D vector, got shape "
                        f"{tuple(data.shape)}")
    params = list(parameters)
    total = sum(p.numel() for p in params)
    if data.size != total:
        raise ValueError(f"vector_to_parameters: the vector has {data.size} elements but the "
                         f"parameters have {total}")
    start = 0
    with no_grad():
        for p in params:
            n = p.numel()
            p.copy_(data[start:start + n].reshape(p.shape))
            start += n
