"""The multilayer perceptron."""
from ..activation import ELU, GELU, LeakyReLU, ReLU, Sigmoid, SiLU, Softplus, Tanh
from ..containers import Sequential
from ..dropout import Dropout
from ..linear import Identity, Linear
from ..module import Module
from ..normalization import BatchNorm1d, LayerNorm

ACTIVATIONS = {"relu": ReLU, "leaky_relu": LeakyReLU, "elu": ELU, "gelu": GELU, "silu": SiLU,
               "sigmoid": Sigmoid, "tanh": Tanh, "softplus": Softplus, "identity": Identity}
NORMS = {None: None, "batch": BatchNorm1d, "layer": LayerNorm}


class MLP(Sequential):
    """A stack of fully connected layers: for sizes [d₀, d₁, …, d_L],

        h₀ = x,   hₖ = dropout(act(norm(W_k h_{k-1} + b_k))) for k < L,   y = W_L h_{L-1} + b_L

    The last layer has no activation (it outputs logits or regression values).

    Args:
        sizes: layer widths, input first and output last, e.g. [64, 128, 64, 10].
        activation: "relu" (default), "leaky_relu", "elu", "gelu", "silu", "sigmoid", "tanh",
            "softplus", "identity", or a Module class / factory called with no arguments.
        dropout: dropout probability after each hidden activation (0 = no dropout layers).
        norm: None, "batch" (BatchNorm1d) or "layer" (LayerNorm) after each hidden linear layer.

    It is a ``Sequential``, so its children are numbered ("0", "1", ...) and its state dict
    matches the same stack of layers built with ``torch.nn.Sequential``.
    """

    def __init__(self, sizes, activation="relu", dropout=0.0, norm=None):
        sizes = [int(s) for s in sizes]
        if len(sizes) < 2 or min(sizes) < 1:
            raise ValueError(f"MLP: sizes must list at least an input and an output width, all "
                             f"positive, got {sizes}")
        if isinstance(activation, str):
            if activation not in ACTIVATIONS:
                raise ValueError(f"MLP: unknown activation {activation!r}; choose one of "
                                 f"{sorted(ACTIVATIONS)} or pass a Module class")
            activation = ACTIVATIONS[activation]
        if norm not in NORMS:
            raise ValueError(f"MLP: norm must be None, 'batch' or 'layer', got {norm!r}")
        if not 0.0 <= dropout < 1.0:
            raise ValueError(f"MLP: dropout must be in [0, 1), got {dropout}")
        layers = []
        for d_in, d_out in zip(sizes[:-2], sizes[1:-1]):
            layers.append(Linear(d_in, d_out))
            if norm is not None:
                layers.append(NORMS[norm](d_out))
            act = activation()
            if not isinstance(act, Module):
                raise TypeError(f"MLP: activation must create a Module, got "
                                f"{type(act).__name__}")
            layers.append(act)
            if dropout > 0:
                layers.append(Dropout(dropout))
        layers.append(Linear(sizes[-2], sizes[-1]))
        super().__init__(*layers)
        self.sizes = sizes
