"""dagrad's products run on one BLAS thread when small and on every allowed thread when large
(autograd/blas.py); the count is read back from the BLAS itself through threadpoolctl."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad.autograd import blas

threadpoolctl = pytest.importorskip("threadpoolctl")


def blas_threads():
    return max(c.num_threads for c in
               threadpoolctl.ThreadpoolController().select(user_api="blas").lib_controllers)


@pytest.fixture
def two_threads_allowed():
    before = ag.get_num_threads()
    ag.set_num_threads(2)
    yield
    ag.set_num_threads(before)


def test_small_products_run_on_one_thread_and_large_ones_on_all(two_threads_allowed):
    small = ag.ones(32, 64, requires_grad=True)
    (small @ ag.ones(64, 64)).sum().backward()
    assert blas_threads() == 1
    big_side = int(np.ceil(blas.LARGE_PRODUCT ** (1 / 3)))
    big = ag.ones(big_side, big_side)
    big @ big
    assert blas_threads() == 2 and ag.get_num_threads() == 2
    ag.ones(4, 4) @ ag.ones(4, 4)
    assert blas_threads() == 1


def test_every_product_heavy_operation_applies_the_policy(two_threads_allowed):
    """Linear, convolution, attention probabilities and the recurrent step product each
    switch to one thread for their (small) products."""
    from dagrad import nn
    uses = [lambda: nn.Linear(8, 4)(ag.ones(2, 8)),
            lambda: nn.Conv2d(2, 3, 3)(ag.ones(1, 2, 6, 6)),
            lambda: nn.MultiheadAttention(8, 2, batch_first=True)(*[ag.ones(1, 3, 8)] * 3),
            lambda: nn.LSTM(4, 8)(ag.ones(3, 1, 4))]
    for use in uses:
        ag.set_num_threads(2)
        assert blas_threads() == 2
        use()
        assert blas_threads() == 1, use


def test_a_thin_convolution_weight_multiplies_row_by_row():
    """A first layer's weight (6 filters of 1x5x5) multiplies one output row of columns at a
    time; a wider one all columns in one product that BLAS may split over threads."""
    from dagrad.autograd.ops.conv import _row_blocks, window
    win = window("conv2d", (28, 28), (5, 5), (1, 1), ((2, 2), (2, 2)), (1, 1))
    assert _row_blocks(np.zeros((6, 1, 5, 5), np.float32), 1, win) == 28
    assert _row_blocks(np.zeros((16, 3, 3, 3), np.float32), 1, win) == 28
    assert _row_blocks(np.zeros((16, 6, 5, 5), np.float32), 1, win) == 1


def test_set_num_threads_refuses_zero():
    with pytest.raises(ValueError, match="set_num_threads: expected a positive number"):
        ag.set_num_threads(0)


def test_a_limit_set_outside_dagrad_is_respected(two_threads_allowed):
    big_side = int(np.ceil(blas.LARGE_PRODUCT ** (1 / 3)))
    big = ag.ones(big_side, big_side)
    with threadpoolctl.threadpool_limits(1, user_api="blas"):
        big @ big
        assert blas_threads() == 1 and ag.get_num_threads() == 1
    big @ big                                  # the limit is gone: two threads again
    assert blas_threads() == 2


@pytest.mark.parametrize("setting, allowed", [(None, 1), ("2", 2)])
def test_one_thread_unless_the_environment_asks_for_more(setting, allowed):
    """A fresh process: NumPy's BLAS starts with a thread per core, dagrad allows one for its
    products unless OPENBLAS_NUM_THREADS (or OMP_/MKL_) asks for more."""
    import os
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if k not in blas.THREAD_SETTINGS}
    if setting:
        env["OPENBLAS_NUM_THREADS"] = setting
    code = ("from dagrad import autograd as ag\n"
            "import threadpoolctl\n"
            "x = ag.ones(256, 256)\n"
            "x @ x\n"
            "n = threadpoolctl.ThreadpoolController().select(user_api='blas').lib_controllers"
            "[0].num_threads\n"
            "print(ag.get_num_threads(), n)\n")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(allowed), str(allowed)]


def test_pytorch_programs_reach_it_by_pytorch_s_names():
    from dagrad import torch
    assert torch.set_num_threads is ag.set_num_threads
    assert torch.get_num_threads is ag.get_num_threads


def test_the_count_each_product_reads_is_the_blas_own(two_threads_allowed):
    """Before every product dagrad reads the BLAS's thread count (with one OpenBLAS, straight
    from its C getter): the value threadpoolctl reports, whoever set it."""
    ag.ones(2, 2) @ ag.ones(2, 2)
    for n in (2, 1, 2):
        with threadpoolctl.threadpool_limits(n, user_api="blas"):
            assert blas.THREADS.read() == blas_threads() == n
