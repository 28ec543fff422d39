"""optim: optimizers and learning-rate schedulers that match ``torch.optim`` step for step.

Optimizers update the NumPy arrays of autograd Tensors in place, outside the graph::

    opt = optim.Adam(model.parameters(), lr=1e-3)
    opt.zero_grad(); loss.backward(); opt.step()

``optim.lr_scheduler`` changes the learning rate per epoch; ``optim.testfunctions`` has 2-D
test surfaces and ``run_trajectory`` for plotting an optimizer's path.
"""
from . import lr_scheduler, testfunctions
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD
from .testfunctions import narrow_valley, rosenbrock, run_trajectory

__all__ = ["Optimizer", "SGD", "Adagrad", "RMSprop", "Adadelta", "Adam", "AdamW", "NAdam",
           "lr_scheduler", "testfunctions", "rosenbrock", "narrow_valley", "run_trajectory"]
