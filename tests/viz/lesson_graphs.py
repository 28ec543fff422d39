"""The graphs the quiz players of lessons 01, 02 and 08 ask about, built as the lessons build
them (same values, same names), for the quiz's tests in Chromium."""
from dagrad import autograd as ag
from dagrad import nn
from dagrad import viz


def scalars(**values):
    """Named float64 scalars that require grad, in the order given."""
    made = []
    for name, value in values.items():
        t = ag.tensor(value, dtype=ag.float64, requires_grad=True)
        t.name = name
        made.append(t)
    return made


def neuron_01():
    """Lesson 01, §3: z = w x + b, y = tanh z, L = (y − t)², the tensors named."""
    x, w, b = scalars(x=0.5, w=-1.2, b=0.3)
    with viz.record():
        z = w * x + b
        y = ag.tanh(z)
        L = (y - 0.8) ** 2
        z.name, y.name = "z", "y"
    return viz.steps(L)


def network_02():
    """Lesson 02, §1: Linear(2, 3), Tanh, Linear(3, 1), the mean squared error on one example."""
    ag.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 3, dtype=ag.float64), nn.Tanh(),
                          nn.Linear(3, 1, dtype=ag.float64))
    layer1, act, layer2 = model
    x = ag.tensor([[0.5, -1.0]], dtype=ag.float64, requires_grad=True)
    y = ag.tensor([[1.0]], dtype=ag.float64)
    x.name, y.name = "x", "y"
    with viz.record():
        z = layer1(x)
        h = act(z)
        y_hat = layer2(h)
        loss = nn.functional.mse_loss(y_hat, y)
    return viz.steps(loss, params=model, names=dict(x=x, y=y, z=z, h=h, y_hat=y_hat))


def rnn_08_loss(xs=(1.0, -0.5, 2.0)):
    """Lesson 08, §1: the loss of a one-unit RNN unrolled over the steps ``xs``, one column per
    step, with its weights w, u, b, inputs x_t, states h_t and h_0 named."""
    w, u, b = scalars(w=0.8, u=-1.3, b=0.1)
    with viz.record():
        h = ag.zeros((), dtype=ag.float64)
        h.name = "h_0"
        for t, x in enumerate(xs, start=1):
            with viz.time_step(t):
                x_t = ag.tensor(x, dtype=ag.float64)
                x_t.name = f"x_{t}"
                h = ag.tanh(w * x_t + u * h + b)
                h.name = f"h_{t}"
        return (h - 0.4) ** 2


def rnn_08():
    """Lesson 08, §1: the step-through of the unrolled RNN."""
    return viz.steps(rnn_08_loss())
