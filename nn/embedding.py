"""Embedding: a lookup table of learnable vectors."""
import numpy as np

from dagrad.autograd import no_grad
from dagrad.autograd.default_dtype import float_dtype

from . import functional as F
from . import init
from .module import Module
from .parameter import Parameter


class Embedding(Module):
    """y = W[i]: row i of ``weight`` W (num_embeddings, embedding_dim) for each index i.

    Input: integers of any shape; output: (*input.shape, embedding_dim). W ~ N(0, 1) (PyTorch's
    default). The row at ``padding_idx`` starts at zero and never receives a gradient.
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, _weight=None,
                 dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} must be in "
                                 f"[-{num_embeddings}, {num_embeddings - 1}]")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            self.weight = Parameter(np.empty((num_embeddings, embedding_dim),
                                             float_dtype(dtype)))
            self.reset_parameters()
        else:
            if tuple(_weight.shape) != (num_embeddings, embedding_dim):
                raise ValueError(f"Embedding: _weight of shape {tuple(_weight.shape)} does not "
                                 f"match ({num_embeddings}, {embedding_dim})")
            self.weight = Parameter(_weight)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx] = 0

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, padding_idx=None):
        """An Embedding holding ``embeddings`` (2-D); frozen (no gradient) by default."""
        rows, dim = embeddings.shape
        m = cls(rows, dim, padding_idx=padding_idx, _weight=embeddings)
        m.weight.requires_grad_(not freeze)
        return m

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self):
        extra = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{extra}"
