"""How far back a gradient reaches in a sequence model: the vanishing-gradient lesson.

Backpropagation through time multiplies one Jacobian per step, ∂L/∂x_t = ∂L/∂h_T ·
Π_{k=t+1..T} ∂h_k/∂h_{k-1} · ∂h_t/∂x_t. In a vanilla RNN each factor is Wₕₕᵀ diag(1 - h_k²),
whose norm is usually below 1, so the product shrinks geometrically with T - t; an LSTM's
memory path multiplies by the forget gates instead, and a GRU's by z, which the network can
hold near 1. ``sequence_gradient_norms`` measures that product, input step by input step (as
``viz.GradNorms`` measures it layer by layer); plot it against t on a log scale.
"""
import numpy as np

from dagrad import autograd as ag


def sequence_gradient_norms(model, inputs, loss=None, time_dim=0):
    """‖∂L/∂x_t‖ for every time step t of ``inputs``: an ndarray of shape (L,).

    ``model`` maps the input sequence to an output (a recurrent layer's ``(output, h_n)`` is
    accepted: the output is used). ``inputs``: an array or Tensor with the time steps along
    ``time_dim`` (0 for (L, N, features), 1 for batch_first). ``loss(output) -> scalar``;
    by default L = Σ of the output at the last time step, so the norms show how much of that
    last step's signal reaches each earlier input. The norm at t is over the batch and the
    features. The model's parameters' ``.grad`` are left untouched.
    """
    data = ag.as_array(inputs)
    if not np.issubdtype(data.dtype, np.floating):
        raise TypeError(f"sequence_gradient_norms: inputs must be floating point (the "
                        f"gradient with respect to them is measured), got {data.dtype}; "
                        f"for token inputs, measure at the embedding output instead")
    x = ag.tensor(data.copy(), requires_grad=True)
    output = model(x)
    if isinstance(output, tuple):
        output = output[0]
    if loss is None:
        last = [slice(None)] * output.ndim
        last[time_dim] = -1
        value = output[tuple(last)].sum()
    else:
        value = loss(output)
    (grad,) = ag.grad(value, x)
    axes = tuple(a for a in range(grad.ndim) if a != time_dim % grad.ndim)
    return np.sqrt((grad._data.astype(np.float64) ** 2).sum(axis=axes))
