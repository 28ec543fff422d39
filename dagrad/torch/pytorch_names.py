"""The public names of PyTorch 2.13's modules, and its submodules, for dagrad.torch's fallback.

A name of a ``dagrad.torch`` module that dagrad lacks raises ``NotInDagradError`` when PyTorch's
module of the same name has it, and a plain ``AttributeError`` otherwise (a typo is not a
missing feature). ``python -m dagrad.torch.pytorch_names`` prints these tables from the
installed PyTorch; tests/facade/test_missing_names.py checks them against it.
"""

MODULE_NAMES = {
    "torch": frozenset("""
    AVG AcceleratorError AggregationType AliasDb AnyType Argument ArgumentSpec AwaitType
    BFloat16Storage BFloat16Tensor BenchmarkConfig BenchmarkExecutionStats Block BoolStorage
    BoolTensor BoolType BufferDict ByteStorage ByteTensor CallStack Capsule CharStorage
    CharTensor ClassType Code CompilationUnit CompleteArgumentSpec ComplexDoubleStorage
    ComplexFloatStorage ComplexType ConcreteModuleType ConcreteModuleTypeBuilder
    DeepCopyMemoTable DeserializationStorageContext DeviceObjType DictType DisableTorchFunction
    DisableTorchFunctionSubclass DispatchKey DispatchKeySet DoubleStorage DoubleTensor EnumType
    ErrorReport Event ExcludeDispatchKeyGuard ExecutionPlan FatalError FileCheck FloatStorage
    FloatTensor FloatType FunctionSchema Future FutureType Generator GradScaler Gradient Graph
    GraphExecutorState HalfStorage HalfTensor IODescriptor InferredType IntStorage IntTensor
    IntType InterfaceType JITException ListType LiteScriptModule LockingLogger LoggerBase
    LongStorage LongTensor ModuleDict Node NoneType NoopLogger NumberType OperatorInfo
    OptionalType OutOfMemoryError PRIVATE_OPS ParameterDict PyObjectType PyTorchFileReader
    PyTorchFileWriter QInt32Storage QInt8Storage QUInt2x4Storage QUInt4x2Storage QUInt8Storage
    RRefType SUM ScriptClass ScriptClassFunction ScriptDict ScriptDictIterator
    ScriptDictKeyIterator ScriptFunction ScriptList ScriptListIterator ScriptMethod
    ScriptModule ScriptModuleSerializer ScriptObject ScriptObjectProperty
    SerializationStorageContext ShortStorage ShortTensor Size StaticModule Storage StorageBase
    Stream StreamObjType StringType SymBool SymBoolType SymFloat SymInt SymIntType
    TYPE_CHECKING Tag Tensor TensorType ThroughputBenchmark TracingState TupleType Type
    TypedStorage USE_GLOBAL_DEPS USE_RTLD_GLOBAL_WITH_LIBTORCH UnionType UntypedStorage Use
    Value abs abs_ absolute accelerator acos acos_ acosh acosh_ adaptive_avg_pool1d
    adaptive_max_pool1d add addbmm addcdiv addcmul addmm addmv addmv_ addr adjoint
    affine_grid_generator alias_copy all allclose alpha_dropout alpha_dropout_ amax amin
    aminmax amp angle any ao arange arccos arccos_ arccosh arccosh_ arcsin arcsin_ arcsinh
    arcsinh_ arctan arctan2 arctan_ arctanh arctanh_ are_deterministic_algorithms_enabled
    argmax argmin argsort argwhere as_strided as_strided_ as_strided_copy as_strided_scatter
    as_tensor asarray asin asin_ asinh asinh_ atan atan2 atan_ atanh atanh_ atleast_1d
    atleast_2d atleast_3d autocast autocast_decrement_nesting autocast_increment_nesting
    autograd avg_pool1d backends baddbmm bartlett_window batch_norm batch_norm_backward_elemt
    batch_norm_backward_reduce batch_norm_elemt batch_norm_gather_stats
    batch_norm_gather_stats_with_counts batch_norm_stats batch_norm_update_stats bernoulli
    bfloat16 bilinear binary_cross_entropy_with_logits bincount binomial bit bits16 bits1x8
    bits2x4 bits4x2 bits8 bitwise_and bitwise_left_shift bitwise_not bitwise_or
    bitwise_right_shift bitwise_xor blackman_window block_diag bmm bool broadcast_shapes
    broadcast_tensors broadcast_to bucketize builtins can_cast cartesian_prod cat
    ccol_indices_copy cdist cdouble ceil ceil_ celu celu_ cfloat chain_matmul chalf
    channel_shuffle channels_last channels_last_3d cholesky cholesky_inverse cholesky_solve
    choose_qparams_optimized chunk clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_
    classes classproperty clear_autocast_cache clip clip_ clone col_indices_copy column_stack
    combinations compile compiled_with_cxx11_abi compiler complex complex128 complex32
    complex64 concat concatenate cond conj conj_physical conj_physical_ constant_pad_nd
    contiguous_format conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
    conv_transpose3d convolution copysign corrcoef cos cos_ cosh cosh_ cosine_embedding_loss
    cosine_similarity count_nonzero cov cpp cpu cross crow_indices_copy ctc_loss ctypes cuda
    cudnn_affine_grid_generator cudnn_batch_norm cudnn_convolution cudnn_convolution_add_relu
    cudnn_convolution_relu cudnn_convolution_transpose cudnn_grid_sampler cudnn_is_acceptable
    cummax cummin cumprod cumsum cumulative_trapezoid default_generator deg2rad deg2rad_
    dequantize det detach detach_ detach_copy device diag diag_embed diagflat diagonal
    diagonal_copy diagonal_scatter diff digamma dist distributed distributions div divide dot
    double dropout dropout_ dsmm dsplit dstack dtype e eig einsum embedding embedding_bag
    embedding_renorm_ empty empty_like empty_permuted empty_quantized empty_strided enable_grad
    eq equal erf erf_ erfc erfc_ erfinv exp exp2 exp2_ exp_ expand_copy expm1 expm1_ export eye
    fake_quantize_per_channel_affine fake_quantize_per_tensor_affine fbgemm_linear_fp16_weight
    fbgemm_linear_fp16_weight_fp32_activation fbgemm_linear_int8_weight
    fbgemm_linear_int8_weight_fp32_activation fbgemm_linear_quantize_weight
    fbgemm_pack_gemm_matrix_fp16 fbgemm_pack_quantized_matrix feature_alpha_dropout
    feature_alpha_dropout_ feature_dropout feature_dropout_ fft fill fill_ finfo fix fix_
    flatten flip fliplr flipud float float16 float32 float4_e2m1fn_x2 float64 float8_e4m3fn
    float8_e4m3fnuz float8_e5m2 float8_e5m2fnuz float8_e8m0fnu float_power floor floor_
    floor_divide fmax fmin fmod fork frac frac_ frexp frobenius_norm from_dlpack from_file
    from_numpy frombuffer full full_like func functional functools
    fused_moving_avg_obs_fake_quant futures fx gather gcd gcd_ ge geqrf ger
    get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype get_autocast_ipu_dtype
    get_autocast_xla_dtype get_default_device get_default_dtype get_deterministic_debug_mode
    get_device get_device_module get_file_path get_float32_matmul_precision
    get_num_interop_threads get_num_threads get_rng_state glob gradient greater greater_equal
    grid_sampler grid_sampler_2d grid_sampler_3d group_norm gru gru_cell gt half hamming_window
    hann_window hardshrink has_lapack has_mkl has_openmp has_spectral hash_tensor heaviside
    hinge_embedding_loss histc histogram histogramdd hsmm hsplit hspmm hstack hub hypot i0 i0_
    igamma igammac iinfo imag import_ir_module import_ir_module_from_buffer importlib index_add
    index_copy index_fill index_put index_put_ index_reduce index_select indices_copy inf
    inference_mode init_num_threads initial_seed inner inspect instance_norm int int1 int16
    int2 int3 int32 int4 int5 int6 int64 int7 int8 int_repr inverse
    is_anomaly_check_nan_enabled is_anomaly_enabled is_autocast_cache_enabled
    is_autocast_cpu_enabled is_autocast_enabled is_autocast_ipu_enabled is_autocast_xla_enabled
    is_complex is_conj is_deterministic_algorithms_warn_only_enabled is_distributed
    is_floating_point is_grad_enabled is_inference is_inference_mode_enabled is_neg is_nonzero
    is_same_size is_signed is_storage is_tensor is_vulkan_available is_warn_always_enabled
    isclose isfinite isin isinf isnan isneginf isposinf isreal istft jagged jit kaiser_window
    kl_div kron kthvalue layer_norm layout lcm lcm_ ldexp ldexp_ le legacy_contiguous_format
    lerp less less_equal lgamma library linalg linspace load lobpcg log log10 log10_ log1p
    log1p_ log2 log2_ log_ log_softmax logaddexp logaddexp2 logcumsumexp logdet logical_and
    logical_not logical_or logical_xor logit logit_ logspace logsumexp long lstm lstm_cell
    lstsq lt lu lu_solve lu_unpack manual_seed margin_ranking_loss masked masked_fill
    masked_scatter masked_select math matmul matrix_exp matrix_power matrix_rank max max_pool1d
    max_pool1d_with_indices max_pool2d max_pool3d maximum mean median memory_format
    merge_type_from_type_comment meshgrid min minimum miopen_batch_norm miopen_convolution
    miopen_convolution_add_relu miopen_convolution_relu miopen_convolution_transpose
    miopen_ctc_loss miopen_depthwise_convolution miopen_rnn mkldnn_adaptive_avg_pool2d
    mkldnn_convolution mkldnn_linear_backward_weights mkldnn_max_pool2d mkldnn_max_pool3d
    mkldnn_rnn_layer mm mode monitor moveaxis movedim mps msort mtia mul multinomial multiply
    multiprocessing mv mvlgamma nan nan_to_num nan_to_num_ nanmean nanmedian nanquantile nansum
    narrow narrow_copy native_batch_norm native_channel_shuffle native_dropout
    native_group_norm native_layer_norm native_norm ne neg neg_ negative negative_ nested
    newaxis nextafter nn no_grad nonzero nonzero_static norm norm_except_dim normal not_equal
    nuclear_norm numel ones ones_like ops optim orgqr ormqr os outer overrides package
    pairwise_distance parse_ir parse_schema parse_type_comment pca_lowrank pdist
    per_channel_affine per_channel_affine_float_qparams per_channel_symmetric per_tensor_affine
    per_tensor_symmetric permute permute_copy pi pinverse pixel_shuffle pixel_unshuffle
    platform poisson poisson_nll_loss polar polygamma positive pow prelu
    prepare_multiprocessing_environment preserve_format prod profiler
    profiler_allow_cudagraph_cupti_lazy_reinit_cuda12 promote_types put q_per_channel_axis
    q_per_channel_scales q_per_channel_zero_points q_scale q_zero_point qint32 qint8 qr qscheme
    quantile quantization quantize_per_channel quantize_per_tensor quantize_per_tensor_dynamic
    quantized_batch_norm quantized_gru quantized_gru_cell quantized_lstm quantized_lstm_cell
    quantized_max_pool1d quantized_max_pool2d quantized_max_pool3d quantized_rnn_relu_cell
    quantized_rnn_tanh_cell quasirandom quint2x4 quint4x2 quint8 rad2deg rad2deg_ rand
    rand_like randint randint_like randn randn_like random randperm range ravel real reciprocal
    reciprocal_ relu relu_ remainder renorm repeat_interleave reshape resize_as_
    resize_as_sparse_ resolve_conj resolve_neg result_type return_types rms_norm rnn_relu
    rnn_relu_cell rnn_tanh rnn_tanh_cell roll rot90 round round_ row_indices_copy row_stack
    rrelu rrelu_ rsqrt rsqrt_ rsub saddmm save scalar_tensor scatter scatter_add scatter_reduce
    searchsorted seed segment_reduce select select_copy select_scatter selu selu_ serialization
    set_anomaly_enabled set_autocast_cache_enabled set_autocast_cpu_dtype
    set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled set_autocast_gpu_dtype
    set_autocast_ipu_dtype set_autocast_ipu_enabled set_autocast_xla_dtype
    set_autocast_xla_enabled set_default_device set_default_dtype set_default_tensor_type
    set_deterministic_debug_mode set_float32_matmul_precision set_flush_denormal
    set_grad_enabled set_num_interop_threads set_num_threads set_printoptions set_rng_state
    set_warn_always sgn short sigmoid sigmoid_ sign signal signbit sin sin_ sinc sinc_ sinh
    sinh_ slice_copy slice_inverse slice_scatter slogdet smm softmax solve sort sparse
    sparse_bsc sparse_bsc_tensor sparse_bsr sparse_bsr_tensor sparse_compressed_tensor
    sparse_coo sparse_coo_tensor sparse_csc sparse_csc_tensor sparse_csr sparse_csr_tensor
    special split split_copy split_with_sizes split_with_sizes_copy spmm sqrt sqrt_ square
    square_ squeeze squeeze_copy sspaddmm stack std std_mean stft storage strided sub subtract
    sum svd svd_lowrank swapaxes swapdims sym_constrain_range sym_constrain_range_for_size
    sym_float sym_fresh_size sym_int sym_ite sym_max sym_min sym_not sym_sqrt sym_sum symeig
    sys t t_copy take take_along_dim tan tan_ tanh tanh_ tensor tensor_split tensordot testing
    textwrap thread_safe_generator threading threshold threshold_ tile to_dlpack topk torch
    torch_version trace transpose transpose_copy trapezoid trapz triangular_solve tril
    tril_indices triplet_margin_loss triu triu_indices true_divide trunc trunc_ typename types
    uint1 uint16 uint2 uint3 uint32 uint4 uint5 uint6 uint64 uint7 uint8 unbind unbind_copy
    unflatten unfold_copy unify_type_list unique unique_consecutive unravel_index unsafe_chunk
    unsafe_split unsafe_split_with_sizes unsqueeze unsqueeze_copy use_deterministic_algorithms
    utils values_copy vander var var_mean vdot version view_as_complex view_as_complex_copy
    view_as_real view_as_real_copy view_copy vmap vsplit vstack wait warnings where while_loop
    windows xlogy xlogy_ xpu zero_ zeros zeros_like
""".split()),
    "torch.nn": frozenset("""
    AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveLogSoftmaxWithLoss
    AdaptiveMaxPool1d AdaptiveMaxPool2d AdaptiveMaxPool3d AlphaDropout AvgPool1d AvgPool2d
    AvgPool3d BCELoss BCEWithLogitsLoss BatchNorm1d BatchNorm2d BatchNorm3d Bilinear Buffer
    CELU CTCLoss ChannelShuffle CircularPad1d CircularPad2d CircularPad3d ConstantPad1d
    ConstantPad2d ConstantPad3d Container Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d
    ConvTranspose3d CosineEmbeddingLoss CosineSimilarity CrossEntropyLoss CrossMapLRN2d
    DataParallel Dropout Dropout1d Dropout2d Dropout3d ELU Embedding EmbeddingBag
    FeatureAlphaDropout Flatten Fold FractionalMaxPool2d FractionalMaxPool3d GELU GLU GRU
    GRUCell GaussianNLLLoss GroupNorm Hardshrink Hardsigmoid Hardswish Hardtanh
    HingeEmbeddingLoss HuberLoss Identity InstanceNorm1d InstanceNorm2d InstanceNorm3d
    KLDivLoss L1Loss LPPool1d LPPool2d LPPool3d LSTM LSTMCell LayerNorm LazyBatchNorm1d
    LazyBatchNorm2d LazyBatchNorm3d LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d
    LazyConvTranspose2d LazyConvTranspose3d LazyInstanceNorm1d LazyInstanceNorm2d
    LazyInstanceNorm3d LazyLinear LeakyReLU Linear LinearCrossEntropyLoss
    LinearCrossEntropyOptions LocalResponseNorm LogSigmoid LogSoftmax MSELoss MarginRankingLoss
    MaxPool1d MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d Mish Module ModuleDict
    ModuleList MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss MultiheadAttention
    NLLLoss NLLLoss2d PReLU PairwiseDistance Parameter ParameterDict ParameterList PixelShuffle
    PixelUnshuffle PoissonNLLLoss RMSNorm RNN RNNBase RNNCell RNNCellBase RReLU ReLU ReLU6
    ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d
    ReplicationPad3d SELU Sequential SiLU Sigmoid SmoothL1Loss SoftMarginLoss Softmax Softmax2d
    Softmin Softplus Softshrink Softsign SyncBatchNorm Tanh Tanhshrink Threshold Transformer
    TransformerDecoder TransformerDecoderLayer TransformerEncoder TransformerEncoderLayer
    TripletMarginLoss TripletMarginWithDistanceLoss Unflatten Unfold UninitializedBuffer
    UninitializedParameter Upsample UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d
    ZeroPad2d ZeroPad3d attention common_types factory_kwargs functional grad init intrinsic
    modules parallel parameter qat quantizable quantized utils
""".split()),
    "torch.nn.functional": frozenset("""
    BroadcastingList1 BroadcastingList2 BroadcastingList3 Callable DType
    GRID_SAMPLE_INTERPOLATION_MODES GRID_SAMPLE_PADDING_MODES Optional ScalingType SwizzleType
    TYPE_CHECKING Tensor adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
    adaptive_max_pool1d adaptive_max_pool1d_with_indices adaptive_max_pool2d
    adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices
    affine_grid alpha_dropout assert_int_or_pair avg_pool1d avg_pool2d avg_pool3d batch_norm
    bilinear binary_cross_entropy binary_cross_entropy_with_logits boolean_dispatch celu celu_
    channel_shuffle conv1d conv2d conv3d conv_tbc conv_transpose1d conv_transpose2d
    conv_transpose3d cosine_embedding_loss cosine_similarity cross_entropy ctc_loss dataclasses
    dropout dropout1d dropout2d dropout3d elu elu_ embedding embedding_bag
    feature_alpha_dropout fold fractional_max_pool2d fractional_max_pool2d_with_indices
    fractional_max_pool3d fractional_max_pool3d_with_indices gaussian_nll_loss gelu glu grad
    grid_sample group_norm grouped_mm gumbel_softmax handle_torch_function hardshrink
    hardsigmoid hardswish hardtanh hardtanh_ has_torch_function has_torch_function_unary
    has_torch_function_variadic hinge_embedding_loss huber_loss importlib instance_norm
    interpolate kl_div l1_loss layer_norm leaky_relu leaky_relu_ linear linear_cross_entropy
    local_response_norm log_softmax logsigmoid lp_pool1d lp_pool2d lp_pool3d
    margin_ranking_loss math max_pool1d max_pool1d_with_indices max_pool2d
    max_pool2d_with_indices max_pool3d max_pool3d_with_indices max_unpool1d max_unpool2d
    max_unpool3d mish mse_loss multi_head_attention_forward multi_margin_loss
    multilabel_margin_loss multilabel_soft_margin_loss native_channel_shuffle nll_loss
    normalize np one_hot pad pairwise_distance pdist pixel_shuffle pixel_unshuffle
    poisson_nll_loss prelu relu relu6 relu_ reproducibility_notes rms_norm rrelu rrelu_
    scaled_dot_product_attention scaled_grouped_mm scaled_mm selu selu_ sigmoid silu
    smooth_l1_loss soft_margin_loss softmax softmin softplus softshrink softsign
    sparse_support_notes tanh tanhshrink tf32_notes threshold threshold_ torch
    triplet_margin_loss triplet_margin_with_distance_loss unfold upsample upsample_bilinear
    upsample_nearest warnings
""".split()),
    "torch.nn.init": frozenset("""
    Callable Literal ParamSpec Tensor TypeVar calculate_gain constant constant_ dirac dirac_
    eye eye_ kaiming_normal kaiming_normal_ kaiming_uniform kaiming_uniform_ math normal
    normal_ ones_ orthogonal orthogonal_ sparse sparse_ torch trunc_normal_ uniform uniform_
    warnings xavier_normal xavier_normal_ xavier_uniform xavier_uniform_ zeros_
""".split()),
    "torch.nn.utils": frozenset("""
    clip_grad clip_grad_norm clip_grad_norm_ clip_grad_value_ clip_grads_with_norm_
    convert_conv2d_weight_memory_format convert_conv3d_weight_memory_format convert_parameters
    fuse_conv_bn_eval fuse_conv_bn_weights fuse_linear_bn_eval fuse_linear_bn_weights fusion
    get_total_norm init memory_format parameters_to_vector parametrizations parametrize
    remove_spectral_norm remove_weight_norm rnn skip_init spectral_norm stateless
    vector_to_parameters weight_norm
""".split()),
    "torch.optim": frozenset("""
    ASGD Adadelta Adafactor Adagrad Adam AdamW Adamax LBFGS Muon NAdam Optimizer RAdam RMSprop
    Rprop SGD SparseAdam lr_scheduler swa_utils swap_in_optimizer_params_and_state
""".split()),
    "torch.optim.lr_scheduler": frozenset("""
    Any ChainedScheduler ConstantLR CosineAnnealingLR CosineAnnealingWarmRestarts Counter
    CyclicLR EPOCH_DEPRECATION_WARNING ExponentialLR LRScheduler LambdaLR LinearLR Literal
    MultiStepLR MultiplicativeLR OneCycleLR Optimizer PolynomialLR ReduceLROnPlateau Self
    SequentialLR StepLR SupportsFloat TYPE_CHECKING Tensor TypedDict annotations bisect_right
    cast inf math override partial ref types warnings wraps
""".split()),
    "torch.utils": frozenset("""
    ThroughputBenchmark backcompat backend_registration checkpoint cmake_prefix_path
    collect_env copyreg cpp_backtrace data deterministic dlpack
    generate_methods_for_privateuse1_backend get_cpp_backtrace hooks rename_privateuse1_backend
    set_module swap_tensors throughput_benchmark torch weak weakref
""".split()),
    "torch.utils.data": frozenset("""
    BatchSampler ChainDataset ConcatDataset DFIterDataPipe DataChunk DataLoader Dataset
    DistributedSampler IterDataPipe IterableDataset MapDataPipe RandomSampler Sampler
    SequentialSampler StackDataset Subset SubsetRandomSampler TensorDataset
    WeightedRandomSampler argument_validation dataloader datapipes dataset default_collate
    default_convert distributed functional_datapipe get_worker_info graph graph_settings
    guaranteed_datapipes_determinism non_deterministic random_split runtime_validation
    runtime_validation_disabled sampler
""".split()),
    "torch.autograd": frozenset("""
    DeviceType Function Mapping NestedIOFunction ProfilerActivity ProfilerConfig ProfilerEvent
    ProfilerState SavedTensor Sequence Variable anomaly_mode backward cast detect_anomaly
    enable_grad enforce_grad_layout_policy forward_ad function functional grad grad_mode
    gradcheck gradgradcheck graph handle_torch_function has_torch_function inference_mode
    is_multithreading_enabled is_tensor_like is_view_replay_enabled kineto_available no_grad
    overload profiler profiler_legacy profiler_util set_detect_anomaly set_grad_enabled
    set_multithreading_enabled torch variable warnings
""".split()),
    "torch.cuda": frozenset("""
    AcceleratorError Any BFloat16Storage BFloat16Tensor BoolStorage BoolTensor ByteStorage
    ByteTensor CUDAGraph CUDAPluggableAllocator Callable CharStorage CharTensor
    ComplexDoubleStorage ComplexFloatStorage CudaError DEVICE_REQUIREMENT DeferredCudaCallError
    Device DoubleStorage DoubleTensor Event ExternalStream FloatStorage FloatTensor
    GreenContext HalfStorage HalfTensor IntStorage IntTensor LongStorage LongTensor MemPool
    NewType Optional OutOfMemoryError PYTORCH_RELEASES_CODE_CC ShortStorage ShortTensor Stream
    StreamContext TYPE_CHECKING amp caching_allocator_alloc caching_allocator_delete
    caching_allocator_disabled caching_allocator_enable can_device_access_peer cast
    change_current_allocator check_error classproperty clock_rate cudaStatus cudart
    current_blas_handle current_device current_solver_handle current_stream default_generators
    default_stream device device_count device_memory_used device_of empty_cache gds
    get_allocator_backend get_arch_list get_device_capability get_device_name
    get_device_properties get_gencode_flags get_per_process_memory_fraction get_rng_state
    get_rng_state_all get_stream_from_external get_sync_debug_mode graph graph_pool_handle
    graphs green_contexts has_half has_magma host_memory_stats host_memory_stats_as_nested_dict
    importlib init initial_seed ipc_collect is_available is_bf16_supported
    is_current_stream_capturing is_initialized is_tf32_supported jiterator list_gpu_processes
    lru_cache make_graphed_callables manual_seed manual_seed_all max_memory_allocated
    max_memory_cached max_memory_reserved mem_get_info memory memory_allocated memory_cached
    memory_reserved memory_snapshot memory_stats memory_stats_as_nested_dict memory_summary
    memory_usage nccl nvtx os platform power_draw profiler random
    reset_accumulated_host_memory_stats reset_accumulated_memory_stats
    reset_max_memory_allocated reset_max_memory_cached reset_peak_host_memory_stats
    reset_peak_memory_stats seed seed_all set_device set_per_process_memory_fraction
    set_rng_state set_rng_state_all set_stream set_sync_debug_mode sparse stream streams
    synchronize temperature threading torch traceback tunable use_mem_pool utilization warnings
""".split()),
    "torch.backends": frozenset("""
    cpu cuda cudnn cusparselt kleidiai m mha miopen mkl mkldnn mps nnpack openmp opt_einsum
    python_native quantized
""".split()),
    "torch.onnx": frozenset("""
    Any ExportableModule InputObserver JitScalarType ONNXProgram OnnxExporterError
    OperatorExportTypes TYPE_CHECKING TensorProtoDataType TrainingMode annotations errors
    export is_in_onnx_export ops producer_name producer_version register_custom_op_symbolic
    select_model_mode_for_export symbolic_helper symbolic_opset10 symbolic_opset9 torch
    unregister_custom_op_symbolic utils
""".split()),
    "torch.accelerator": frozenset("""
    Any Graph cache current_accelerator current_device_idx current_device_index current_stream
    deprecated device_count device_index empty_cache empty_host_cache get_device_capability
    get_memory_info graphs is_available max_memory_allocated max_memory_reserved memory
    memory_allocated memory_reserved memory_stats reset_accumulated_memory_stats
    reset_peak_memory_stats set_device_idx set_device_index set_stream synchronize torch
""".split()),
    "torch.autograd.functional": frozenset("""
    fwAD hessian hvp jacobian jvp torch vhp vjp
""".split()),
    "torch.serialization": frozenset("""
    Any Callable DEFAULT_PROTOCOL Enum FileLike Generic INT_SIZE IO IS_WINDOWS LONG_SIZE
    LoadEndianness MAGIC_NUMBER MAP_LOCATION MAP_PRIVATE MAP_SHARED PROTOCOL_VERSION SHORT_SIZE
    STORAGE STORAGE_KEY_SEPARATOR SourceChangeWarning Storage StorageType T TypeAlias TypeIs
    TypeVar UNSAFE_MESSAGE add_safe_globals cast check_module_version_greater_or_equal
    clear_safe_globals closing contextmanager copyreg default_restore_location difflib
    functools get_crc32_options get_default_load_endianness get_default_mmap_options
    get_safe_globals get_source_lines_and_file get_unsafe_globals_in_checkpoint io load
    location_tag mkdtemp normalize_storage_type os pickle re register_package safe_globals save
    set_crc32_options set_default_load_endianness set_default_mmap_options shutil skip_data
    storage_to_tensor_type struct sys tarfile tempfile threading torch validate_cuda_device
    validate_hpu_device warnings
""".split()),
}

# The submodules of PyTorch's packages: ``import torch.linalg`` gives a module whose every
# name raises NotInDagradError (a misspelt module is still ModuleNotFoundError).
SUBMODULES = {
    "torch": frozenset("""
        accelerator amp ao autograd backends compiler contrib cpu cuda distributed
        distributions export fft func functional futures fx hub jit library linalg masked
        monitor mps mtia multiprocessing nativert nested nn numa onnx optim overrides
        package profiler quantization quasirandom random return_types serialization signal
        sparse special storage testing torch_version types utils version xpu
    """.split()),
    "torch.nn": frozenset("""
        attention backends common_types cpp functional grad init intrinsic modules parallel
        parameter qat quantizable quantized utils
    """.split()),
    "torch.utils": frozenset("""
        backcompat backend_registration benchmark bundled_inputs checkpoint collect_env
        cpp_backtrace cpp_extension data debug_log deterministic dlpack file_baton
        flop_counter hipify hooks jit mkldnn mobile_optimizer model_dump model_zoo
        module_tracker serialization show_pickle tensorboard throughput_benchmark viz weak
    """.split()),
    "torch.backends": frozenset("""
        cpu cuda cudnn cusparselt kleidiai mha miopen mkl mkldnn mps nnpack openmp
        opt_einsum python_native quantized xeon xnnpack
    """.split()),
    "torch.autograd": frozenset("""
        anomaly_mode forward_ad function functional grad_mode gradcheck graph profiler
        profiler_legacy profiler_util variable
    """.split()),
    "torch.optim": frozenset("""
        adadelta adagrad adam adamax adamw asgd lbfgs lr_scheduler nadam optimizer radam
        rmsprop rprop sgd sparse_adam swa_utils
    """.split()),
    "torch.nn.utils": frozenset("""
        clip_grad convert_parameters fusion init memory_format parametrizations parametrize
        prune rnn spectral_norm stateless weight_norm
    """.split()),
}



def _tables():
    """The two tables above, read from the installed PyTorch."""
    import importlib
    import inspect
    import pkgutil
    modules = {}
    for name in MODULE_NAMES:     # submodules are left out: dir() lists those imported so far
        module = importlib.import_module(name)
        modules[name] = sorted(n for n in dir(module) if not n.startswith("_")
                               and not inspect.ismodule(getattr(module, n, None)))
    packages = {}
    for name in SUBMODULES:
        package = importlib.import_module(name)
        packages[name] = sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                                if not m.name.startswith("_"))
    return modules, packages


if __name__ == "__main__":
    for table in _tables():
        for name, names in table.items():
            print(name, " ".join(names))
