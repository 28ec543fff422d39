"""``nn.functional`` (import as F): the stateless forms of the layers and losses.

Each function is a composition of autograd operations (or one fused operation), with the
formula in its docstring. Layer families in their own files add one import line below.
"""
from dagrad.autograd import pad

from .activation import (elu, gelu, hardtanh, leaky_relu, log_softmax, prelu, relu, sigmoid,
                         silu, softmax, softplus, tanh)
from .dropout import dropout, dropout1d, dropout2d
from .linear import embedding, linear, one_hot
from .loss import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,
                   gaussian_nll_loss, huber_loss, kl_div, l1_loss, mse_loss, nll_loss,
                   smooth_l1_loss)
from .normalization import batch_norm, layer_norm
from .conv import conv1d, conv2d, conv_transpose2d, fold, unfold
from .pooling import (adaptive_avg_pool2d, avg_pool1d, avg_pool2d, interpolate, max_pool1d,
                      max_pool2d)
from .distance import cosine_similarity, normalize
from .distributions import (bernoulli_log_likelihood_with_logits, gaussian_kl,
                            gaussian_log_likelihood)
from .attention import scaled_dot_product_attention
from .sampled_softmax import log_uniform_probs, sampled_softmax_loss, unigram_probs
