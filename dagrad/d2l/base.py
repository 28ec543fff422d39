"""The book's object-oriented design: ``Module`` (a model with its loss, its optimiser and its
live plot), ``DataModule`` (a data set and its loaders) and ``Trainer`` (the loop that fits one
to the other), plus the book's hand-written ``SGD``."""
from dagrad import torch
from dagrad.torch import nn

from .plotting import ProgressBoard
from .utils import HyperParameters, cpu, gpu


class Module(nn.Module, HyperParameters):
    """The book's base model: ``forward`` runs ``self.net``; ``training_step`` and
    ``validation_step`` compute ``loss`` on a batch ``(*inputs, target)`` and plot it;
    ``configure_optimizers`` gives SGD with ``self.lr``."""

    def __init__(self, plot_train_per_epoch=2, plot_valid_per_epoch=1):
        super().__init__()
        self.save_hyperparameters()
        self.board = ProgressBoard()

    def loss(self, y_hat, y):
        raise NotImplementedError(f"{type(self).__name__} must define loss(y_hat, y)")

    def forward(self, X):
        if not hasattr(self, "net"):
            raise NotImplementedError(f"{type(self).__name__}: define self.net or forward()")
        return self.net(X)

    def plot(self, key, value, train):
        """Add ``value`` to the live plot as the curve ``train_key`` or ``val_key``."""
        if not hasattr(self, "trainer"):
            raise RuntimeError("plot(): the model has no trainer yet; call trainer.fit(model, "
                               "data)")
        self.board.xlabel = "epoch"
        if train:
            x = self.trainer.train_batch_idx / self.trainer.num_train_batches
            n = self.trainer.num_train_batches / self.plot_train_per_epoch
        else:
            x = self.trainer.epoch + 1
            n = self.trainer.num_val_batches / self.plot_valid_per_epoch
        self.board.draw(x, value.to(cpu()).detach().numpy(),
                        ("train_" if train else "val_") + key, every_n=max(int(n), 1))

    def training_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741  (the book's name)
        self.plot("loss", l, train=True)
        return l

    def validation_step(self, batch):
        l = self.loss(self(*batch[:-1]), batch[-1])  # noqa: E741
        self.plot("loss", l, train=False)

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.lr)

    def apply_init(self, inputs, init=None):
        """Run one forward pass (lazy layers learn their sizes), then ``net.apply(init)``."""
        self.forward(*inputs)
        if init is not None:
            self.net.apply(init)


class DataModule(HyperParameters):
    """The book's data base class: ``get_dataloader(train)``, ``train_dataloader()``,
    ``val_dataloader()``, and ``get_tensorloader`` to batch tensors."""

    def __init__(self, root="../data", num_workers=4):
        self.save_hyperparameters()

    def get_dataloader(self, train):
        raise NotImplementedError(f"{type(self).__name__} must define get_dataloader(train)")

    def train_dataloader(self):
        return self.get_dataloader(train=True)

    def val_dataloader(self):
        return self.get_dataloader(train=False)

    def get_tensorloader(self, tensors, train, indices=slice(0, None)):
        """Batches of ``batch_size`` rows of ``tensors[indices]``, shuffled when training."""
        tensors = tuple(a[indices] for a in tensors)
        dataset = torch.utils.data.TensorDataset(*tensors)
        return torch.utils.data.DataLoader(dataset, self.batch_size, shuffle=train)


class Trainer(HyperParameters):
    """The book's training loop: ``fit(model, data)`` runs ``max_epochs`` of ``fit_epoch``:
    for every training batch, ``model.training_step`` (the loss), backward, optional gradient
    clipping to norm ``gradient_clip_val``, ``optim.step()``; then ``validation_step`` on every
    validation batch in evaluation mode. ``num_gpus`` is accepted; there are none in dagrad."""

    def __init__(self, max_epochs, num_gpus=0, gradient_clip_val=0):
        self.save_hyperparameters()
        self.gpus = [gpu(i) for i in range(min(num_gpus, torch.cuda.device_count()))]

    def prepare_data(self, data):
        self.train_dataloader = data.train_dataloader()
        self.val_dataloader = data.val_dataloader()
        self.num_train_batches = len(self.train_dataloader)
        self.num_val_batches = (len(self.val_dataloader)
                                if self.val_dataloader is not None else 0)

    def prepare_model(self, model):
        model.trainer = self
        model.board.xlim = [0, self.max_epochs]
        self.model = model

    def fit(self, model, data):
        self.prepare_data(data)
        self.prepare_model(model)
        self.optim = model.configure_optimizers()
        self.epoch = 0
        self.train_batch_idx = 0
        self.val_batch_idx = 0
        for self.epoch in range(self.max_epochs):
            self.fit_epoch()
        if hasattr(model.board, "flush"):
            model.board.flush()

    def prepare_batch(self, batch):
        return batch

    def fit_epoch(self):
        self.model.train()
        for batch in self.train_dataloader:
            loss = self.model.training_step(self.prepare_batch(batch))
            self.optim.zero_grad()
            with torch.no_grad():
                loss.backward()
                if self.gradient_clip_val > 0:
                    self.clip_gradients(self.gradient_clip_val, self.model)
                self.optim.step()
            self.train_batch_idx += 1
        if self.val_dataloader is None:
            return
        self.model.eval()
        for batch in self.val_dataloader:
            with torch.no_grad():
                self.model.validation_step(self.prepare_batch(batch))
            self.val_batch_idx += 1

    def clip_gradients(self, grad_clip_val, model):
        """Scale all gradients by grad_clip_val / ‖g‖ when the norm ‖g‖ over every parameter
        exceeds grad_clip_val (``grad_clipping`` of the book's older chapters)."""
        clip_params([p for p in model.parameters() if p.requires_grad], grad_clip_val)


def clip_params(params, theta):
    """g ← g · θ / ‖g‖ for every parameter when ‖g‖ = √(Σ ‖gᵢ‖²) > θ (the book's rule: no ε
    in the denominator, unlike ``nn.utils.clip_grad_norm_``)."""
    norm = torch.sqrt(sum(torch.sum((p.grad ** 2)) for p in params))
    if norm > theta:
        for param in params:
            param.grad[:] *= theta / norm


def grad_clipping(net, theta):
    """Clip the gradients of ``net`` (a Module, or an object with ``params``) to norm θ."""
    params = ([p for p in net.parameters() if p.requires_grad] if isinstance(net, nn.Module)
              else net.params)
    clip_params(params, theta)


class SGD(HyperParameters):
    """Minibatch stochastic gradient descent written out: param ← param - lr · grad."""

    def __init__(self, params, lr):
        self.save_hyperparameters()

    def step(self):
        for param in self.params:
            param -= self.lr * param.grad

    def zero_grad(self):
        for param in self.params:
            if param.grad is not None:
                param.grad.zero_()
