"""Ready-made models. Each model family lives in its own file and adds one import line below."""
from .mlp import MLP
from .cnn import VGG, LeNet, vgg_block
from .autoencoders import (Autoencoder, ConvAutoencoder, DenoisingAutoencoder,
                           LinearAutoencoder, SparseAutoencoder)
from .vae import VAE
from .transformer_seq2seq import Seq2SeqTransformer
from .gpt import GPT
from .word2vec import Word2Vec
from .vit import ViT
from .gan import GAN
from .char_lm import CharLM
from .seq2seq_rnn import Seq2SeqRNN
