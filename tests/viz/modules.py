"""Small module stacks for the viz tests."""
import math

from dagrad import autograd as ag
from dagrad import nn
from dagrad.nn.models import MLP


class Block(nn.Module):
    """A Transformer-like block: pre-norm single-head self-attention and an MLP, residual."""

    def __init__(self, d):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q, self.k, self.v = nn.Linear(d, d), nn.Linear(d, d), nn.Linear(d, d)
        self.mlp = MLP([d, 2 * d, d], activation="gelu")
        self.scale = 1.0 / math.sqrt(d)

    def forward(self, x):
        h = self.ln1(x)
        scores = self.q(h) @ self.k(h).transpose(-1, -2) * self.scale
        x = x + ag.softmax(scores, dim=-1) @ self.v(h)
        return x + self.mlp(self.ln2(x))


def block_stack(d=8, layers=2, seed=0):
    ag.manual_seed(seed)
    return nn.Sequential(*[Block(d) for _ in range(layers)])
