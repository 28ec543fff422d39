"""The dtypes PyTorch names and dagrad does not have: ``torch.bfloat16`` (and the complex ones
programs list beside it) exist as names, so a program that only mentions them (nanoGPT's
``{'float32': torch.float32, 'bfloat16': torch.bfloat16, 'float16': torch.float16}``) runs;
making a tensor of one raises one TypeError that says why and what to use."""


class UnsupportedDtype:
    """A PyTorch dtype dagrad cannot hold. NumPy reads a ``dtype`` attribute wherever it
    converts something to a dtype (``np.dtype(x)``, ``np.zeros(n, x)``): that is where every
    creation function, ``tensor(..., dtype=)``, ``x.to(dtype)`` and ``set_default_dtype``
    meet it, and where it raises."""

    def __init__(self, name, why):
        self.name, self.why = name, why

    @property
    def dtype(self):
        raise TypeError(f"torch.{self.name}: dagrad does not have this dtype ({self.why})")

    is_floating_point = property(lambda self: self.name.startswith(("bfloat", "float")))
    is_complex = property(lambda self: self.name.startswith("complex"))

    def __repr__(self):
        return f"torch.{self.name}"


bfloat16 = UnsupportedDtype("bfloat16", "NumPy, which dagrad computes with, has no bfloat16; "
                            "use torch.float32, which holds every bfloat16 value exactly")
complex64 = cfloat = UnsupportedDtype("complex64", "dagrad tensors hold real numbers; carry "
                                      "the real and imaginary parts as two tensors")
complex128 = cdouble = UnsupportedDtype("complex128", complex64.why)
