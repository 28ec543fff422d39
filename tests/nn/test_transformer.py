"""Transformer layers, stacks and the full encoder-decoder: PyTorch parity with copied weights
(outputs and every gradient, eval mode, float64), gradcheck on a tiny encoder layer, masks, and
the position encodings."""
import math

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from tests.helpers import calling, module_parity, torch_or_skip

D, NHEAD, FF = 8, 2, 12
pytestmark = pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _perturbed(module, torch):
    """Move every parameter off its initial value (biases start at 0, norms at 1)."""
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.add_(torch.empty_like(p).uniform_(-0.3, 0.3))
    return module.eval()


class _Call:
    """A module (of either library) called with fixed keyword arguments; masks given as
    arrays are converted to the library's tensors on each call."""

    def __init__(self, **kwargs):
        self.kwargs = kwargs

    def __call__(self, lib, module, *xs):
        kw = {k: lib.tensor(v) if isinstance(v, np.ndarray) else v
              for k, v in self.kwargs.items()}
        return module(*xs, **kw)


def _parity(ours, theirs, arrays, call=None):
    torch = torch_or_skip()
    call = call or _Call()
    module_parity(calling(nn.Module, ag, ours.eval(), call),
                  calling(torch.nn.Module, torch, _perturbed(theirs, torch), call), arrays,
                  rtol=1e-7, atol=1e-9)


def _mask(n, seed, p=0.3):
    """Boolean (n, n)-ish mask with True = blocked, never blocking key 0."""
    m = np.random.default_rng(seed).random(n) < p
    m[..., 0] = False
    return m


CAUSAL4 = np.triu(np.full((4, 4), -np.inf), 1)
KPM = np.array([[False, False, False, True, True], [False] * 5])


def _layer_args(norm_first, activation, batch_first):
    return dict(d_model=D, nhead=NHEAD, dim_feedforward=FF, dropout=0.1,
                activation=activation, norm_first=norm_first, batch_first=batch_first)


ENCODER_CASES = [(nf, act, bf) for nf in (False, True) for act, bf in (("relu", False),
                                                                          ("gelu", True))]


@pytest.mark.parametrize("norm_first,activation,batch_first", ENCODER_CASES)
def test_encoder_layer_matches_pytorch(norm_first, activation, batch_first):
    torch = torch_or_skip()
    args = _layer_args(norm_first, activation, batch_first)
    src = _x(2, 5, D) if batch_first else _x(5, 2, D)
    call = _Call(src_mask=_mask((5, 5), 1), src_key_padding_mask=KPM)
    _parity(nn.TransformerEncoderLayer(**args), torch.nn.TransformerEncoderLayer(**args),
            [src], call)


@pytest.mark.parametrize("norm_first,activation,batch_first", ENCODER_CASES)
def test_decoder_layer_matches_pytorch(norm_first, activation, batch_first):
    torch = torch_or_skip()
    args = _layer_args(norm_first, activation, batch_first)
    tgt, memory = (_x(2, 4, D), _x(2, 5, D, seed=1)) if batch_first else \
        (_x(4, 2, D), _x(5, 2, D, seed=1))
    call = _Call(tgt_mask=CAUSAL4 == -np.inf, memory_key_padding_mask=KPM,
                 tgt_key_padding_mask=np.array([[False, False, False, True]] * 2),
                 memory_mask=_mask((4, 5), 2))
    _parity(nn.TransformerDecoderLayer(**args), torch.nn.TransformerDecoderLayer(**args),
            [tgt, memory], call)


def test_encoder_stack_with_final_norm_matches_pytorch():
    torch = torch_or_skip()
    args = _layer_args(True, "gelu", True)
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(**args), 2, nn.LayerNorm(D))
    theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(**args), 2,
                                         torch.nn.LayerNorm(D), enable_nested_tensor=False)
    _parity(ours, theirs, [_x(2, 4, D)], _Call(mask=CAUSAL4, is_causal=True))


def test_decoder_stack_matches_pytorch():
    torch = torch_or_skip()
    args = _layer_args(False, "relu", False)
    ours = nn.TransformerDecoder(nn.TransformerDecoderLayer(**args), 2, nn.LayerNorm(D))
    theirs = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(**args), 2,
                                         torch.nn.LayerNorm(D))
    _parity(ours, theirs, [_x(4, 2, D), _x(5, 2, D, seed=1)],
            _Call(tgt_mask=CAUSAL4, memory_key_padding_mask=KPM))


@pytest.mark.parametrize("norm_first,batch_first", [(False, False), (True, True)])
def test_transformer_matches_pytorch(norm_first, batch_first):
    torch = torch_or_skip()
    args = dict(d_model=D, nhead=NHEAD, num_encoder_layers=2, num_decoder_layers=2,
                dim_feedforward=FF, norm_first=norm_first, batch_first=batch_first)
    src, tgt = (_x(2, 5, D), _x(2, 4, D, seed=1)) if batch_first else \
        (_x(5, 2, D), _x(4, 2, D, seed=1))
    call = _Call(tgt_mask=nn.Transformer.generate_square_subsequent_mask(4).numpy(),
                 src_key_padding_mask=KPM, memory_key_padding_mask=KPM)
    _parity(nn.Transformer(**args), torch.nn.Transformer(**args), [src, tgt], call)


def test_state_dict_names_and_shapes_match_pytorch():
    torch = torch_or_skip()
    args = dict(d_model=D, nhead=NHEAD, num_encoder_layers=1, num_decoder_layers=2,
                dim_feedforward=FF)
    ours, theirs = nn.Transformer(**args), torch.nn.Transformer(**args)
    assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
            == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
    # copies are independent: changing one layer leaves the others alone
    layers = ours.encoder.layers, ours.decoder.layers
    assert layers[1][0].linear1.weight is not layers[1][1].linear1.weight


SIGNATURE_CLASSES = ["MultiheadAttention", "TransformerEncoderLayer", "TransformerDecoderLayer",
                     "TransformerEncoder", "TransformerDecoder", "Transformer"]


@pytest.mark.parametrize("name", SIGNATURE_CLASSES)
def test_signatures_and_defaults_are_pytorchs(name):
    """Constructor and forward take PyTorch's arguments, in its order, with its defaults (no
    ``device``: everything runs on the CPU; ``activation`` defaults to the name "relu" where
    PyTorch gives the function)."""
    import inspect
    torch = torch_or_skip()

    def params(cls, method):
        return [(p.name, "relu" if getattr(p.default, "__name__", None) == "relu" else p.default)
                for p in inspect.signature(getattr(cls, method)).parameters.values()
                if p.name != "device"]
    ours, theirs = getattr(nn, name), getattr(torch.nn, name)
    for method in ("__init__", "forward"):
        assert params(ours, method) == params(theirs, method), method


def test_generate_square_subsequent_mask_matches_pytorch():
    torch = torch_or_skip()
    ours = nn.Transformer.generate_square_subsequent_mask(5)
    np.testing.assert_array_equal(
        ours.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())
    assert ours.dtype == np.float32


def test_tiny_encoder_layer_gradcheck():
    ag.manual_seed(0)
    for norm_first in (False, True):
        layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, norm_first=norm_first,
                                           batch_first=True).double()
        rng = np.random.default_rng(1)
        for p in layer.parameters():
            p.numpy()[...] = p.numpy() + rng.uniform(-0.3, 0.3, p.shape)
        x = ag.tensor(_x(2, 3, 4), requires_grad=True)
        kpm = np.array([[False, False, True], [False, False, False]])
        wrt = [x] + list(layer.parameters())
        assert ag.gradcheck(lambda *_: layer(x, src_key_padding_mask=kpm, is_causal=True), wrt)


def test_layers_accept_activation_callables_and_reject_unknown_names():
    import dagrad.nn.functional as F
    layer = nn.TransformerEncoderLayer(4, 2, 6, activation=F.gelu, dropout=0.0)
    assert layer(ag.randn(3, 2, 4)).shape == (3, 2, 4)
    layer = nn.TransformerEncoderLayer(4, 2, 6, activation=nn.GELU(), dropout=0.0)
    assert layer(ag.randn(3, 2, 4)).shape == (3, 2, 4)
    with pytest.raises(ValueError, match="'relu' or 'gelu'"):
        nn.TransformerEncoderLayer(4, 2, activation="swish")


def test_transformer_checks_batch_and_feature_sizes():
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(ValueError, match="same batch size"):
        model(ag.randn(5, 2, 8), ag.randn(4, 3, 8))
    with pytest.raises(ValueError, match="d_model=8"):
        model(ag.randn(5, 2, 8), ag.randn(4, 2, 6))


def test_dropout_is_active_in_training_and_off_in_eval():
    ag.manual_seed(0)
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = ag.randn(4, 2, 8)
    assert not np.allclose(layer(x).numpy(), layer(x).numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(x).numpy(), layer(x).numpy())


# ------------------------------------------------------------------------ position encodings
def test_sinusoidal_encoding_follows_the_formula():
    pe = nn.PositionalEncoding(6, dropout=0.0, max_len=10)
    table = pe.pe.numpy()
    pos, i = 7, 2
    angle = pos / 10000 ** (2 * i / 6)
    np.testing.assert_allclose(table[pos, 2 * i], math.sin(angle), rtol=1e-6)
    np.testing.assert_allclose(table[pos, 2 * i + 1], math.cos(angle), rtol=1e-6)
    assert "pe" not in pe.state_dict()                 # a constant: recomputed, not saved
    odd = nn.PositionalEncoding(5, dropout=0.0, max_len=4).pe.numpy()     # odd d_model: last
    np.testing.assert_allclose(odd[3, 4], math.sin(3 / 10000 ** (4 / 5)), rtol=1e-6)  # is sin


def test_positional_encoding_adds_the_table_in_either_layout():
    pe = nn.PositionalEncoding(4, dropout=0.0, max_len=8)
    x = ag.zeros(3, 2, 4)
    np.testing.assert_allclose(pe(x).numpy()[:, 1], pe.pe.numpy()[:3])
    pe_bf = nn.PositionalEncoding(4, dropout=0.0, max_len=8, batch_first=True)
    np.testing.assert_allclose(pe_bf(ag.zeros(2, 3, 4)).numpy()[1], pe.pe.numpy()[:3])
    assert pe(ag.zeros(3, 2, 4, dtype=np.float64)).dtype == np.float64
    with pytest.raises(ValueError, match="max_len=8"):
        pe(ag.zeros(9, 1, 4))


def test_learned_positions_get_gradients_only_for_used_positions():
    emb = nn.LearnedPositionalEmbedding(6, 4, batch_first=True)
    x = ag.randn(2, 3, 4)
    emb(x).sum().backward()
    g = emb.embedding.weight.grad.numpy()
    np.testing.assert_allclose(g[:3], 2.0)
    np.testing.assert_allclose(g[3:], 0.0)
    assert list(emb.state_dict()) == ["embedding.weight"]


def test_token_embedding_is_scaled_by_sqrt_d_model():
    tok = nn.TokenEmbedding(10, 16)
    ids = np.array([[1, 2, 3]])
    np.testing.assert_allclose(tok(ids).numpy(), tok.embedding.weight.numpy()[ids] * 4.0, rtol=1e-6)
