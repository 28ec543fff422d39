"""Learning-rate schedulers: change ``group["lr"]`` of an optimizer's groups epoch by epoch.

Usage, as in PyTorch: build the scheduler after the optimizer, call ``optimizer.step()`` for
every batch and ``scheduler.step()`` once per epoch.  Every scheduler records each group's
starting rate as ``group["initial_lr"]`` (``base_lrs``), keeps the epoch count in
``last_epoch`` and the rates it last set in ``get_last_lr()``.  The updates are PyTorch's
recursive ("chainable") forms, so the sequences equal ``torch.optim.lr_scheduler``'s.
"""
import copy
import math
import types
from bisect import bisect_right
from collections import Counter

from .optimizer import Optimizer


def _positive(scheduler, name, value, meaning):
    """``value`` when it is a positive number; else a ValueError saying what it means (PyTorch
    would divide by it and raise ZeroDivisionError at the first step)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{scheduler}: {name} must be a positive number ({meaning}), got "
                         f"{value!r}")
    return value


def _current_lrs(optimizer):
    return [group["lr"] for group in optimizer.param_groups]


class LRScheduler:
    """Base class: subclasses give ``get_lr()`` (next rates from the current ones).

    Args:
        optimizer: the ``Optimizer`` whose groups' ``"lr"`` this scheduler sets.
        last_epoch: index of the last epoch done; -1 (default) starts fresh.  Any other
            value resumes, and needs ``"initial_lr"`` in every group.

    Constructing a scheduler performs its first step (epoch 0), which may already change
    ``group["lr"]`` (e.g. LinearLR's warm-up start).
    """

    _is_initial = False     # True only during the step taken by the constructor
    _saved_apart = ()       # attributes a subclass's state_dict stores in its own way

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(self).__name__}: expected an optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.optimizer = optimizer
        for i, group in enumerate(optimizer.param_groups):
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError(f"{type(self).__name__}: param_groups[{i}] has no 'initial_lr' "
                               f"but last_epoch={last_epoch} asks to resume; load the "
                               f"optimizer's state_dict first, or use last_epoch=-1")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self):
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def get_lr(self):
        """The learning rates for epoch ``last_epoch`` (one per parameter group)."""
        raise NotImplementedError

    def get_last_lr(self):
        """The learning rates this scheduler set most recently, one per parameter group."""
        return self._last_lr

    def step(self):
        """Advance one epoch and write the new rates into ``optimizer.param_groups``."""
        self._step_count += 1
        self.last_epoch += 1
        self._set_lrs(self.get_lr())

    def _jump_to(self, epoch):
        """Set ``last_epoch = epoch`` and its rates (closed form where there is one)."""
        self.last_epoch = epoch
        closed_form = getattr(self, "_closed_form_lr", None)
        self._set_lrs(closed_form() if closed_form else self.get_lr())

    def _set_lrs(self, lrs):
        for group, lr in zip(self.optimizer.param_groups, lrs):
            group["lr"] = lr
        self._last_lr = _current_lrs(self.optimizer)

    def state_dict(self):
        """Every attribute except the optimizer, deep-copied."""
        skip = ("optimizer",) + self._saved_apart
        return {k: copy.deepcopy(v) for k, v in self.__dict__.items() if k not in skip}

    def load_state_dict(self, state_dict):
        """Restore attributes saved by ``state_dict()`` (deep-copied)."""
        self.__dict__.update({k: copy.deepcopy(v) for k, v in state_dict.items()
                              if k not in self._saved_apart})


def _factor(scheduler, fn, epoch):
    """``fn(epoch)``, the factor LambdaLR multiplies the learning rate by: a number, else a
    TypeError naming the function and what it returned."""
    value = fn(epoch)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__float__"):
        raise TypeError(f"{scheduler}: lr_lambda must return a number (the factor for the "
                        f"learning rate), but {getattr(fn, '__name__', fn)!r} returned "
                        f"{type(value).__name__} {value!r:.60} at epoch {epoch}")
    return value


class LambdaLR(LRScheduler):
    """lr_t = initial_lr · λ(t), with λ a function of the epoch t (one per group, or shared).

    Args:
        optimizer: the Optimizer.
        lr_lambda: callable ``int -> float``, or a list of them, one per parameter group.
        last_epoch: see ``LRScheduler``.

    ``state_dict`` stores the ``__dict__`` of callable objects, not plain functions/lambdas.
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        n = len(optimizer.param_groups)
        if isinstance(lr_lambda, (list, tuple)):
            if len(lr_lambda) != n:
                raise ValueError(f"LambdaLR: expected {n} lr_lambdas (one per parameter "
                                 f"group), got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        else:
            self.lr_lambdas = [lr_lambda] * n
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        return [base * _factor(type(self).__name__, fn, self.last_epoch)
                for fn, base in zip(self.lr_lambdas, self.base_lrs)]

    _saved_apart = ("lr_lambdas",)

    def state_dict(self):
        state = super().state_dict()
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType)
                               else copy.deepcopy(fn.__dict__) for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        for fn, attrs in zip(self.lr_lambdas, state_dict["lr_lambdas"]):
            if attrs is not None:
                fn.__dict__.update(copy.deepcopy(attrs))


class StepLR(LRScheduler):
    """Multiply the rate by ``gamma`` every ``step_size`` epochs.

    lr_t = initial_lr · gamma^⌊t / step_size⌋   (computed recursively: lr <- gamma · lr
    whenever t is a positive multiple of step_size).

    Args: optimizer; step_size (int, epochs between decays); gamma (float factor);
    last_epoch (see ``LRScheduler``).
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size = _positive("StepLR", "step_size", step_size,
                                       "the number of epochs between two decays")
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _current_lrs(self.optimizer)
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply the rate by ``gamma`` at each epoch listed in ``milestones``.

    lr_t = initial_lr · gamma^(number of milestones <= t); a milestone listed twice counts
    twice.

    Args: optimizer; milestones (iterable of int epochs); gamma (float factor); last_epoch.
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _current_lrs(self.optimizer)
        if self.last_epoch not in self.milestones:
            return lrs
        return [lr * self.gamma ** self.milestones[self.last_epoch] for lr in lrs]

    def _closed_form_lr(self):
        milestones = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(milestones, self.last_epoch)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply the rate by ``gamma`` every epoch: lr_t = initial_lr · gamma^t.

    Args: optimizer; gamma (float factor per epoch); last_epoch (see ``LRScheduler``).
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _current_lrs(self.optimizer)
        if self._is_initial:
            return lrs
        return [lr * self.gamma for lr in lrs]

    def _closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale the rate linearly from ``start_factor`` to ``end_factor`` over ``total_iters``.

    lr_t = initial_lr · (s + (e - s) · min(t, T) / T) with s = start_factor,
    e = end_factor, T = total_iters; computed recursively as PyTorch does.  The usual warm-up.

    Args: optimizer; start_factor (float in (0, 1]); end_factor (float in [0, 1]);
    total_iters (int); last_epoch (see ``LRScheduler``).
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1:
            raise ValueError(f"LinearLR: start_factor must be in (0, 1], got {start_factor!r}")
        if not 0 <= end_factor <= 1:
            raise ValueError(f"LinearLR: end_factor must be in [0, 1], got {end_factor!r}")
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        lrs = _current_lrs(self.optimizer)
        if self.last_epoch == 0:
            return [lr * self.start_factor for lr in lrs]
        if self._is_initial or self.last_epoch > self.total_iters:
            return lrs
        span = self.end_factor - self.start_factor
        ratio = 1.0 + span / (self.total_iters * self.start_factor
                              + (self.last_epoch - 1) * span)
        return [lr * ratio for lr in lrs]

    def _closed_form_lr(self):
        span = self.end_factor - self.start_factor
        fraction = min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * (self.start_factor + span * fraction) for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    """Cosine annealing from initial_lr down to ``eta_min`` over ``T_max`` epochs.

    Closed form: lr_t = η_min + (η_max - η_min) · (1 + cos(π t / T_max)) / 2.  Computed with
    PyTorch's recursive form (each rate from the previous one), so the values equal
    ``torch.optim.lr_scheduler.CosineAnnealingLR``'s — including after T_max, where the
    rate climbs back up instead of restarting.

    Args: optimizer; T_max (int, epochs of one half-period); eta_min (float, lowest rate);
    last_epoch (see ``LRScheduler``).
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        self.T_max = _positive("CosineAnnealingLR", "T_max", T_max,
                                   "the number of epochs from the top rate to eta_min")
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        t, T, low = self.last_epoch, self.T_max, self.eta_min
        lrs = _current_lrs(self.optimizer)
        if self._is_initial:
            return lrs
        if self._step_count == 1 and t > 0:
            return [low + (base - low) * (1 + math.cos(t * math.pi / T)) / 2
                    for base in self.base_lrs]
        if (t - 1 - T) % (2 * T) == 0:
            return [lr + (base - low) * (1 - math.cos(math.pi / T)) / 2
                    for base, lr in zip(self.base_lrs, lrs)]
        return [(1 + math.cos(math.pi * t / T)) / (1 + math.cos(math.pi * (t - 1) / T))
                * (lr - low) + low for lr in lrs]

    def _closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The one-cycle policy: the rate climbs from max_lr/div_factor to ``max_lr`` over the first
    ``pct_start`` of ``total_steps``, then anneals to max_lr/(div_factor·final_div_factor)
    (``three_phase``: back down to the start first, then to the minimum); the momentum (or
    Adam's β₁) moves the opposite way between ``max_momentum`` and ``base_momentum``. Each phase
    anneals from a to b over its steps with ``anneal_strategy``:

        cos:     b + (a - b) (1 + cos(π t)) / 2,      linear: a + (b - a) t,    t ∈ [0, 1]

    Stepped once per *batch* (``total_steps``, or ``epochs · steps_per_epoch``), not per epoch;
    one step more than ``total_steps`` raises, as in PyTorch.
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"OneCycleLR: expected an optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.total_steps = _one_cycle_steps(total_steps, epochs, steps_per_epoch)
        if not 0 <= pct_start <= 1 or not isinstance(pct_start, (int, float)):
            raise ValueError(f"OneCycleLR: expected a float between 0 and 1 for pct_start, but "
                             f"got {pct_start!r}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"OneCycleLR: anneal_strategy must be one of 'cos' or 'linear', "
                             f"got {anneal_strategy!r}")
        self.anneal_strategy = anneal_strategy
        up = float(pct_start * self.total_steps) - 1
        if three_phase:
            self._schedule_phases = [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (float(2 * pct_start * self.total_steps) - 2, "max_lr", "initial_lr",
                 "base_momentum", "max_momentum"),
                (self.total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                (up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                (self.total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        groups = optimizer.param_groups
        max_lrs = _per_group("max_lr", groups, max_lr)
        if last_epoch == -1:
            for group, top in zip(groups, max_lrs):
                group["initial_lr"] = top / div_factor
                group["max_lr"] = top
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError(f"OneCycleLR: {type(optimizer).__name__} has neither momentum "
                                 f"nor betas to cycle; pass cycle_momentum=False")
            self.use_beta1 = "betas" in optimizer.defaults
            tops = _per_group("max_momentum", groups, max_momentum)
            bases = _per_group("base_momentum", groups, base_momentum)
            if last_epoch == -1:
                for group, top, base in zip(groups, tops, bases):
                    self._set_momentum(group, top)
                    group["max_momentum"], group["base_momentum"] = top, base
        super().__init__(optimizer, last_epoch)

    def _set_momentum(self, group, value):
        if self.use_beta1:
            group["betas"] = (value, *group["betas"][1:])
        else:
            group["momentum"] = value

    def _anneal(self, start, end, t):
        if self.anneal_strategy == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * t) + 1)
        return (end - start) * t + start

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"OneCycleLR: tried to step {step} times; the specified number of "
                             f"total steps is {self.total_steps} (step the scheduler once per "
                             f"batch, for total_steps = epochs · steps_per_epoch batches)")
        lrs = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr_a, lr_b, m_a, m_b) in enumerate(self._schedule_phases):
                if step <= end or i == len(self._schedule_phases) - 1:
                    t = (step - start) / (end - start)
                    lrs.append(self._anneal(group[lr_a], group[lr_b], t))
                    if self.cycle_momentum:
                        self._set_momentum(group, self._anneal(group[m_a], group[m_b], t))
                    break
                start = end
        return lrs


def _one_cycle_steps(total_steps, epochs, steps_per_epoch):
    def positive(value, name):
        if isinstance(value, bool) or not isinstance(value, int) or value <= 0:
            raise ValueError(f"OneCycleLR: expected a positive integer {name}, but got "
                             f"{value!r}")
        return value

    if total_steps is not None:
        return positive(total_steps, "total_steps")
    if epochs is not None and steps_per_epoch is not None:
        return positive(epochs, "epochs") * positive(steps_per_epoch, "steps_per_epoch")
    raise ValueError("OneCycleLR: give either total_steps, or epochs and steps_per_epoch "
                     "(the scheduler steps once per batch)")


def _per_group(name, groups, value):
    """``value`` for each parameter group: a list or tuple gives one per group."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(groups):
            raise ValueError(f"OneCycleLR: expected {len(groups)} values for {name} (one per "
                             f"parameter group), got {len(value)}")
        return list(value)
    return [value] * len(groups)


def _undo_step(scheduler):
    """Take back the first step of every (nested) scheduler inside a SequentialLR."""
    if hasattr(scheduler, "_schedulers"):
        for inner in scheduler._schedulers:
            _undo_step(inner)
    else:
        scheduler.last_epoch -= 1


class SequentialLR(LRScheduler):
    """Run ``schedulers[0]`` until ``milestones[0]``, then ``schedulers[1]``, and so on.

    Typical use, a warm-up then a decay::

        warmup = LinearLR(opt, start_factor=0.1, total_iters=5)
        decay = CosineAnnealingLR(opt, T_max=95)
        sched = SequentialLR(opt, [warmup, decay], milestones=[5])

    At a milestone the next scheduler restarts from its epoch 0 (from initial_lr).

    Args: optimizer; schedulers (list of schedulers built on that optimizer, not
    ReduceLROnPlateau); milestones (sorted list of int epochs, one fewer than schedulers);
    last_epoch (see ``LRScheduler``).
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        if len(schedulers) < 1:
            raise ValueError("SequentialLR expects at least one scheduler, got none")
        for i, scheduler in enumerate(schedulers):
            if isinstance(scheduler, ReduceLROnPlateau):
                raise ValueError(f"SequentialLR: scheduler {i} is a ReduceLROnPlateau, which "
                                 f"needs a metric in step(); step it separately instead")
            if getattr(scheduler, "optimizer", None) is not optimizer:
                raise ValueError(f"SequentialLR: scheduler {i} ({type(scheduler).__name__}) "
                                 f"belongs to a different optimizer; build every scheduler "
                                 f"on the optimizer given to SequentialLR")
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(f"SequentialLR: expected {len(schedulers) - 1} milestones (one "
                             f"fewer than the {len(schedulers)} schedulers), got "
                             f"{len(milestones)}")
        self._schedulers = list(schedulers)
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # The sub-schedulers' constructors each took a first step: undo them, start over.
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        _undo_step(self)
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def step(self):
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            scheduler._jump_to(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()

    _saved_apart = ("_schedulers",)

    def state_dict(self):
        state = super().state_dict()
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        for scheduler, saved in zip(self._schedulers, state_dict["_schedulers"]):
            scheduler.load_state_dict(saved)


class ReduceLROnPlateau(LRScheduler):
    """Multiply the rate by ``factor`` when a metric has stopped improving.

    Call ``step(metric)`` once per epoch.  "Better" means, for mode ``"min"``:
    ``metric < best · (1 - threshold)`` (threshold_mode ``"rel"``) or
    ``metric < best - threshold`` (``"abs"``); for ``"max"`` the mirror image.  After more
    than ``patience`` epochs without improvement, ``lr <- max(lr · factor, min_lr)`` (skipped
    if that changes lr by no more than ``eps``), then ``cooldown`` epochs are ignored.

    Args:
        optimizer: the Optimizer.
        mode: "min" or "max".
        factor: multiplier < 1.
        patience: number of bad epochs tolerated before reducing.
        threshold, threshold_mode: what counts as an improvement (see above).
        cooldown: epochs to wait after a reduction before counting bad epochs again.
        min_lr: lower bound on the rate, one number or one per group.
        eps: minimal change of lr worth applying.
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError(f"ReduceLROnPlateau: factor must be < 1.0, got {factor!r}; "
                             f"use e.g. the default factor=0.1")
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"ReduceLROnPlateau: expected an optim.Optimizer, got "
                            f"{type(optimizer).__name__}")
        self.factor = factor
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != n:
                raise ValueError(f"ReduceLROnPlateau: expected {n} min_lrs (one per "
                                 f"parameter group), got {len(min_lr)}")
            self.default_min_lr = None
            self.min_lrs = list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * n
        self.patience = patience
        self.cooldown = cooldown
        self.eps = eps
        self.last_epoch = 0
        self._last_lr = _current_lrs(optimizer)
        self._init_is_better(mode, threshold, threshold_mode)
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    def _init_is_better(self, mode, threshold, threshold_mode):
        if mode not in ("min", "max"):
            raise ValueError(f"ReduceLROnPlateau: mode must be 'min' or 'max', got {mode!r}")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError(f"ReduceLROnPlateau: threshold_mode must be 'rel' or 'abs', "
                             f"got {threshold_mode!r}")
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self.mode_worse = math.inf if mode == "min" else -math.inf

    def _is_better(self, a, best):
        if self.mode == "min" and self.threshold_mode == "rel":
            return a < best * (1.0 - self.threshold)
        if self.mode == "min":
            return a < best - self.threshold
        if self.threshold_mode == "rel":
            return a > best * (self.threshold + 1.0)
        return a > best + self.threshold

    @property
    def in_cooldown(self):
        """True while the cooldown after a reduction is still running."""
        return self.cooldown_counter > 0

    def step(self, metrics):
        """Record one epoch's metric (a number or 0-d tensor) and reduce lr if on a plateau."""
        current = float(metrics)
        self.last_epoch += 1
        if self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _current_lrs(self.optimizer)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"ReduceLROnPlateau: the optimizer now has {len(groups)} parameter groups "
                    f"but min_lr was given for {len(self.min_lrs)}; set scheduler.min_lrs to "
                    f"a list with one value per group")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, min_lr in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, min_lr)
            if old - new > self.eps:
                group["lr"] = new

    def load_state_dict(self, state_dict):
        super().load_state_dict(state_dict)
        self._init_is_better(self.mode, self.threshold, self.threshold_mode)
