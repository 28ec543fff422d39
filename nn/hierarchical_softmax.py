"""Hierarchical softmax: a distribution over C classes as a walk down a binary tree, so one
class's log-probability costs O(log C) dot products instead of the C of a full softmax."""
import heapq
import math
from collections import namedtuple

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.default_dtype import float_dtype

from . import init
from dagrad.autograd import as_array, as_tensor
from .functional._util import check_reduction, reduce
from .module import Module
from .parameter import Parameter

HSOutput = namedtuple("HSOutput", ["output", "loss"])


def _paths_from_children(children, num_classes):
    """Per-class root-to-leaf paths from a tree given as ``children[node] = (left, right)``
    (internal nodes 0..C-2, the root last; a child >= C-1 is the leaf of class child - (C-1)).
    Returns (nodes, signs), each (C, depth): the internal nodes on the path and +1 for a step
    to the left child, -1 to the right, padded with node 0 and sign 0."""
    offset = num_classes - 1
    paths = [None] * num_classes
    stack = [(offset - 1, [], [])] if offset else []
    while stack:
        node, nodes, signs = stack.pop()
        for child, sign in zip(children[node], (1.0, -1.0)):
            if child >= offset:
                paths[child - offset] = (nodes + [node], signs + [sign])
            else:
                stack.append((child, nodes + [node], signs + [sign]))
    if num_classes == 1:
        paths = [([], [])]
    depth = max(len(p[0]) for p in paths)
    nodes = np.zeros((num_classes, max(depth, 1)), np.int64)
    signs = np.zeros((num_classes, max(depth, 1)), np.float64)
    for c, (n, s) in enumerate(paths):
        nodes[c, :len(n)] = n
        signs[c, :len(s)] = s
    return nodes, signs


def balanced_tree(num_classes):
    """The balanced binary tree over classes 0..C-1 (each internal node splits its range of
    classes in halves; depth ⌈log₂ C⌉). Returns ``children``, a list of C-1 (left, right)
    pairs as ``_paths_from_children`` reads them."""
    offset = num_classes - 1
    children = [None] * offset
    next_id = [offset - 1]          # the root gets the last id, its descendants count down

    def build(lo, hi):              # returns the id of the subtree holding classes lo..hi-1
        if hi - lo == 1:
            return offset + lo
        node = next_id[0]
        next_id[0] -= 1
        pending.append((node, lo, hi))
        return node

    pending = []
    if offset:
        build(0, num_classes)
    while pending:
        node, lo, hi = pending.pop()
        mid = (lo + hi + 1) // 2
        children[node] = (build(lo, mid), build(mid, hi))
    return children


def huffman_tree(counts):
    """The Huffman tree of class frequencies ``counts`` (C,) (as word2vec builds it): frequent
    classes sit near the root, so the expected path length Σ_c f_c·depth(c) is minimal.
    Returns ``children`` as ``balanced_tree`` does."""
    counts = np.asarray(counts, dtype=np.float64)
    c = len(counts)
    offset = c - 1
    heap = [(float(n), i, offset + i) for i, n in enumerate(counts)]
    heapq.heapify(heap)
    children = [None] * offset
    for node in range(offset):          # the last node made is the root, id C-2
        n1, _, a = heapq.heappop(heap)
        n2, _, b = heapq.heappop(heap)
        children[node] = (a, b)
        heapq.heappush(heap, (n1 + n2, c + node, node))
    return children


def _log_sigmoid(x):
    """log σ(x) = -softplus(-x), exact for large |x|."""
    return -ag.softplus(-x, 1.0, math.inf)


class HierarchicalSoftmax(Module):
    """p(y = c | h) as the probability of the walk from the root of a binary tree to leaf c.

    Every internal node n has a weight vector w_n and bias b_n; at n the walk goes left with
    probability σ(w_n·h + b_n) and right with σ(-(w_n·h + b_n)). With path(c) the internal
    nodes from the root to leaf c and d_{c,l} = +1 (left) or -1 (right) its steps::

        log p(c | h) = Σ_l log σ(d_{c,l} (w_{n_l}·h + b_{n_l}))

    The probabilities of all C leaves sum to 1 exactly, because σ(s) + σ(-s) = 1 at every
    node. One class costs depth(c) dot products (⌈log₂ C⌉ in the balanced tree); the C - 1
    node vectors replace the C output vectors of a softmax layer.

    Args:
        in_features: size d of the input h.
        num_classes: C >= 2.
        counts: optional class frequencies (C,); when given the tree is the Huffman tree of
            the counts (frequent classes get short paths), else balanced.
        bias: learn b_n (default True).

    Parameters: ``weight`` (C-1, d), initialised to zero as in word2vec (every class starts
    with p = 2^-depth) and ``bias`` (C-1,). Buffers (not saved): ``path_nodes`` and
    ``path_signs`` (C, max depth).

    ``forward(input, target)`` -> (output, loss) like PyTorch's AdaptiveLogSoftmaxWithLoss:
    ``output`` (N,) the log-probabilities of the targets, ``loss`` their mean negative.
    ``log_prob(input)`` (N, C) gives every class; ``predict(input)`` the most likely class.
    """

    def __init__(self, in_features, num_classes, counts=None, bias=True, dtype=None):
        super().__init__()
        if num_classes < 2:
            raise ValueError(f"HierarchicalSoftmax: num_classes must be at least 2, got "
                             f"{num_classes}")
        self.in_features, self.num_classes = int(in_features), int(num_classes)
        if counts is None:
            children = balanced_tree(self.num_classes)
        else:
            counts = as_array(counts)
            if counts.shape != (num_classes,) or (counts < 0).any():
                raise ValueError(f"HierarchicalSoftmax: counts must be ({num_classes},) "
                                 f"non-negative class frequencies, got shape {tuple(counts.shape)}")
            children = huffman_tree(counts)
        nodes, signs = _paths_from_children(children, self.num_classes)
        dtype = float_dtype(dtype)
        self.register_buffer("path_nodes", ag.Tensor(nodes), persistent=False)
        self.register_buffer("path_signs", ag.Tensor(signs.astype(dtype)), persistent=False)
        self.weight = Parameter(np.zeros((num_classes - 1, in_features), dtype))
        if bias:
            self.bias = Parameter(np.zeros(num_classes - 1, dtype))
        else:
            self.register_parameter("bias", None)

    def reset_parameters(self):
        init.zeros_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def depths(self):
        """Path length of every class (C,) as an int array."""
        return (self.path_signs._data != 0).sum(axis=1)

    def _check(self, x, op):
        x = as_tensor(x)
        if x.ndim != 2 or x.shape[1] != self.in_features:
            raise ValueError(f"HierarchicalSoftmax.{op}: input must be (N, {self.in_features}),"
                             f" got {tuple(x.shape)}")
        return x

    def _signs(self, dtype):
        return self.path_signs._data.astype(dtype, copy=False)

    def forward(self, input, target):
        """(output, loss): output (N,) = log p(target_n | input_n), loss = -mean(output).

        Only the nodes on each target's path are touched: O(N · depth · d)."""
        x = self._check(input, "forward")
        t = as_array(target)
        if t.shape != (x.shape[0],) or not np.issubdtype(t.dtype, np.integer):
            raise ValueError(f"HierarchicalSoftmax.forward: target must be ({x.shape[0]},) "
                             f"class indices, got {tuple(t.shape)} {t.dtype}")
        if t.size and (t.min() < 0 or t.max() >= self.num_classes):
            raise IndexError(f"HierarchicalSoftmax.forward: targets must be in "
                             f"[0, {self.num_classes - 1}]")
        nodes = self.path_nodes._data[t]                            # (N, L)
        signs = self._signs(x.dtype)[t]                            # (N, L), 0 = padding
        scores = (self.weight[nodes] @ x.unsqueeze(-1)).squeeze(-1)   # (N, L): w_n · h
        if self.bias is not None:
            scores = scores + self.bias[nodes]
        output = (_log_sigmoid(scores * signs) * np.abs(signs)).sum(-1)
        return HSOutput(output, -output.mean())

    def loss(self, input, target, reduction="mean"):
        """Negative log-likelihood -log p(target | input), reduced as in PyTorch's losses."""
        check_reduction(reduction, "HierarchicalSoftmax.loss")
        return reduce(-self.forward(input, target).output, reduction)

    def log_prob(self, input):
        """log p(c | h) for every class: (N, in_features) -> (N, C); rows logsumexp to 0."""
        x = self._check(input, "log_prob")
        scores = ag.linear(x, self.weight, self.bias)              # (N, C-1), every node
        signs = self._signs(x.dtype)                               # (C, L)
        return (_log_sigmoid(scores[:, self.path_nodes._data] * signs)
                * np.abs(signs)).sum(-1)

    def predict(self, input):
        """The most likely class of each row, (N,) int64."""
        with ag.no_grad():
            return self.log_prob(input).argmax(-1)

    def extra_repr(self):
        depth = self.depths()
        return (f"{self.in_features}, {self.num_classes}, depth {depth.min()}..{depth.max()}, "
                f"bias={self.bias is not None}")
