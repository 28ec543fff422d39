"""After backward (no retain_graph) a graph holds no array and no tensor: measured on an LSTM,
whose time steps read slices (views) of one large input projection."""
import gc
import tracemalloc

from dagrad import autograd as ag
from dagrad import nn


def test_an_lstm_graph_holds_under_one_mib_after_backward():
    ag.manual_seed(0)
    lstm = nn.LSTM(64, 256)
    x = ag.randn(50, 32, 64)
    tracemalloc.start()
    try:
        out, state = lstm(x)
        out.sum().backward()
        values = out.numpy()            # the output's own values stay: only the graph goes
        gc.collect()
        with_graph = tracemalloc.get_traced_memory()[0]
        del out, state
        gc.collect()
        without_graph = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    held = with_graph - without_graph
    assert values.shape == (50, 32, 256)
    assert held < 1 << 20, f"the graph still holds {held / 2**20:.1f} MiB after backward"
