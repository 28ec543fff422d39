"""``Parameter``: a Tensor that a Module registers as one of its learnable weights."""
import numpy as np

from dagrad.autograd.default_dtype import get_default_dtype
from dagrad.autograd import Tensor


class Parameter(Tensor):
    """A leaf Tensor marked as a learnable parameter (``requires_grad=True`` by default).

    Assigning a Parameter to an attribute of a ``Module`` registers it, so it appears in
    ``module.parameters()`` and ``module.state_dict()``. ``data`` may be an ndarray (shared, not
    copied, as ``torch.nn.Parameter`` shares the tensor's storage), a Tensor or a nested list.
    """

    __slots__ = ()

    def __init__(self, data=None, requires_grad=True):
        if data is None:
            data = np.empty(0, dtype=get_default_dtype())
        if isinstance(data, Tensor):
            data = data._data
        super().__init__(data, requires_grad=requires_grad)

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()
