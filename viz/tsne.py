"""t-SNE (van der Maaten and Hinton, 2008): a 2-D map of high-dimensional points whose
neighbourhoods match, found by minimising a KL divergence with dagrad's autograd. Draw the map
with ``viz.embedding_plot``."""
import math

import numpy as np

from dagrad import autograd as ag
from dagrad.autograd import as_array


def squared_distances(x):
    """‖x_i - x_j‖² for all pairs, as ‖x_i‖² + ‖x_j‖² - 2 x_i·x_j: (N, D) -> (N, N).
    Works on arrays and Tensors (the same expression)."""
    sq = (x * x).sum(1)
    return sq.reshape((-1, 1)) + sq.reshape((1, -1)) - 2 * (x @ x.T)


def conditional_probabilities(x, perplexity=30.0, tol=1e-5, max_steps=100):
    """p_{j|i} = exp(-β_i d_ij) / Σ_{k≠i} exp(-β_i d_ik), d_ij = ‖x_i - x_j‖², with β_i
    (= 1/2σ_i²) set for every row by bisection so the row's perplexity 2^H(P_i) equals
    ``perplexity`` (its entropy H_i = log(perplexity) in nats): a row's distribution spreads
    over about ``perplexity`` neighbours whatever the local density. All rows bisect at once.
    (N, D) -> (P (N, N) with zero diagonal and rows summing to 1, β (N,))."""
    x = as_array(x, np.float64)
    n = len(x)
    if not 1 <= perplexity < n:
        raise ValueError(f"t-SNE: perplexity must be at least 1 and below the number of "
                         f"points ({n}), got {perplexity}")
    d = np.maximum(squared_distances(x), 0.0)
    np.fill_diagonal(d, np.inf)                # exp(-β·inf) = 0: a point is not its neighbour
    d = d - d.min(1, keepdims=True)            # shift each row: exp never underflows to 0/0
    finite_d = np.where(np.isfinite(d), d, 0.0)
    target = math.log(perplexity)
    lo, hi = np.zeros(n), np.full(n, np.inf)
    beta = np.full(n, 1.0 / max(np.median(finite_d), 1e-12))
    for _ in range(max_steps):
        e = np.exp(-beta[:, None] * d)
        s = e.sum(1)
        p = e / s[:, None]
        entropy = np.log(s) + beta * (p * finite_d).sum(1)      # H = -Σ p log p
        err = entropy - target
        if np.abs(err).max() < tol:
            break
        too_flat = err > 0                     # entropy falls as β grows: raise β
        lo = np.where(too_flat, beta, lo)
        hi = np.where(too_flat, hi, beta)
        beta = np.where(np.isfinite(hi), (lo + hi) / 2, beta * 2)
    return p, beta


def joint_probabilities(x, perplexity=30.0):
    """The symmetric input affinities p_ij = (p_{j|i} + p_{i|j}) / 2N: (N, D) -> (N, N),
    zero diagonal, summing to 1 (float64)."""
    p, _ = conditional_probabilities(x, perplexity)
    return (p + p.T) / (2 * len(p))


def kl_divergence(y, p, exaggeration=1.0, p_log_p=None):
    """KL(P ‖ Q) of the map y (N, 2) Tensor against input affinities P (N, N) (a constant),
    with the heavy-tailed (Student-t, one degree of freedom) map affinities

        w_ij = (1 + ‖y_i - y_j‖²)⁻¹,   q_ij = w_ij / Σ_{k≠l} w_kl
        KL = Σ_ij p_ij log p_ij - α Σ_ij p_ij log w_ij + log Σ_{k≠l} w_kl

    which for α = 1 is Σ p log(p/q). ``exaggeration`` α > 1 (early exaggeration) multiplies
    the attraction only; the gradient autograd computes is then the paper's

        dC/dy_i = 4 Σ_j (α p_ij - q_ij) w_ij (y_i - y_j)

    ``p_log_p``: the constant Σ p log p, if already known (it does not change the gradient).
    Returns a scalar Tensor.
    """
    p = as_array(p)
    if p_log_p is None:
        p_log_p = _p_log_p(p)
    t = 1 + squared_distances(y)                                # 1/w_ij; the diagonal is 1
    log_z = ag.log((1 / t).sum() - len(p))                      # Σ_{k≠l} w_kl
    return p_log_p + exaggeration * (ag.log(t) * p.astype(y.dtype, copy=False)).sum() + log_z


def _p_log_p(p):
    positive = p[p > 0]
    return float(np.sum(positive * np.log(positive)))


class TSNE:
    """t-distributed stochastic neighbour embedding, with scikit-learn's arguments.

    Input affinities P come from Gaussian neighbourhoods of the given ``perplexity``
    (``joint_probabilities``); the map y starts from the top principal components scaled to a
    standard deviation of 1e-4 (``init="pca"``) or from N(0, 1e-4 I) (``init="random"``) and
    minimises ``kl_divergence`` by gradient descent whose gradient comes from autograd, with

        momentum:        Δ ← μ Δ - η g ⊙ gains,   y ← y + Δ  (μ = 0.5, then 0.8)
        adaptive gains:  +0.2 where g and Δ point opposite ways, ×0.8 elsewhere (min 0.01)
        early exaggeration: α = ``early_exaggeration`` for the first ``n_iter_exaggeration``
            steps (clusters form and move freely), then α = 1

    ``learning_rate="auto"`` is max(N / α / 4, 50) (Belkina et al., 2019, as scikit-learn).
    Dense: O(N²) time and memory per step, for up to a few thousand points.

    After ``fit_transform(X)`` (X (N, D) -> (N, n_components) ndarray): ``embedding_``,
    ``kl_divergence_`` (the final KL), ``kl_history_`` (KL at every step, exaggerated during
    the first phase) and ``n_iter_``.
    """

    def __init__(self, n_components=2, perplexity=30.0, early_exaggeration=12.0,
                 learning_rate="auto", max_iter=1000, n_iter_exaggeration=250, init="pca",
                 random_state=None, momentum=(0.5, 0.8), dtype=np.float32):
        if init not in ("pca", "random"):
            raise ValueError(f"TSNE: init must be 'pca' or 'random', got {init!r}")
        if not (learning_rate == "auto" or float(learning_rate) > 0):
            raise ValueError(f"TSNE: learning_rate must be 'auto' or positive, got "
                             f"{learning_rate!r}")
        self.n_components, self.perplexity = int(n_components), float(perplexity)
        self.early_exaggeration, self.learning_rate = float(early_exaggeration), learning_rate
        self.max_iter, self.n_iter_exaggeration = int(max_iter), int(n_iter_exaggeration)
        self.init, self.random_state, self.momentum = init, random_state, momentum
        self.dtype = np.dtype(dtype)

    def _initial_map(self, x):
        if self.init == "pca":
            centred = x - x.mean(0)
            _, _, vt = np.linalg.svd(centred, full_matrices=False)
            y = centred @ vt[:self.n_components].T
            return y / y[:, 0].std() * 1e-4
        return np.random.default_rng(self.random_state).normal(
            0.0, 1e-4, (len(x), self.n_components))

    def fit_transform(self, X):
        """Embed the rows of X (N, D); returns the map (N, n_components) as an ndarray."""
        x = as_array(X, np.float64)
        if x.ndim != 2:
            raise ValueError(f"TSNE: X must be (N, D), got shape {tuple(x.shape)}")
        n = len(x)
        p = joint_probabilities(x, self.perplexity)
        lr = (max(n / self.early_exaggeration / 4, 50.0) if self.learning_rate == "auto"
              else float(self.learning_rate))
        p_log_p = _p_log_p(p)
        p = p.astype(self.dtype)
        y = ag.tensor(self._initial_map(x).astype(self.dtype), requires_grad=True)
        update = np.zeros(y.shape, self.dtype)
        gains = np.ones(y.shape, self.dtype)
        history = []
        for step in range(self.max_iter):
            early = step < self.n_iter_exaggeration
            loss = kl_divergence(y, p, self.early_exaggeration if early else 1.0, p_log_p)
            y.grad = None
            loss.backward()
            g = y.grad._data
            history.append(loss.item())
            same_direction = (update * g) > 0
            gains = np.where(same_direction, gains * 0.8, gains + 0.2)
            np.maximum(gains, 0.01, out=gains)
            update = self.momentum[0 if early else 1] * update - lr * gains * g
            with ag.no_grad():                # in place, outside the graph (like an optimizer)
                y.add_(update)
        self.embedding_ = y._data.copy()
        self.kl_history_ = history
        with ag.no_grad():
            self.kl_divergence_ = kl_divergence(ag.tensor(self.embedding_), p, 1.0, p_log_p).item()
        self.n_iter_ = self.max_iter
        return self.embedding_
