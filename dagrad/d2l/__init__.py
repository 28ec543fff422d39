"""``dagrad.d2l``: the library of the course's textbook (*Dive into Deep Learning*, its
``from d2l import torch as d2l`` module) with the same public names, signatures and behaviour,
written over ``dagrad.torch``. The notes' code cells run as printed after
``from dagrad import torch, d2l``::

    data = d2l.SyntheticRegressionData(w=torch.tensor([2, -3.4]), b=4.2)
    trainer = d2l.Trainer(max_epochs=3)
    trainer.fit(d2l.LinearRegression(lr=0.03), data)

One file per family of chapters:

- ``utils``: ``add_to_class``, ``HyperParameters``, ``Timer``, ``Accumulator``, ``Benchmark``,
  ``check_len``, ``check_shape``, the device helpers (there is never a GPU), ``split_batch``;
- ``aliases``: the book's framework-neutral names (``d2l.reshape``, ``d2l.tensor``, ...);
- ``plotting``: ``plot``, ``show_images``, ``show_heatmaps``, ``ProgressBoard``, ``Animator``;
- ``base``: ``Module``, ``DataModule``, ``Trainer``, ``SGD``, ``grad_clipping``;
- ``linear``: linear regression and classification, ``Classifier``, ``FashionMNIST``;
- ``cnn``: ``corr2d``, ``init_cnn``, ``LeNet``, ``Residual``, ``ResNeXtBlock``, ``resnet18``,
  ``train_ch6``;
- ``rnn``: ``Vocab``, ``TimeMachine``, ``RNNScratch``, ``RNNLMScratch``, ``RNN``, ``RNNLM``,
  ``GRU``;
- ``seq2seq``: ``MTFraEng``, ``Encoder``/``Decoder``/``EncoderDecoder``, ``Seq2SeqEncoder``,
  ``Seq2Seq``, ``init_seq2seq``, ``bleu``, ``sequence_mask``, the older ``train_seq2seq`` and
  ``predict_seq2seq``;
- ``attention``: ``masked_softmax``, ``DotProductAttention``, ``AdditiveAttention``,
  ``MultiHeadAttention``, ``PositionalEncoding``, the Transformer encoder;
- ``bert``: ``get_tokens_and_segments``, ``BERTEncoder``, ``MaskLM``, ``NextSentencePred``,
  ``BERTModel``; ``wikitext``: ``load_data_wiki`` (WikiText-2 for BERT pretraining);
- ``word2vec``: the Penn Treebank for skip-gram with negative sampling (``read_ptb``,
  ``subsample``, ``get_centers_and_contexts``, ``RandomGenerator``, ``get_negatives``,
  ``batchify``, ``load_data_ptb``) and pretrained vectors (``TokenEmbedding``);
- ``gan``: ``update_D``, ``update_G``;
- ``optimization``: ``train_2d``, ``get_data_ch11``, ``train_ch11``, ``train_concise_ch11``;
- ``files``: where the data sets live (dagrad downloads nothing; see ``files``'s docstring).

Plots need matplotlib (the notebooks extra); ``d2l.plt`` is ``matplotlib.pyplot``.
"""
import math  # noqa: F401  (the book's code reaches these through d2l)
import numpy as np  # noqa: F401

from dagrad import torch  # noqa: F401
from dagrad.torch import nn  # noqa: F401
from dagrad.torch.nn import functional as F  # noqa: F401

from .aliases import *  # noqa: F401,F403
from .attention import (AddNorm, AdditiveAttention, AttentionDecoder,  # noqa: F401
                        DotProductAttention, MultiHeadAttention, PositionalEncoding,
                        PositionWiseFFN, TransformerEncoder, TransformerEncoderBlock,
                        masked_softmax)
from .base import SGD, DataModule, Module, Trainer, grad_clipping  # noqa: F401
from .bert import (BERTEncoder, BERTModel, MaskLM, NextSentencePred,  # noqa: F401
                   _get_batch_loss_bert, get_tokens_and_segments)
from .cnn import (LeNet, Residual, ResNeXtBlock, corr2d, init_cnn, resnet18,  # noqa: F401
                  train_ch6)
from .files import DATA_HUB, DATA_URL, download, download_extract, extract  # noqa: F401
from .gan import update_D, update_G  # noqa: F401
from .linear import (FASHION_FILES, Classifier, FashionMNIST, LinearRegression,  # noqa: F401
                     LinearRegressionScratch, SoftmaxRegression, SyntheticRegressionData,
                     accuracy, evaluate_accuracy_gpu, evaluate_loss,
                     get_dataloader_workers, get_fashion_mnist_labels, linreg, load_array,
                     load_data_fashion_mnist, sgd, squared_loss, synthetic_data)
from .optimization import (get_data_ch11, train_2d, train_ch11,  # noqa: F401
                           train_concise_ch11)
from .plotting import (Animator, ProgressBoard, annotate, plot, set_axes,  # noqa: F401
                       set_figsize, show_heatmaps, show_images, show_list_len_pair_hist,
                       show_trace_2d, use_svg_display)
from .rnn import (GRU, RNN, RNNLM, RNNLMScratch, RNNScratch, TimeMachine, Vocab,  # noqa: F401
                  tokenize)
from .seq2seq import (Decoder, Encoder, EncoderDecoder, MaskedSoftmaxCELoss,  # noqa: F401
                      MTFraEng, Seq2Seq, Seq2SeqEncoder, bleu, build_array_nmt, init_seq2seq,
                      load_data_nmt, predict_seq2seq, preprocess_nmt, read_data_nmt,
                      sequence_mask, tokenize_nmt, train_seq2seq, truncate_pad)
from .utils import (Accumulator, Benchmark, HyperParameters, Timer, add_to_class,  # noqa: F401
                    check_len, check_shape, cpu, gpu, num_gpus, split_batch, try_all_gpus,
                    try_gpu)
from .wikitext import (_get_mlm_data_from_tokens, _get_next_sentence,  # noqa: F401
                       _get_nsp_data_from_paragraph, _pad_bert_inputs, _read_wiki,
                       _replace_mlm_tokens, _WikiTextDataset, load_data_wiki)
from .word2vec import (RandomGenerator, TokenEmbedding, batchify,  # noqa: F401
                       get_centers_and_contexts, get_negatives, load_data_ptb, read_ptb,
                       subsample)

nn_Module = nn.Module


def __getattr__(name):
    """``d2l.plt`` (matplotlib.pyplot) is imported on first use."""
    if name == "plt":
        from .plotting import _plt
        return _plt()
    raise AttributeError(f"module 'dagrad.d2l' has no attribute {name!r}")
