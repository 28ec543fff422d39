"""Where PyTorch defines each ``torch.nn`` layer: ``torch.nn.modules.<file>.<Class>``.

PyTorch code names layers by these paths (``torch.serialization.safe_globals([
torch.nn.modules.linear.Linear])``, ``from torch.nn.modules.loss import _Loss``), and a whole
model pickled by PyTorch names its layers' classes by them. One table serves both: loading maps
the paths to dagrad's classes of the same name, and ``dagrad.torch.nn.modules`` is built from it.
"""
FILES = {
    "activation": "CELU ELU GELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU "
                  "LogSigmoid LogSoftmax Mish MultiheadAttention PReLU RReLU ReLU ReLU6 SELU "
                  "SiLU Sigmoid Softmax Softmax2d Softmin Softplus Softshrink Softsign Tanh "
                  "Tanhshrink Threshold",
    "adaptive": "AdaptiveLogSoftmaxWithLoss",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d LazyBatchNorm1d LazyBatchNorm2d "
                 "LazyBatchNorm3d SyncBatchNorm",
    "channelshuffle": "ChannelShuffle",
    "container": "Container ModuleDict ModuleList ParameterDict ParameterList Sequential",
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d LazyConvTranspose3d",
    "distance": "CosineSimilarity PairwiseDistance",
    "dropout": "AlphaDropout Dropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout",
    "flatten": "Flatten Unflatten",
    "fold": "Fold Unfold",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d LazyInstanceNorm1d "
                    "LazyInstanceNorm2d LazyInstanceNorm3d",
    "linear": "Bilinear Identity LazyLinear Linear NonDynamicallyQuantizableLinear",
    "loss": "BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CrossEntropyLoss "
            "GaussianNLLLoss HingeEmbeddingLoss HuberLoss KLDivLoss L1Loss MSELoss "
            "MarginRankingLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss "
            "NLLLoss PoissonNLLLoss SmoothL1Loss SoftMarginLoss TripletMarginLoss "
            "TripletMarginWithDistanceLoss",
    "module": "Module",
    "normalization": "CrossMapLRN2d GroupNorm LayerNorm LocalResponseNorm RMSNorm",
    "padding": "CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d "
               "ConstantPad3d ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d "
               "ReplicationPad2d ReplicationPad3d ZeroPad1d ZeroPad2d ZeroPad3d",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "pooling": "AdaptiveAvgPool1d AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d "
               "AdaptiveMaxPool2d AdaptiveMaxPool3d AvgPool1d AvgPool2d AvgPool3d "
               "FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d MaxPool1d "
               "MaxPool2d MaxPool3d MaxUnpool1d MaxUnpool2d MaxUnpool3d",
    "rnn": "GRU GRUCell LSTM LSTMCell RNN RNNBase RNNCell RNNCellBase",
    "sparse": "Embedding EmbeddingBag",
    "transformer": "Transformer TransformerDecoder TransformerDecoderLayer TransformerEncoder "
                   "TransformerEncoderLayer",
    "upsampling": "Upsample UpsamplingBilinear2d UpsamplingNearest2d",
}
NAMES = {file: tuple(names.split()) for file, names in FILES.items()}


def dagrad_classes(file):
    """``name -> dagrad class`` for the classes of ``torch.nn.modules.<file>`` dagrad has."""
    import dagrad.nn as nn
    return {name: getattr(nn, name) for name in NAMES[file]
            if isinstance(getattr(nn, name, None), type)}


def torch_class_paths():
    """``'torch.nn.modules.<file>.<Class>' -> dagrad class`` for every class dagrad has."""
    return {f"torch.nn.modules.{file}.{name}": cls
            for file in NAMES for name, cls in dagrad_classes(file).items()}
