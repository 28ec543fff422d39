"""The vision transformer (Dosovitskiy et al., 2021): an image read as a sequence of patches."""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_tensor
from dagrad.autograd.default_dtype import get_default_dtype

from .. import functional as F
from .. import init
from ..conv import Conv2d
from ..dropout import Dropout
from ..linear import Linear
from ..module import Module
from ..normalization import LayerNorm
from ..parameter import Parameter
from ..transformer import TransformerEncoder, TransformerEncoderLayer

PATCH_EMBEDDINGS = ("conv", "linear")
POOLS = ("cls", "mean")


class ViT(Module):
    """A vision transformer for small images::

        patches:   x (N, C, H, W) cut into P = (H/p)(W/p) non-overlapping p×p patches
        embed:     e_k = W_E vec(patch_k) + b_E                  (N, P, dim)
        tokens:    z⁰ = [x_cls; e_1; …; e_P] + E_pos             (N, P + 1, dim)
        encoder:   z = LayerNorm(TransformerEncoder(z⁰))         (pre-norm layers, GELU MLP)
        head:      logits = W_h z_0 + b_h                       (N, num_classes)

    The patch embedding is one linear map applied to every patch. ``patch_embedding="conv"``
    computes it as a Conv2d with kernel and stride p (``patch_embed.weight`` (dim, C, p, p));
    ``"linear"`` as ``F.unfold`` (im2col) followed by a Linear (``patch_embed.weight``
    (dim, C·p·p)). The two are the same function: reshaping one weight gives the other.
    The class token x_cls (``cls_token`` (1, 1, dim)) attends to every patch and its final
    state feeds the head (``pool="cls"``); ``pool="mean"`` averages the patch states instead.
    ``pos_embed`` (1, P + 1, dim) are learned position embeddings: attention itself is
    permutation-invariant, so without them the model could not tell where a patch was.

    Args: image_size (int or (H, W)), patch_size p (dividing H and W), in_channels C,
    num_classes, dim, depth (encoder layers), heads, mlp_dim (hidden width of each layer's
    MLP), dropout, patch_embedding, pool. Inputs (N, C, H, W), or flat (N, C·H·W) rows such as
    the 8x8 digits (N, 64).
    """

    def __init__(self, image_size=8, patch_size=2, in_channels=1, num_classes=10, dim=64,
                 depth=2, heads=4, mlp_dim=128, dropout=0.0, patch_embedding="conv",
                 pool="cls"):
        super().__init__()
        h, w = (image_size, image_size) if np.ndim(image_size) == 0 else tuple(image_size)
        if h % patch_size or w % patch_size:
            raise ValueError(f"ViT: patch_size {patch_size} must divide the image size "
                             f"({h}, {w})")
        if patch_embedding not in PATCH_EMBEDDINGS:
            raise ValueError(f"ViT: patch_embedding must be one of {PATCH_EMBEDDINGS}, got "
                             f"{patch_embedding!r}")
        if pool not in POOLS:
            raise ValueError(f"ViT: pool must be one of {POOLS}, got {pool!r}")
        self.image_size, self.patch_size, self.in_channels = (h, w), patch_size, in_channels
        self.num_patches = (h // patch_size) * (w // patch_size)
        self.patch_embedding, self.pool, self.dim = patch_embedding, pool, dim
        if patch_embedding == "conv":
            self.patch_embed = Conv2d(in_channels, dim, patch_size, stride=patch_size)
        else:
            self.patch_embed = Linear(in_channels * patch_size * patch_size, dim)
        self.cls_token = Parameter(np.zeros((1, 1, dim), get_default_dtype()))
        self.pos_embed = Parameter(np.zeros((1, self.num_patches + 1, dim),
                                             get_default_dtype()))
        init.trunc_normal_(self.cls_token, std=0.02)
        init.trunc_normal_(self.pos_embed, std=0.02)
        self.dropout = Dropout(dropout)
        layer = TransformerEncoderLayer(dim, heads, mlp_dim, dropout, activation="gelu",
                                        batch_first=True, norm_first=True)
        self.encoder = TransformerEncoder(layer, depth, norm=LayerNorm(dim),
                                          enable_nested_tensor=False)
        self.head = Linear(dim, num_classes)

    def _images(self, x):
        x = as_tensor(x)
        c, (h, w) = self.in_channels, self.image_size
        if x.ndim == 2 and x.shape[1] == c * h * w:
            x = x.reshape((x.shape[0], c, h, w))
        if x.ndim != 4 or x.shape[1:] != (c, h, w):
            raise ValueError(f"ViT: expected images (N, {c}, {h}, {w}) or rows (N, {c * h * w})"
                             f", got {tuple(x.shape)}")
        return x

    def patches(self, x):
        """The patch embeddings e_k: images -> (N, P, dim), patches in row-major order."""
        x = self._images(x)
        p = self.patch_size
        if self.patch_embedding == "conv":
            e = self.patch_embed(x)                                     # (N, dim, H/p, W/p)
            return e.flatten(2).transpose(1, 2)
        cols = F.unfold(x, p, stride=p)                                 # (N, C·p·p, P)
        return self.patch_embed(cols.transpose(1, 2))

    def features(self, x):
        """The encoder's output for every token, (N, P + 1, dim); token 0 is the class token."""
        e = self.patches(x)
        cls = self.cls_token.expand((e.shape[0], 1, self.dim))
        z = self.dropout(ag.cat([cls, e], 1) + self.pos_embed)
        return self.encoder(z)

    def forward(self, x):
        """Class logits (N, num_classes)."""
        z = self.features(x)
        pooled = z[:, 0] if self.pool == "cls" else z[:, 1:].mean(1)
        return self.head(pooled)

    def extra_repr(self):
        return (f"image_size={self.image_size}, patch_size={self.patch_size}, "
                f"patches={self.num_patches}, patch_embedding={self.patch_embedding!r}, "
                f"pool={self.pool!r}")
