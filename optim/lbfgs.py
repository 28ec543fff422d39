"""L-BFGS, PyTorch's algorithm step for step (``torch.optim.LBFGS``, after minFunc).

A quasi-Newton method: it keeps the last ``history_size`` pairs of steps sₖ = θₖ₊₁ - θₖ and
gradient changes yₖ = gₖ₊₁ - gₖ, and turns the gradient into a direction d = -H g with the
two-loop recursion, where H approximates the inverse Hessian (initial scaling
H₀ = (sᵀy / yᵀy) I, the most recent pair's curvature)::

    q = -g;  for i = newest..oldest:  αᵢ = ρᵢ sᵢᵀq,  q -= αᵢ yᵢ        (ρᵢ = 1 / yᵢᵀsᵢ)
    r = H₀ q;  for i = oldest..newest:  βᵢ = ρᵢ yᵢᵀr,  r += (αᵢ - βᵢ) sᵢ
    d = r

then steps θ ← θ + t d with t = lr (the first step of all: t = lr · min(1, 1/‖g‖₁)), or
with t from a strong-Wolfe line search (``line_search_fn="strong_wolfe"``). One ``step``
runs up to ``max_iter`` such iterations and needs ``closure``, a function that clears the
gradients, recomputes the loss, calls ``backward()`` and returns the loss.
"""
import numpy as np

from dagrad import autograd as ag
from dagrad.autograd.versions import mark_written

from .optimizer import NONNEGATIVE, Optimizer


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimiser of the cubic through (x1, f1) and (x2, f2) with slopes g1, g2, clipped
    to ``bounds`` (default: the interval between x1 and x2); the midpoint when the cubic has
    no minimum."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1 ** 2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step t along d meeting the strong Wolfe conditions
    f(x + t d) <= f + c1 t gᵀd (enough decrease) and |g(x + t d)ᵀd| <= c2 |gᵀd| (curvature):
    bracket such a t, then zoom in by cubic interpolation. Returns (f, g, t, evaluations)."""
    d_norm = np.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:                                  # bracketing phase
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                               bounds=(min_step, max_step))
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:                     # zoom phase
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a point too close to the bracket's ends makes little progress: move it inwards
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos], bracket_f[high_pos] = bracket[low_pos], bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    return bracket_f[low_pos], bracket_g[low_pos], bracket[low_pos], ls_func_evals


class LBFGS(Optimizer):
    """Limited-memory BFGS with PyTorch's arguments and update (see the module docstring).

    Args:
        params: the tensors to optimise (one group only, as PyTorch).
        lr: step size (1 by default: the quasi-Newton step is already scaled).
        max_iter: iterations per ``step(closure)``.
        max_eval: function evaluations per step (default ``max_iter * 5 // 4``).
        tolerance_grad: stop when max |g| <= tolerance_grad.
        tolerance_change: stop when the step or the change in loss is smaller than this.
        history_size: number of (s, y) pairs kept.
        line_search_fn: None (fixed step ``lr``) or ``"strong_wolfe"``.

    ``step(closure)`` returns the loss ``closure`` gave at the starting point.
    """

    _ranges = {"lr": NONNEGATIVE}

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"LBFGS: line_search_fn must be None or 'strong_wolfe', got "
                             f"{line_search_fn!r}")
        super().__init__(params, dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                                      tolerance_grad=tolerance_grad,
                                      tolerance_change=tolerance_change,
                                      history_size=history_size,
                                      line_search_fn=line_search_fn))
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # the parameters as one flat vector
    def _gather_flat_grad(self):
        return np.concatenate([np.zeros(p._data.size, p._data.dtype) if p.grad is None
                               else p.grad._data.reshape(-1) for p in self._params])

    def _add_grad(self, step_size, update):
        offset = 0
        for p in self._params:
            n = p._data.size
            p._data += (step_size * update[offset:offset + n]).reshape(p._data.shape).astype(
                p._data.dtype, copy=False)
            mark_written(p)
            offset += n

    def _clone_param(self):
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data):
            p._data[...] = data
            mark_written(p)

    def _evaluate(self, closure):
        with ag.enable_grad():
            return closure()

    def _directional_evaluate(self, closure, x, t, d):
        self._add_grad(t, d)
        loss = float(self._evaluate(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure=None):
        """Run up to ``max_iter`` L-BFGS iterations; ``closure`` recomputes loss and grads."""
        if closure is None:
            raise TypeError("LBFGS.step needs a closure: a function that clears the gradients, "
                            "computes the loss, calls loss.backward() and returns the loss")
        with ag.no_grad():
            return self._step(closure)

    def _step(self, closure):
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        if self._lent:
            self._own_state()
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = self._evaluate(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        if np.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss

        d, t = state.get("d"), state.get("t")
        old_dirs, old_stps, ro = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")

        n_iter, opt_cond = 0, False
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:                         # steepest descent first
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:                                            # two-loop recursion
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:                               # keep only positive curvature
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0), old_stps.pop(0), ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(1.0 / ys)
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                al = [None] * num_old
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = q - al[i] * old_dirs[i]
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r += (al[i] - be_i) * old_stps[i]
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:                      # not a descent direction
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = np.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    loss = float(self._evaluate(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = np.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if np.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break

        state.update(d=d, t=t, old_dirs=old_dirs, old_stps=old_stps, ro=ro, H_diag=H_diag,
                     prev_flat_grad=prev_flat_grad, prev_loss=prev_loss)
        return orig_loss
