"""Names PyTorch has and dagrad does not: the one error that says so.

``NotInDagradError`` is raised for a PyTorch name dagrad lacks, by every module of
``dagrad.torch`` and by ``Tensor`` for an attribute ``torch.Tensor`` has (``x.storage()``,
``x.pin_memory()``, ...); its message names what to use instead when there is something. It is
an ``AttributeError`` too, so ``hasattr(x, "pin_memory")`` is False and ``getattr(x, name,
default)`` returns the default, as Python code expects of a missing attribute. Any other missing
name (a typo) is a plain ``AttributeError``.
"""


class NotInDagradError(NotImplementedError, AttributeError):
    """A PyTorch name that dagrad does not have (CUDA, compilation, ...).

    It is a NotImplementedError, with a message that names the missing attribute; it is also
    an AttributeError so that ``hasattr(torch, "compile")`` is False and
    ``getattr(torch, name, default)`` returns the default, as Python code expects of a
    missing attribute."""


def not_in_dagrad(qualified_name, hint=""):
    """The error for PyTorch's ``qualified_name``, with ``hint`` (what to use instead)."""
    return NotInDagradError(
        f"{qualified_name}: dagrad does not have it. dagrad.torch covers the CPU part of "
        f"PyTorch that dagrad implements (tensors, autograd, nn, optim, utils.data)"
        + (f"; {hint}" if hint else "") + ".")


# The public attributes of ``torch.Tensor`` (PyTorch 2.13); ``install_missing`` gives the ones
# dagrad lacks their error. tests/facade/test_missing_names.py checks the list against
# the installed PyTorch.
TENSOR_NAMES = frozenset("""
    H T abs abs_ absolute absolute_ acos acos_ acosh acosh_ add add_ addbmm addbmm_ addcdiv
    addcdiv_ addcmul addcmul_ addmm addmm_ addmv addmv_ addr addr_ adjoint all allclose amax
    amin aminmax angle any apply_ arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
    arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ argmax argmin argsort argwhere
    as_strided as_strided_ as_strided_scatter as_subclass asin asin_ asinh asinh_ atan atan2
    atan2_ atan_ atanh atanh_ backward baddbmm baddbmm_ bernoulli bernoulli_ bfloat16 bincount
    bitwise_and bitwise_and_ bitwise_left_shift bitwise_left_shift_ bitwise_not bitwise_not_
    bitwise_or bitwise_or_ bitwise_right_shift bitwise_right_shift_ bitwise_xor bitwise_xor_
    bmm bool broadcast_to byte cauchy_ ccol_indices cdouble ceil ceil_ cfloat chalf char
    cholesky cholesky_inverse cholesky_solve chunk clamp clamp_ clamp_max clamp_max_ clamp_min
    clamp_min_ clip clip_ clone coalesce col_indices conj conj_physical conj_physical_
    const_data_ptr contiguous copy_ copysign copysign_ corrcoef cos cos_ cosh cosh_
    count_nonzero cov cpu cross crow_indices cuda cummax cummin cumprod cumprod_ cumsum cumsum_
    data data_ptr deg2rad deg2rad_ dense_dim dequantize det detach detach_ device diag
    diag_embed diagflat diagonal diagonal_scatter diff digamma digamma_ dim dim_order dist div
    div_ divide divide_ dot double dsplit dtype eig element_size eq eq_ equal erf erf_ erfc
    erfc_ erfinv erfinv_ exp exp2 exp2_ exp_ expand expand_as expm1 expm1_ exponential_ fill_
    fill_diagonal_ fix fix_ flatten flip fliplr flipud float float_power float_power_ floor
    floor_ floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gather gcd gcd_ ge
    ge_ geometric_ geqrf ger get_device grad grad_dtype grad_fn greater greater_ greater_equal
    greater_equal_ gt gt_ half hardshrink hash_tensor heaviside heaviside_ histc histogram
    hsplit hypot hypot_ i0 i0_ igamma igamma_ igammac igammac_ imag index index_add index_add_
    index_copy index_copy_ index_fill index_fill_ index_put index_put_ index_reduce
    index_reduce_ index_select indices inner int int_repr inverse ipu is_coalesced is_complex
    is_conj is_contiguous is_cpu is_cuda is_distributed is_floating_point is_inference is_ipu
    is_leaf is_maia is_meta is_mkldnn is_mps is_mtia is_neg is_nested is_nonzero is_pinned
    is_quantized is_same_size is_set_to is_shared is_signed is_sparse is_sparse_csr is_vulkan
    is_xla is_xpu isclose isfinite isinf isnan isneginf isposinf isreal istft item itemsize
    kron kthvalue layout lcm lcm_ ldexp ldexp_ le le_ lerp lerp_ less less_ less_equal
    less_equal_ lgamma lgamma_ log log10 log10_ log1p log1p_ log2 log2_ log_ log_normal_
    log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and logical_and_ logical_not
    logical_not_ logical_or logical_or_ logical_xor logical_xor_ logit logit_ logsumexp long
    lstsq lt lt_ lu lu_solve mH mT map2_ map_ masked_fill masked_fill_ masked_scatter
    masked_scatter_ masked_select matmul matrix_exp matrix_power max maximum mean median min
    minimum mm mode module_load moveaxis movedim msort mtia mul mul_ multinomial multiply
    multiply_ mv mvlgamma mvlgamma_ name nan_to_num nan_to_num_ nanmean nanmedian nanquantile
    nansum narrow narrow_copy nbytes ndim ndimension ne ne_ neg neg_ negative negative_
    nelement new new_empty new_empty_strided new_full new_ones new_tensor new_zeros nextafter
    nextafter_ nonzero nonzero_static norm normal_ not_equal not_equal_ numel numpy orgqr ormqr
    outer output_nr permute pin_memory pinverse polygamma polygamma_ positive pow pow_ prelu
    prod put put_ q_per_channel_axis q_per_channel_scales q_per_channel_zero_points q_scale
    q_zero_point qr qscheme quantile rad2deg rad2deg_ random_ ravel real reciprocal reciprocal_
    record_stream register_hook register_post_accumulate_grad_hook reinforce relu relu_
    remainder remainder_ renorm renorm_ repeat repeat_interleave requires_grad requires_grad_
    reshape reshape_as resize resize_ resize_as resize_as_ resize_as_sparse_ resolve_conj
    resolve_neg retain_grad retains_grad roll rot90 round round_ row_indices rsqrt rsqrt_
    scatter scatter_ scatter_add scatter_add_ scatter_reduce scatter_reduce_ select
    select_scatter set_ sgn sgn_ shape share_memory_ short sigmoid sigmoid_ sign sign_ signbit
    sin sin_ sinc sinc_ sinh sinh_ size slice_inverse slice_scatter slogdet smm softmax solve
    sort sparse_dim sparse_mask sparse_resize_ sparse_resize_and_clear_ split split_with_sizes
    sqrt sqrt_ square square_ squeeze squeeze_ sspaddmm std stft storage storage_offset
    storage_type stride sub sub_ subtract subtract_ sum sum_to_size svd swapaxes swapaxes_
    swapdims swapdims_ symeig t t_ take take_along_dim tan tan_ tanh tanh_ tensor_split tile to
    to_dense to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo
    to_sparse_csc to_sparse_csr tolist topk trace transpose transpose_ triangular_solve tril
    tril_ triu triu_ true_divide true_divide_ trunc trunc_ type type_as unbind unflatten unfold
    uniform_ unique unique_consecutive unsafe_chunk unsafe_split unsafe_split_with_sizes
    unsqueeze unsqueeze_ untyped_storage values var vdot view view_as volatile vsplit where
    xlogy xlogy_ xpu zero_
""".split())

# What to use instead, for the attributes people reach for most
TENSOR_HINTS = {
    "storage": "the memory is the ndarray x.numpy() (shared, not copied)",
    "untyped_storage": "the memory is the ndarray x.numpy() (shared, not copied)",
    "data_ptr": "the memory is the ndarray x.numpy(); x.numpy().ctypes.data is its address",
    "pin_memory": "there is no GPU to pin memory for: drop the call",
    "is_pinned": "there is no GPU to pin memory for: nothing is pinned",
    "share_memory_": "DataLoader builds batches in the calling process: drop the call",
    "half": "use x.to(ag.float16)",
    "bfloat16": "NumPy has no bfloat16; use float32 (x.float())",
    "apply_": "compute with tensor operations, or on the array x.numpy()",
    "map_": "compute with tensor operations, or on the array x.numpy()",
    "fmod": "x % y is the remainder with the sign of the divisor; for the sign of x use "
            "x - y * (x / y).abs().floor() * (x / y).sign()",
    "index_add_": "accumulate with x[index] += values, or ag.zeros(...).index_put",
    "scatter_": "assign with x[index] = values",
    "scatter_add_": "accumulate with x[index] += values",
    "numpy_": "use x.numpy()",
    "type_as": "use x.to(other.dtype)",
    "to_dense": "dagrad tensors are dense already",
}


class MissingAttribute:
    """What ``Tensor`` holds under a name ``torch.Tensor`` has and dagrad does not: reading it
    (``x.pin_memory``) raises ``NotInDagradError`` naming it and what to use instead.

    A descriptor per name on the class, not a ``Tensor.__getattr__``: a class that defines
    ``__getattr__`` makes Python look up every attribute of its instances the slow way
    (``x._data``, ``x.grad_fn``, read by every operation: 10% of a small operation's
    forward). Any other missing name stays a plain AttributeError."""

    def __init__(self, name):
        self.name = name

    def __get__(self, tensor, owner=None):
        raise not_in_dagrad(f"Tensor.{self.name}", TENSOR_HINTS.get(self.name, ""))


def install_missing(cls):
    """Put a ``MissingAttribute`` on ``cls`` under every name of ``TENSOR_NAMES`` it lacks."""
    for name in TENSOR_NAMES:
        if not any(name in vars(k) for k in cls.__mro__):
            setattr(cls, name, MissingAttribute(name))
