"""Maximum-inner-product search (MIPS): for each query q, the k keys with the largest q·k.

This is top-k retrieval with a dot-product model: the k most likely classes of a softmax layer
(keys = output vectors w_c, plus the bias), the nearest words by cosine similarity (keys and
queries normalised to unit length), two-tower recommenders. ``topk_inner_product`` is the exact
brute-force reference, O(m·n·d) for m queries and n keys; ``MIPSIndex`` clusters the keys
once and scores only the clusters that can still hold a top-k key, with a certificate of
exactness per query. Plain NumPy: retrieval needs no gradients. ``Word2Vec.most_similar`` and
the sampled-softmax notebook use it.
"""
import numpy as np

from dagrad.autograd import as_array


def _augment(queries, keys, bias):
    """q·k + b as one inner product: [q, 1]·[k, b]."""
    q = as_array(queries)
    k = as_array(keys)
    if q.ndim == 1:
        q = q[None]
    if q.ndim != 2 or k.ndim != 2 or q.shape[1] != k.shape[1]:
        raise ValueError(f"MIPS: queries (m, d) and keys (n, d) must share d, got {tuple(q.shape)} "
                         f"and {tuple(k.shape)}")
    if bias is not None:
        b = as_array(bias).reshape(-1, 1)
        if len(b) != len(k):
            raise ValueError(f"MIPS: bias must have one entry per key ({len(k)}), got {len(b)}")
        q = np.concatenate([q, np.ones((len(q), 1), q.dtype)], axis=1)
        k = np.concatenate([k, b.astype(k.dtype)], axis=1)
    return q, k


def _check_k(k, n):
    if not 1 <= k <= n:
        raise ValueError(f"MIPS: k must be between 1 and the number of keys ({n}), got {k}")


def _top_rows(scores, ids, k):
    """The k largest entries of every row of ``scores`` (with their ``ids``), sorted
    decreasingly. scores, ids (m, p) with p >= k -> (m, k), (m, k)."""
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k]
    s = np.take_along_axis(scores, part, 1)
    order = np.argsort(-s, axis=1, kind="stable")
    return np.take_along_axis(s, order, 1), np.take_along_axis(np.take_along_axis(ids, part, 1),
                                                               order, 1)


def topk_inner_product(queries, keys, k, bias=None, exclude=None):
    """Exact top-k by brute force: score every key, s_ij = q_i·k_j (+ b_j), keep the k largest.

    queries (m, d) or (d,), keys (n, d), bias (n,) optional; ``exclude`` (m, e) ids that must
    not be returned for each query (-1 = no exclusion; e.g. the query word itself).
    Returns (scores, ids), each (m, k), best first.
    """
    q, keys = _augment(queries, keys, bias)
    _check_k(k, len(keys))
    scores = q @ keys.T
    if exclude is not None:
        ex = np.asarray(exclude, dtype=np.int64).reshape(len(q), -1)
        rows = np.broadcast_to(np.arange(len(q))[:, None], ex.shape)
        keep = ex >= 0
        scores[rows[keep], ex[keep]] = -np.inf
    ids = np.broadcast_to(np.arange(len(keys)), scores.shape)
    return _top_rows(scores, ids, k)


def recall_at_k(found, reference):
    """Mean fraction of the reference top-k ids (m, k) that ``found`` (m, k) also returned."""
    found, reference = np.asarray(found), np.asarray(reference)
    hits = (found[:, :, None] == reference[:, None, :]).any(axis=1)
    return float(hits.mean())


def kmeans(x, n_clusters, n_iter=20, seed=0):
    """Lloyd's k-means: (centroids (K, d), assignment (n,)). Starts from K distinct rows
    chosen at random; an emptied cluster is re-seeded at the point farthest from its centroid."""
    x = np.asarray(x, dtype=np.float64)
    rng = np.random.default_rng(seed)
    centroids = x[rng.choice(len(x), size=n_clusters, replace=False)].copy()
    sq = (x * x).sum(1)
    for _ in range(n_iter):
        d2 = sq[:, None] - 2 * x @ centroids.T + (centroids * centroids).sum(1)
        assign = d2.argmin(1)
        counts = np.bincount(assign, minlength=n_clusters)
        sums = np.zeros_like(centroids)
        np.add.at(sums, assign, x)
        empty = counts == 0
        centroids[~empty] = sums[~empty] / counts[~empty, None]
        if empty.any():
            far = np.argsort(-d2[np.arange(len(x)), assign])[:empty.sum()]
            centroids[empty] = x[far]
    d2 = sq[:, None] - 2 * x @ centroids.T + (centroids * centroids).sum(1)
    return centroids, d2.argmin(1)


class MIPSIndex:
    """A clustered (inverted-file) index for maximum-inner-product search with a certificate.

    The keys are split by k-means into K clusters with centroids c and radii
    r = max ‖k - c‖ over the cluster. By Cauchy-Schwarz every key of a cluster satisfies

        q·k = q·c + q·(k - c) ≤ q·c + ‖q‖·r          (the cluster's upper bound)

    A query visits clusters in decreasing order of that bound and scores their keys. Once the
    k-th best score found is at least the bound of every unvisited cluster, no unvisited key
    can enter the top k: the answer is exact (branch and bound). ``search(q, k)`` runs until
    every query is certified (exact, usually after a fraction of the keys); ``search(q, k,
    nprobe=p)`` visits at most p clusters (approximate, faster) and reports which queries were
    still certified. Rounds are vectorised over the queries.

    Args: keys (n, d); bias (n,) optional (scores q·k + b); n_clusters (default ≈ √n);
    n_iter and seed for k-means. After a search, ``last_scored`` is the mean fraction of keys
    scored per query (brute force scores all of them, 1.0).
    """

    def __init__(self, keys, bias=None, n_clusters=None, n_iter=20, seed=0):
        _, self.keys = _augment(np.zeros((1, np.shape(keys)[1])), keys, bias)
        self.has_bias = bias is not None
        n = len(self.keys)
        n_clusters = int(n_clusters or max(1, round(np.sqrt(n))))
        if not 1 <= n_clusters <= n:
            raise ValueError(f"MIPSIndex: n_clusters must be between 1 and {n}, got "
                             f"{n_clusters}")
        self.centroids, assign = kmeans(self.keys, n_clusters, n_iter, seed)
        self.radii = np.zeros(n_clusters)
        np.maximum.at(self.radii, assign,
                      np.linalg.norm(self.keys - self.centroids[assign], axis=1))
        order = np.argsort(assign, kind="stable")
        sizes = np.bincount(assign, minlength=n_clusters)
        self.members = np.full((n_clusters, sizes.max()), -1, np.int64)   # padded with -1
        slot = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        self.members[assign[order], slot] = order
        self.last_scored = None

    def __len__(self):
        return len(self.keys)

    def search(self, queries, k, nprobe=None):
        """(scores (m, k), ids (m, k), exact (m,) bool): the best keys found, best first, and
        whether each row is certified to equal the brute-force answer."""
        q = as_array(queries)
        if q.ndim == 1:
            q = q[None]
        d = self.keys.shape[1] - self.has_bias
        if q.ndim != 2 or q.shape[1] != d:
            raise ValueError(f"MIPSIndex.search: queries must be (m, {d}), got "
                             f"{np.shape(queries)}")
        if self.has_bias:
            q = np.concatenate([q, np.ones((len(q), 1), q.dtype)], axis=1)
        _check_k(k, len(self.keys))
        m, n_clusters = len(q), len(self.centroids)
        bounds = q @ self.centroids.T + np.linalg.norm(q, axis=1, keepdims=True) * self.radii
        visit = np.argsort(-bounds, axis=1)                           # (m, K) best bound first
        sorted_bounds = np.take_along_axis(bounds, visit, 1)
        best_s = np.full((m, k), -np.inf)
        best_i = np.full((m, k), -1, np.int64)
        exact = np.zeros(m, bool)
        scored = np.zeros(m)
        limit = n_clusters if nprobe is None else min(int(nprobe), n_clusters)
        for r in range(limit):
            rows = np.flatnonzero(~exact)
            if not len(rows):
                break
            cand = self.members[visit[rows, r]]                       # (a, max size)
            valid = cand >= 0
            s = np.einsum("ad,apd->ap", q[rows], self.keys[np.where(valid, cand, 0)])
            s[~valid] = -np.inf
            scored[rows] += valid.sum(1)
            best_s[rows], best_i[rows] = _top_rows(
                np.concatenate([best_s[rows], s], 1), np.concatenate([best_i[rows], cand], 1), k)
            next_bound = sorted_bounds[rows, r + 1] if r + 1 < n_clusters else -np.inf
            exact[rows] = best_s[rows, -1] >= next_bound
        self.last_scored = float(scored.mean() / len(self.keys))
        return best_s, best_i, exact
