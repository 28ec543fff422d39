"""A small, explicit training loop: epochs of mini-batches, an optional progress bar, and a
history of the loss and metrics. It does exactly what you would write by hand::

    for epoch in range(epochs):
        model.train()
        for x, y in train_loader:
            loss = loss_fn(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        model.eval()     # then measure loss and metrics on val_loader under no_grad()

Metrics are functions ``metric(output, target) -> float`` averaged over the samples of an
epoch (e.g. ``accuracy``). ``optimizer`` is anything with ``zero_grad()`` and ``step()`` (an
``optim`` optimizer, or your own).
"""
import numpy as np

from dagrad.autograd import keep_freed_memory, no_grad


def accuracy(output, target):
    """Fraction of rows whose largest output is at the target class: mean(argmax(output) == y)."""
    out = np.asarray(output)
    y = np.asarray(target)
    return float(np.mean(out.argmax(axis=-1) == y))


def _batch_size(target):
    return len(target) if getattr(target, "ndim", 0) else 1


def _means(totals, count, who, loader):
    """The per-sample means of ``totals``; an empty loader has none (a loss of 0.0 would be
    a silent wrong answer)."""
    if count == 0:
        size = len(loader.dataset) if hasattr(loader, "dataset") else "?"
        raise ValueError(f"{who}: the loader yielded no samples (its dataset has {size}), so "
                         f"there is no mean loss or metric; give it a non-empty dataset (with "
                         f"drop_last=True, at least batch_size samples)")
    return {name: total / count for name, total in totals.items()}


def train_epoch(model, loader, loss_fn, optimizer, metrics=None, on_batch=None):
    """One pass over ``loader`` updating ``model``; returns {"loss": mean loss, metric: mean}.
    Raises ValueError if the loader yields no samples."""
    metrics = metrics or {}
    model.train()
    totals = dict.fromkeys(["loss", *metrics], 0.0)
    count = 0
    for x, y in loader:
        output = model(x)
        loss = loss_fn(output, y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        n = _batch_size(y)
        count += n
        totals["loss"] += loss.item() * n
        for name, fn in metrics.items():
            totals[name] += fn(output, y) * n
        if on_batch is not None:
            on_batch(loss.item())
    return _means(totals, count, "train_epoch", loader)


def evaluate(model, loader, loss_fn=None, metrics=None):
    """Mean loss (if ``loss_fn`` is given) and metrics over ``loader`` in evaluation mode,
    without recording a graph. Restores the model's previous mode. Raises ValueError if the
    loader yields no samples."""
    metrics = metrics or {}
    was_training = model.training
    model.eval()
    names = (["loss"] if loss_fn is not None else []) + list(metrics)
    totals = dict.fromkeys(names, 0.0)
    count = 0
    try:
        with no_grad():
            for x, y in loader:
                output = model(x)
                n = _batch_size(y)
                count += n
                if loss_fn is not None:
                    totals["loss"] += loss_fn(output, y).item() * n
                for name, fn in metrics.items():
                    totals[name] += fn(output, y) * n
    finally:
        model.train(was_training)
    return _means(totals, count, "evaluate", loader)


def fit(model, loss_fn, optimizer, train_loader, epochs=1, val_loader=None, metrics=None,
        progress=True):
    """Train for ``epochs`` epochs; return the history, a dict of per-epoch lists:
    "loss" and each metric on the training batches, and "val_loss" / "val_<metric>" when a
    ``val_loader`` is given.

    Training opts the process into ``ag.keep_freed_memory()`` (see ``autograd/memory.py``).

    ``progress=True`` shows one tqdm progress bar per epoch (the running loss while it trains,
    the epoch's results when it ends) when tqdm is installed, and otherwise prints one line per
    epoch; ``progress=False`` is silent.
    """
    keep_freed_memory()     # reuse each step's freed arrays in the next (autograd/memory.py)
    metrics = dict(metrics or {})
    history = {name: [] for name in ["loss", *metrics]}
    if val_loader is not None:
        history.update({"val_" + name: [] for name in ["loss", *metrics]})
    for epoch in range(1, epochs + 1):
        label = f"epoch {epoch}/{epochs}"
        bar = _progress_bar(len(train_loader), label) if progress else None
        try:
            results = train_epoch(model, train_loader, loss_fn, optimizer, metrics,
                                  None if bar is None else _Running(bar).update)
            if val_loader is not None:
                results.update({"val_" + k: v for k, v in
                                evaluate(model, val_loader, loss_fn, metrics).items()})
            summary = "  ".join(f"{k} {v:.4f}" for k, v in results.items())
            if bar is not None:
                bar.set_postfix_str(summary)
            elif progress:
                print(f"{label}  {summary}", flush=True)
        finally:
            if bar is not None:
                bar.close()
        for name, value in results.items():
            history[name].append(value)
    return history


def _progress_bar(total, label):
    """A tqdm bar, or None when tqdm is not installed (fit then prints one line per epoch)."""
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=label, unit="batch", dynamic_ncols=True)


class _Running:
    """Advances the bar after each batch and shows the running mean of the loss."""

    def __init__(self, bar):
        self.bar, self.total, self.count = bar, 0.0, 0

    def update(self, loss):
        self.total += loss
        self.count += 1
        self.bar.update(1)
        if self.count % 10 == 0:
            self.bar.set_postfix_str(f"loss {self.total / self.count:.4f}", refresh=False)
