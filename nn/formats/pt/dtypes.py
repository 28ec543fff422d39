"""PyTorch's dtype and storage names, and the NumPy dtypes dagrad holds them in.

A ``.pt`` file names a tensor's element type twice over: the storage class of its persistent id
(``torch.FloatStorage``; ``torch.storage.UntypedStorage`` plus a dtype for the newer types) and,
as a value, the dtype itself (``torch.float32``). bfloat16 has no NumPy dtype: its storages
are read into float32 (a bfloat16 is the upper half of a float32, so the values are exact), as
``nn.load_safetensors`` reads BF16, and never written.
"""
import numpy as np

BFLOAT16 = "bfloat16"

# torch dtype name -> NumPy dtype (None: bfloat16, widened to float32 when read)
DTYPES = {
    "float64": np.float64, "float32": np.float32, "float16": np.float16, "bfloat16": None,
    "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
    "uint8": np.uint8, "uint16": np.uint16, "uint32": np.uint32, "uint64": np.uint64,
    "bool": np.bool_,
}
# legacy storage class name -> torch dtype name
STORAGES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
    "BFloat16Storage": "bfloat16", "LongStorage": "int64", "IntStorage": "int32",
    "ShortStorage": "int16", "CharStorage": "int8", "ByteStorage": "uint8",
    "BoolStorage": "bool",
}
# what PyTorch has that dagrad cannot hold, with the reason
UNSUPPORTED = {name: "complex numbers" for name in ("complex32", "complex64", "complex128",
                                                     "ComplexFloatStorage",
                                                     "ComplexDoubleStorage")}
UNSUPPORTED.update({name: "quantized integers" for name in (
    "qint8", "quint8", "qint32", "quint4x2", "quint2x4", "QInt8Storage", "QUInt8Storage",
    "QInt32Storage", "QUInt4x2Storage", "QUInt2x4Storage")})
UNSUPPORTED.update({name: "8-bit floating point" for name in (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu")})

TORCH_NAMES = {np.dtype(d): name for name, d in DTYPES.items() if d is not None}
STORAGE_NAMES = {np.dtype(DTYPES[dtype]): storage for storage, dtype in STORAGES.items()
                 if DTYPES[dtype] is not None}
UNTYPED_DTYPES = {np.dtype(np.uint16), np.dtype(np.uint32), np.dtype(np.uint64)}


def numpy_dtype(name):
    """The NumPy dtype dagrad holds torch dtype ``name`` in (float32 for bfloat16)."""
    kind = DTYPES[name]
    return np.dtype(np.float32 if kind is None else kind)
