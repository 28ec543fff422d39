"""nn: neural-network modules, losses, initialisers and data utilities on top of autograd.

Every module is a forward composition of autograd operations; backward comes from the engine.
Names, arguments and parameter layouts follow PyTorch, so a PyTorch state_dict converted to
NumPy loads directly into the matching module::

    from dagrad import autograd as ag
    from dagrad import nn
    import dagrad.nn.functional as F

    model = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 10))
    loss = nn.CrossEntropyLoss()(model(x), y)
    loss.backward()

Subpackages: ``nn.functional`` (stateless forms), ``nn.init``, ``nn.utils``, ``nn.data``
(Dataset, DataLoader), ``nn.datasets`` (small offline data), ``nn.models`` (ready-made models),
``nn.training`` (a small explicit training loop), ``nn.formats`` (the files ``nn.save`` and
``nn.load`` write and read: PyTorch's ``.pt``, ``.npz``, safetensors). Layer families in their
own files (conv, pooling, rnn, attention, transformer) add one import line each at the end.
"""
from . import data, datasets, functional, init, training, utils
from .activation import (ELU, GELU, Hardtanh, LeakyReLU, LogSoftmax, PReLU, ReLU, Sigmoid, SiLU,
                         Softmax, Softplus, Tanh)
from .containers import ModuleDict, ModuleList, Sequential
from .dropout import Dropout, Dropout1d, Dropout2d
from .embedding import Embedding
from .linear import Flatten, Identity, Linear, NonDynamicallyQuantizableLinear, Unflatten
from .loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, GaussianNLLLoss, HuberLoss,
                   KLDivLoss, L1Loss, MSELoss, NLLLoss, SmoothL1Loss)
from .module import Module
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm
from .parameter import Parameter
from . import formats
from .formats import SerializationError, load, save
from .conv import Conv1d, Conv2d, ConvTranspose2d, DepthwiseSeparableConv2d  # noqa: E402
from .pooling import AdaptiveAvgPool2d, AvgPool2d, MaxPool2d, Upsample  # noqa: E402
from .rnn import GRU, LSTM, MGU, RNN, GRUCell, LSTMCell, MGUCell, RNNCell  # noqa: E402
from .attention_rnn import AdditiveAttention, DotProductAttention  # noqa: E402
from .attention import MultiheadAttention, attention_weights, keep_attention_weights  # noqa
from .positional import LearnedPositionalEmbedding, PositionalEncoding, TokenEmbedding  # noqa
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa
                          TransformerEncoder, TransformerEncoderLayer)
from . import objectives  # noqa: E402
from .hierarchical_softmax import HierarchicalSoftmax  # noqa: E402

from . import models  # noqa: E402  (last: models are built from the layers above)
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyConv1d, LazyConv2d,  # noqa: E402
                   LazyConvTranspose2d, LazyLinear, UninitializedParameter)


def __getattr__(name):
    """The save and load names ``nn`` had before ``nn.save``/``nn.load`` spoke every format
    (``save_pt``, ``load_safetensors``, ...): still there, with a DeprecationWarning."""
    from .formats import legacy
    if name in legacy.REPLACEMENTS:
        return legacy.lookup(name)
    raise AttributeError(f"module 'dagrad.nn' has no attribute {name!r}")
