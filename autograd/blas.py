"""How many BLAS threads dagrad's matrix products use: one, unless asked for more.

NumPy's BLAS (OpenBLAS in NumPy's wheels) splits every product above a tiny size over all
cores. When a core is busy (another process, the other test worker, a browser), the thread
waiting for it stalls every product, and two threads lose badly at every size. Measured on 2
cores with one core busy: (32, 128) @ (128, 512) takes 126 µs on one thread and 333 µs on two,
(128, 784) @ (784, 512) 2.0 ms against 31 ms, (256, 1024) @ (1024, 1024) 5.9 ms against 59 ms;
notebook 07 (CNNs) ran 202 s with NumPy's default threads and 14 s on one, notebook 08 (RNNs)
206 s against 22 s. On an idle machine two threads gain at most ~1.9x, and only on large
products.

So every matrix product of the operations goes through :func:`product`, which decides by its
size first (the one place the decision is taken). A product below ``LARGE_PRODUCT``
multiply-adds (2.1 M, e.g. (16, 256) @ (256, 512)) always runs on one thread; a larger one on
the number *allowed*, which is 1 unless the program asks for more with :func:`set_num_threads`
(PyTorch's name) or sets ``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` in
the environment (then the BLAS's own count). Measured idle, float32, 2 cores: on an AMD EPYC
every product shape tried from 2.1 M gains 1.34-1.74x on two threads (LeNet's (64, 400) @
(400, 120), 3.1 M: 67 -> 42 µs; (16, 256) @ (256, 512) 66 -> 49 µs), and at 0.66 M and below
OpenBLAS keeps one thread of its own accord; on an Intel Xeon from 4.2 M every shape gained
14-31% and at 2.1 M one lost 3% ((16, 256) @ (256, 512) 36 -> 37 µs). Each product reads the
BLAS's count (one C call, 0.5 µs) and changes it only when the decision differs, so a count set
outside dagrad meanwhile (``threadpoolctl.threadpool_limits``) becomes the number allowed.
Nothing happens at import: the BLAS is looked up (with ``threadpoolctl``) at the first product.
Without threadpoolctl, or with a BLAS it does not know, products run as NumPy runs them.

The one other BLAS routine dagrad calls is :func:`axpy`, y += a·x (the optimizers' update): one
pass over memory where NumPy's ``y += a * x`` takes two and a temporary array.
"""
import ctypes
import math
import os

import numpy as np

LARGE_PRODUCT = 1 << 21     # multiply-adds
AXPY_MIN = 1 << 15          # elements; below, the ctypes call costs more than the pass it saves
THREAD_SETTINGS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


class _Threads:
    """The BLAS thread controls (found at first use), the number allowed for large products,
    and the number dagrad last set. ``read()`` returns the number the BLAS uses now: for the
    usual single OpenBLAS, its own C getter called directly (0.08 µs), not through
    threadpoolctl's Python wrapper (three Python calls on every product)."""

    __slots__ = ("controllers", "allowed", "current", "read", "axpy")

    def __init__(self):
        self.controllers = None     # threadpoolctl's controllers of the loaded BLAS libraries
        self.allowed = None
        self.current = None
        self.read = self.read_all
        self.axpy = {}              # dtype -> an OpenBLAS's ?axpy (_axpy_routines)

    def find(self):
        try:
            from threadpoolctl import ThreadpoolController
            self.controllers = ThreadpoolController().select(user_api="blas").lib_controllers
        except Exception:           # not installed, or a platform it cannot inspect
            self.controllers = []
        self.read = _direct_getter(self.controllers) or self.read_all
        self.axpy = _axpy_routines(self.controllers)
        self.current = self.read()
        if self.allowed is None:
            asked = any(os.environ.get(v) for v in THREAD_SETTINGS)
            self.allowed = self.current if asked else 1

    def read_all(self):
        """The number of threads the BLAS uses now (1 when there is no BLAS to ask)."""
        for c in self.controllers:
            n = c.get_num_threads()
            if n:
                return n
        return 1

    def set(self, n):
        for c in self.controllers:
            c.set_num_threads(n)
        self.current = n

    def use(self, large):
        """Before a BLAS call: the allowed threads if it is ``large``, else one. A count set
        outside dagrad since the last call (``threadpool_limits``) becomes the number allowed;
        the count is changed only when the decision differs."""
        if self.current is None:
            self.find()
        now = self.read()
        if now != self.current:
            self.allowed = self.current = now
        want = self.allowed if large else 1
        if now != want:
            self.set(want)


def _direct_getter(controllers):
    """The C function that threadpoolctl's ``get_num_threads`` calls, when there is one
    OpenBLAS (threadpoolctl's own choice of symbol); None otherwise, or if threadpoolctl
    changed how it finds it."""
    if len(controllers) != 1 or getattr(controllers[0], "internal_api", None) != "openblas":
        return None
    c = controllers[0]
    symbol = ("omp_get_max_threads" if getattr(c, "threading_layer", None) == "openmp"
              else "openblas_get_num_threads")
    try:
        import ctypes
        found = c._get_symbol(symbol)
        # called without releasing the GIL (a getter of one int): 0.08 µs against ctypes'
        # default 0.12 and threadpoolctl's 0.42
        getter = ctypes.PYFUNCTYPE(ctypes.c_int)(ctypes.cast(found, ctypes.c_void_p).value)
        return getter if getter() == c.get_num_threads() else None
    except Exception:
        return None


def _axpy_routines(controllers):
    """{float32: saxpy, float64: daxpy} of the first OpenBLAS loaded (NumPy's, or another one
    beside it, as SciPy or PyTorch load: any computes the same on raw memory), its CBLAS entry
    points with the symbol names and integer width of its build (NumPy's wheels name them
    ``scipy_cblas_saxpy64_`` and take 64-bit sizes); {} without one, or at any doubt."""
    for c in controllers:
        if getattr(c, "internal_api", None) != "openblas":
            continue
        size = ctypes.c_int64 if "64" in getattr(c, "_symbol_suffix", "") else ctypes.c_int
        routines = {}
        try:
            for dtype, name, scalar in ((np.float32, "cblas_saxpy", ctypes.c_float),
                                        (np.float64, "cblas_daxpy", ctypes.c_double)):
                fn = c._get_symbol(name)
                fn.argtypes = [size, scalar, ctypes.c_void_p, size, ctypes.c_void_p, size]
                fn.restype = None
                routines[np.dtype(dtype)] = fn
        except Exception:
            continue
        return routines
    return {}


THREADS = _Threads()


def product(a, b, out=None):
    """``a @ b`` (NumPy's ``matmul`` rules; for Tensors, the recorded product) on one BLAS
    thread if it is small, else on all allowed. Its size is batch · m · k · n multiply-adds
    for a (…, m, k) and b (…, k, n), the batch taken from whichever operand has it. ``out``:
    an array to write the product into (ndarrays only).

    A count set outside dagrad (``threadpoolctl.threadpool_limits``) since the last product
    becomes the number allowed."""
    sa, sb = a.shape, b.shape
    m = sa[-2] if len(sa) > 1 else 1
    n = sb[-1] if len(sb) > 1 else 1
    if len(sa) > 2 or len(sb) > 2:     # batched (math.prod only here: it costs 0.3 µs)
        size = max(math.prod(sa) * n, math.prod(sb) * m)
    else:
        size = m * (sa[-1] if sa else 1) * n     # (0-d: NumPy's error below)
    THREADS.use(size >= LARGE_PRODUCT)
    return a @ b if out is None else np.matmul(a, b, out=out)


def axpy(alpha, x, y):
    """y += alpha · x, in place; returns y. x and y: arrays of one shape and dtype.

    NumPy's ``y += alpha * x`` writes alpha·x to a temporary array and reads it back: two
    passes over memory. The BLAS's ``?axpy`` makes one (x and y read, y written), rounding
    y + alpha·x once (a fused multiply-add, as PyTorch's ``y.add_(x, alpha=alpha)``), and
    splits it over the allowed threads. On 2 cores, float32, NumPy against axpy on two
    threads: 401,408 values (a 512x784 weight) 75 against 25 µs with the caches warm, 160
    against 64 µs after another array has swept them; 2 M values 650 against 116 µs. Below
    ``AXPY_MIN`` values, or for anything but two C-contiguous float32/float64 arrays that are
    not partly the same memory, or without an OpenBLAS dagrad can call, it is NumPy's."""
    threads = THREADS
    if threads.current is None:
        threads.find()
    routine = threads.axpy.get(y.dtype) if y.size >= AXPY_MIN else None
    if (routine is None or type(x) is not np.ndarray or type(y) is not np.ndarray
            or x.dtype != y.dtype or x.shape != y.shape or not y.flags.writeable
            or not (x.flags.c_contiguous and y.flags.c_contiguous)):
        y += alpha * x
        return y
    px, py = x.ctypes.data, y.ctypes.data
    if px != py and px < py + y.nbytes and py < px + x.nbytes:     # overlapping: NumPy
        y += alpha * x                                              # copes (it buffers)
        return y
    threads.use(True)
    routine(y.size, float(alpha), px, 1, py, 1)
    return y


def set_num_threads(n):
    """Allow ``n`` BLAS threads for large products (small ones always run on one)."""
    n = int(n)
    if n < 1:
        raise ValueError(f"set_num_threads: expected a positive number of threads, got {n}")
    if THREADS.current is None:
        THREADS.find()
    THREADS.allowed = n
    THREADS.set(n)


def get_num_threads():
    """The number of BLAS threads large products may use."""
    if THREADS.current is None:
        THREADS.find()
    return THREADS.allowed
