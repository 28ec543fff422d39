"""Small data sets that work offline, returned as NumPy arrays (wrap them in
``nn.data.TensorDataset`` or ``ag.tensor``). Features are float32, class labels int64.

Other data families (toy sequence tasks, bundled text) add one import line below; files they
ship go in ``nn/datasets/data/``.
"""
from .digits import load_digits
from .idx import read_idx
from .split import train_test_split
from .synthetic import make_moons, make_spirals, synthetic_data
from .sequences import (adding_problem, copy_task, first_token_task, reverse_task,
                        sum_of_digits)
from .text import CharTokenizer, Vocab, load_text, text_windows, tokenize
