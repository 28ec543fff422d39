"""The other NumPy autodiff engines, timed on the workloads they can express.

MyGrad (PyTorch-like tensors) and HIPS autograd (``grad`` of a NumPy function) run from their
own venv, ``benchmarks/.venv-others``, made on first use with ``pip install numpy mygrad
autograd`` (HIPS autograd installs the top-level name ``autograd``, so it never shares an
environment with dagrad's checkout). Each engine's step runs in its own process, like every
framework in ``benchmarks.common``, with the same threads, data and initial weights; every
setup first checks that its first loss equals the one NumPy computes by hand (the workloads
are the same). An engine that cannot be installed gets a row saying so.

The workloads: W1 (the 100-op chain), W2 (the MLP step), W4c (the LSTM cell unrolled by hand)
and W6 (the deep chain, 100,000 operations instead of 1,000,000: both engines keep the whole
graph in Python objects, so their time per operation is compared). Neither engine has the
fused convolution LeNet (W3) needs in the same form, nor a Transformer layer (W5).
"""
ENGINES = ("mygrad", "hips")
WORKLOADS = ("W1", "W2", "W4c", "W6")
