"""``torch.backends`` in dagrad: the GPU back ends (mps, cudnn, cuda) report that they are
absent, so device-choosing code such as ``torch.backends.mps.is_available()`` picks the CPU.

Each is a module (``import torch.backends.cudnn as cudnn`` works) whose settings PyTorch code
assigns (``cudnn.benchmark = True``, ``cudnn.deterministic = True``,
``torch.backends.cuda.matmul.allow_tf32 = True``) are kept and change nothing: dagrad's CPU
results are deterministic for a given seed, and its float32 products are float32 throughout
(TF32 and reduced-precision reductions are GPU formats).
"""
import types

from ._missing import facade_module, forward_to


def _false():
    return False


def _backend(name, doc, **attributes):
    return facade_module(f"{__name__}.{name}", doc, attributes=attributes)


# ``torch.backends.cuda.matmul``: the flags of CUDA's matrix products, as PyTorch's defaults.
cuda_matmul = types.SimpleNamespace(allow_tf32=False,
                                    allow_fp16_reduced_precision_reduction=True,
                                    allow_bf16_reduced_precision_reduction=True,
                                    fp32_precision="ieee")

mps = _backend("mps", "Apple's GPU: absent.", is_available=_false, is_built=_false)
cuda = _backend("cuda", "CUDA: absent; the flags of its matrix products are kept and change "
                "nothing.", is_built=_false, matmul=cuda_matmul)
cudnn = _backend("cudnn", "cuDNN: absent; its settings are kept and change nothing.",
                 is_available=_false, enabled=False, deterministic=False, benchmark=False,
                 allow_tf32=False)

_MATMUL_PRECISIONS = ("highest", "high", "medium")
_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision):
    """``torch.set_float32_matmul_precision``: "highest", "high" or "medium" lets PyTorch use
    TF32 or bfloat16 inside float32 products on GPUs; dagrad keeps the setting and computes
    in float32 whatever it is (what "highest" asks)."""
    if precision not in _MATMUL_PRECISIONS:
        raise RuntimeError(f"set_float32_matmul_precision: invalid precision {precision!r}; "
                           f"use one of {', '.join(_MATMUL_PRECISIONS)}")
    _matmul_precision[0] = precision


def get_float32_matmul_precision():
    return _matmul_precision[0]


__path__ = []           # a package to the import system: `import torch.backends.cudnn` works
__getattr__ = forward_to("torch.backends")
