"""Recurrent cells and the operations that run them.

- ``cell``: what a cell is (``Cell``: its step, the step's gradients and its weights'
  gradients, written once over an array namespace) and the helpers cells share
- ``sequence``: ``Sequence``, one layer in one direction over a whole sequence as one
  operation, for any cell; ``run_steps``, the same steps as recorded operations
- ``product``: ``RecurrentGates``, the one product of a step as its own operation
- one file per cell: ``rnn`` (Elman, tanh or relu), ``lstm`` (peepholes optional), ``gru``,
  ``mgu`` (minimal gated unit); each names its sequence operation (``LSTMSequence``, ...)
"""
from .cell import Cell
from .gru import GRU, GRUSequence, gru_sequence
from .lstm import LSTM, LSTMSequence, lstm_sequence
from .mgu import MGU, MGUSequence, mgu_sequence
from .product import RecurrentGates, recurrent_gates
from .rnn import RNN, RNNSequence, rnn_sequence
from .sequence import Sequence, run_steps

__all__ = ["Cell", "Sequence", "run_steps", "RecurrentGates", "recurrent_gates",
           "RNN", "RNNSequence", "rnn_sequence", "LSTM", "LSTMSequence", "lstm_sequence",
           "GRU", "GRUSequence", "gru_sequence", "MGU", "MGUSequence", "mgu_sequence"]
