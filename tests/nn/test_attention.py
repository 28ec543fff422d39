"""Scaled dot-product attention and MultiheadAttention: PyTorch parity (outputs, returned
weights and every gradient, float64), gradcheck, masks, errors, and retrieving the weights."""
import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
import dagrad.nn.functional as F
from tests.helpers import (calling, module_parity, random_inputs, torch_or_skip,
                           torch_parity)


def _x(*shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _bool(shape, seed, p=0.3):
    """A random boolean mask with at least one False per row (no fully blocked query)."""
    m = np.random.default_rng(seed).random(shape) < p
    m[..., 0] = False
    return m


# --------------------------------------------------------------------------- functional form
def _sdpa(lib, **kwargs):
    """F.scaled_dot_product_attention of ``lib`` (autograd's nn or torch) with fixed kwargs;
    array-valued masks become that library's tensors."""
    def fn(q, k, v, *extra):
        kw = dict(kwargs)
        if "attn_mask" in kw and isinstance(kw["attn_mask"], np.ndarray):
            kw["attn_mask"] = lib.tensor(kw["attn_mask"])
        if extra:
            kw["attn_mask"] = extra[0]
        f = F if lib is ag else lib.nn.functional
        return f.scaled_dot_product_attention(q, k, v, **kw)
    return fn


SDPA_CASES = [
    ("plain", [(2, 3, 4), (2, 5, 4), (2, 5, 3)], {}),
    ("heads", [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 6)], {}),
    ("causal", [(2, 4, 3), (2, 4, 3), (2, 4, 2)], {"is_causal": True}),
    ("causal-rect", [(1, 3, 4), (1, 5, 4), (1, 5, 2)], {"is_causal": True}),
    ("bool-mask", [(2, 3, 4), (2, 5, 4), (2, 5, 3)], {"attn_mask": _bool((3, 5), 1)}),
    ("bool-mask-batched", [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)],
     {"attn_mask": _bool((2, 1, 3, 5), 2)}),
    ("additive-mask", [(2, 3, 4), (2, 5, 4), (2, 5, 3)], {"attn_mask": _x(3, 5, seed=3)}),
    ("additive-mask-with-inf", [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)],
     {"attn_mask": np.where(_bool((2, 1, 3, 5), 14), -np.inf, _x(2, 1, 3, 5, seed=15))}),
    ("scale", [(2, 3, 4), (2, 5, 4), (2, 5, 3)], {"scale": 0.3}),
    ("broadcast-batch", [(2, 2, 3, 4), (1, 2, 5, 4), (1, 2, 5, 3)], {}),
]


@pytest.mark.parametrize("name,shapes,kwargs", SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
def test_sdpa_matches_pytorch(name, shapes, kwargs):
    torch = torch_or_skip()
    torch_parity(_sdpa(ag, **kwargs), _sdpa(torch, **kwargs), random_inputs(shapes))


def test_sdpa_additive_mask_gets_its_gradient():
    torch = torch_or_skip()
    arrays = random_inputs([(2, 3, 4), (2, 5, 4), (2, 5, 3), (3, 5)])
    torch_parity(_sdpa(ag), _sdpa(torch), arrays)


@pytest.mark.parametrize("name,shapes,kwargs", SDPA_CASES[:6], ids=[c[0] for c in SDPA_CASES[:6]])
def test_sdpa_gradcheck(name, shapes, kwargs):
    xs = [ag.tensor(a, requires_grad=True) for a in random_inputs(shapes)]
    assert ag.gradcheck(_sdpa(ag, **kwargs), xs)


def test_sdpa_second_derivatives_pass_gradcheck():
    """create_graph=True through the fused attention probabilities (Hessian-vector products,
    gradient penalties): gradcheck the gradient itself."""
    mask = np.where(_bool((3, 5), 12), -np.inf, 0.0)
    q, k, v = (ag.tensor(a, requires_grad=True)
               for a in random_inputs([(2, 3, 4), (2, 5, 4), (2, 5, 3)]))

    def grad_norm(q, k, v):
        out = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        gq, gk = ag.grad((out * out).sum(), [q, k], create_graph=True)
        return (gq * gq).sum() + (gk * v[..., :1]).sum()
    assert ag.gradcheck(grad_norm, [q, k, v])


def test_sdpa_fully_blocked_query_gives_zeros_as_pytorch():
    torch = torch_or_skip()
    mask = np.ones((3, 5), bool)
    mask[1] = False                       # query 1 may attend to nothing
    arrays = random_inputs([(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    out = _sdpa(ag, attn_mask=mask)(*[ag.tensor(a) for a in arrays])
    assert np.all(out.numpy()[:, 1] == 0) and np.all(np.isfinite(out.numpy()))
    torch_parity(_sdpa(ag, attn_mask=mask), _sdpa(torch, attn_mask=mask), arrays)


def test_sdpa_signature_is_pytorchs():
    """PyTorch's (a builtin, so written out here), without its grouped-query option."""
    import inspect
    params = inspect.signature(F.scaled_dot_product_attention).parameters.values()
    assert [(p.name, p.default) for p in params] == [
        ("query", inspect.Parameter.empty), ("key", inspect.Parameter.empty),
        ("value", inspect.Parameter.empty), ("attn_mask", None), ("dropout_p", 0.0),
        ("is_causal", False), ("scale", None)]


def test_sdpa_keeps_float32():
    q = ag.randn(2, 3, 4)
    out = F.scaled_dot_product_attention(q, q, q, attn_mask=np.zeros((3, 3)), is_causal=False)
    assert out.dtype == np.float32
    assert F.scaled_dot_product_attention(q, q, q, is_causal=True).dtype == np.float32


def test_sdpa_dropout_drops_weights_in_training_only():
    ag.manual_seed(0)
    q, k, v = (ag.randn(2, 4, 3) for _ in range(3))
    plain = F.scaled_dot_product_attention(q, k, v).numpy()
    dropped = F.scaled_dot_product_attention(q, k, v, dropout_p=0.5).numpy()
    assert not np.allclose(plain, dropped)


def test_sdpa_rejects_mask_and_is_causal_together_and_bad_shapes():
    q = ag.randn(2, 3, 4)
    with pytest.raises(ValueError, match="either attn_mask or is_causal"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=np.ones((3, 3), bool), is_causal=True)
    with pytest.raises(ValueError, match="same last dimension"):
        F.scaled_dot_product_attention(q, ag.randn(2, 3, 5), q)
    with pytest.raises(TypeError, match="boolean or floating-point mask"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=np.ones((3, 3), np.int64))


# ------------------------------------------------------------------------- MultiheadAttention
class _Call:
    """Calls a MultiheadAttention (of either library) and flattens (output, weights) into one
    vector, so one comparison covers the output, the weights and the gradients through both."""

    def __init__(self, mask_names=(), shared=None, **kwargs):
        self.mask_names, self.shared, self.kwargs = mask_names, shared, kwargs

    def __call__(self, lib, mha, *xs):
        if self.shared == "qkv":           # one tensor as query, key and value
            (q, *masks), k, v = xs, xs[0], xs[0]
        elif self.shared == "kv":          # one tensor as key and value
            (q, k, *masks), v = xs, xs[1]
        else:
            q, k, v, *masks = xs
        out, w = mha(q, k, v, **dict(zip(self.mask_names, masks)), **self.kwargs)
        parts = [out.reshape(-1)] + ([] if w is None else [w.reshape(-1)])
        return lib.cat(parts)


def _mha_parity(kwargs, arrays, call, perturb=True):
    torch = torch_or_skip()
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(**kwargs)
    if perturb:                 # biases start at zero: move them so they are really tested
        with torch.no_grad():
            for p in theirs.parameters():
                p.add_(torch.empty_like(p).uniform_(-0.3, 0.3))
    ours = nn.MultiheadAttention(**kwargs)
    module_parity(calling(nn.Module, ag, ours, call), calling(torch.nn.Module, torch, theirs, call),
                  arrays)


E, H = 6, 2
SEQ = dict(embed_dim=E, num_heads=H)
BF = dict(embed_dim=E, num_heads=H, batch_first=True)
KPM = _bool((2, 5), 4)
MHA_CASES = [
    ("self", SEQ, [_x(4, 2, E), None, None], _Call()),
    ("self-one-tensor", SEQ, [_x(4, 2, E), _bool((4, 4), 13)], _Call(["attn_mask"], "qkv")),
    ("self-one-tensor-batch-first", BF, [_x(2, 4, E)], _Call(shared="qkv")),
    ("self-one-tensor-unbatched", BF, [_x(4, E)], _Call(shared="qkv")),
    ("cross-key-is-value", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), KPM],
     _Call(["key_padding_mask"], "kv")),
    ("cross", SEQ, [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2)], _Call()),
    ("cross-batch-first", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), _x(2, 5, E, seed=2)],
     _Call()),
    ("kdim-vdim", dict(SEQ, kdim=3, vdim=5),
     [_x(3, 2, E), _x(5, 2, 3, seed=1), _x(5, 2, 5, seed=2)], _Call()),
    ("key-padding-mask", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), _x(2, 5, E, seed=2), KPM],
     _Call(["key_padding_mask"])),
    ("float-key-padding-mask", SEQ,
     [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2), _x(2, 5, seed=5)],
     _Call(["key_padding_mask"])),
    ("attn-mask-bool", SEQ, [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2),
                             _bool((3, 5), 6)], _Call(["attn_mask"])),
    ("attn-mask-3d", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), _x(2, 5, E, seed=2),
                          _bool((2 * H, 3, 5), 7)], _Call(["attn_mask"])),
    ("attn-mask-float", SEQ, [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2),
                              _x(3, 5, seed=8)], _Call(["attn_mask"])),
    ("both-masks", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), _x(2, 5, E, seed=2),
                        _bool((3, 5), 9), KPM], _Call(["attn_mask", "key_padding_mask"])),
    ("causal-hint", BF, [_x(2, 4, E), _x(2, 4, E), _x(2, 4, E),
                         np.triu(np.ones((4, 4), bool), 1)],
     _Call(["attn_mask"], is_causal=True)),
    ("per-head-weights", SEQ, [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2)],
     _Call(average_attn_weights=False)),
    ("no-weights", BF, [_x(2, 3, E), _x(2, 5, E, seed=1), _x(2, 5, E, seed=2), KPM],
     _Call(["key_padding_mask"], need_weights=False)),
    ("no-bias", dict(SEQ, bias=False), [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2)],
     _Call()),
    ("bias-kv-zero-attn", dict(SEQ, add_bias_kv=True, add_zero_attn=True),
     [_x(3, 2, E), _x(5, 2, E, seed=1), _x(5, 2, E, seed=2), _bool((3, 5), 10), KPM],
     _Call(["attn_mask", "key_padding_mask"])),
    ("unbatched", SEQ, [_x(3, E), _x(5, E, seed=1), _x(5, E, seed=2), _bool((5,), 11)],
     _Call(["key_padding_mask"])),
    ("unbatched-batch-first-per-head", BF, [_x(3, E), _x(5, E, seed=1), _x(5, E, seed=2)],
     _Call(average_attn_weights=False)),
]


@pytest.mark.parametrize("name,kwargs,arrays,call", MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention_matches_pytorch(name, kwargs, arrays, call):
    q = arrays[0]
    arrays = [q if a is None else a for a in arrays]      # None: self-attention on q
    _mha_parity(kwargs, arrays, call)


def test_multihead_attention_initialisation_matches_pytorch_layout():
    torch = torch_or_skip()
    ours, theirs = nn.MultiheadAttention(8, 2, add_bias_kv=True), torch.nn.MultiheadAttention(
        8, 2, add_bias_kv=True)
    assert ({k: tuple(v.shape) for k, v in ours.state_dict().items()}
            == {k: tuple(v.shape) for k, v in theirs.state_dict().items()})
    assert np.all(ours.in_proj_bias.numpy() == 0) and np.all(ours.out_proj.bias.numpy() == 0)
    bound = np.sqrt(6 / (8 + 24))           # Xavier-uniform over the packed (24, 8) matrix
    assert np.abs(ours.in_proj_weight.numpy()).max() <= bound
    separate = nn.MultiheadAttention(8, 2, kdim=3, vdim=5)
    assert separate.in_proj_weight is None and separate.k_proj_weight.shape == (8, 3)


def test_multihead_attention_gradcheck():
    ag.manual_seed(0)
    mha = nn.MultiheadAttention(4, 2, kdim=3, add_bias_kv=True).double()
    q = ag.tensor(_x(3, 2, 4), requires_grad=True)
    k = ag.tensor(_x(5, 2, 3, seed=1), requires_grad=True)
    v = ag.tensor(_x(5, 2, 4, seed=2), requires_grad=True)
    kpm = _bool((2, 5), 3)
    wrt = [q, k, v] + list(mha.parameters())
    assert ag.gradcheck(lambda *_: mha(q, k, v, key_padding_mask=kpm)[0], wrt)
    assert ag.gradcheck(lambda *_: mha(q, k, v, attn_mask=_bool((3, 5), 4))[1], [q, k])


def test_is_causal_without_mask_builds_the_causal_mask():
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = ag.randn(2, 5, 4)
    causal = nn.Transformer.generate_square_subsequent_mask(5)
    a, wa = mha(x, x, x, is_causal=True)
    b, wb = mha(x, x, x, attn_mask=causal)
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert np.all(np.triu(wa.numpy()[0], 1) == 0)


def test_fully_blocked_query_gets_zero_weights_not_nan():
    mha = nn.MultiheadAttention(4, 2, batch_first=True)
    x = ag.randn(1, 3, 4)
    out, w = mha(x, x, x, key_padding_mask=np.ones((1, 3), bool))
    assert np.all(np.isfinite(out.numpy())) and np.all(w.numpy() == 0)


def test_dropout_on_weights_only_in_training_mode():
    ag.manual_seed(1)
    mha = nn.MultiheadAttention(4, 2, dropout=0.5, batch_first=True)
    x = ag.randn(2, 5, 4)
    train_out = mha(x, x, x)[0].numpy()
    mha.eval()
    a, b = mha(x, x, x)[0].numpy(), mha(x, x, x)[0].numpy()
    np.testing.assert_array_equal(a, b)
    assert not np.allclose(a, train_out)


def test_returned_weights_in_training_are_the_dropped_out_ones_as_pytorch():
    """With dropout in training, the weights returned are those that multiplied the values:
    each is 0 or the evaluation-mode probability scaled by 1/(1 - p); the stored maps stay
    the probabilities before dropout."""
    ag.manual_seed(2)
    p = 0.5
    mha = nn.MultiheadAttention(8, 2, dropout=p, batch_first=True).double()
    x = ag.tensor(_x(3, 6, 8))
    mha.eval()
    _, probs = mha(x, x, x, average_attn_weights=False)
    mha.train()
    mha.store_attn_weights = True
    out, w = mha(x, x, x, average_attn_weights=False)
    kept = w.numpy() != 0
    assert 0.3 < kept.mean() < 0.7
    np.testing.assert_allclose(w.numpy()[kept], probs.numpy()[kept] / (1 - p), rtol=1e-12)
    np.testing.assert_allclose(mha.last_attn_weights.numpy(), probs.numpy(), rtol=1e-12)
    # the output is computed from exactly these weights
    _, k, v = mha._project(x, x, x, "qkv")
    heads = w @ mha._split_heads(v, 3)
    np.testing.assert_allclose(out.numpy(), mha.out_proj(mha._merge_heads(heads, 3, 6)).numpy(),
                               rtol=1e-12)


def test_multihead_attention_errors_name_the_shapes():
    with pytest.raises(ValueError, match="multiple of num_heads"):
        nn.MultiheadAttention(6, 4)
    mha = nn.MultiheadAttention(4, 2)
    x = ag.randn(3, 2, 4)
    with pytest.raises(ValueError, match="attn_mask must have shape"):
        mha(x, x, x, attn_mask=np.zeros((3, 4), bool))
    with pytest.raises(ValueError, match=r"key_padding_mask must have shape \(N, S\)"):
        mha(x, x, x, key_padding_mask=np.zeros((3, 3), bool))
    with pytest.raises(ValueError, match="needs batch size 2"):
        mha(x, ag.randn(3, 5, 4), ag.randn(3, 5, 4))
    with pytest.raises(ValueError, match="3-D"):
        mha(x, x[0], x)


def test_attention_weights_are_kept_per_layer_and_head():
    ag.manual_seed(0)
    model = nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, batch_first=True)
    src, tgt = ag.randn(3, 5, 8), ag.randn(3, 4, 8)
    with nn.keep_attention_weights(model) as maps:
        out = model(src, tgt, tgt_mask=model.generate_square_subsequent_mask(4))
    assert sorted(maps) == ["decoder.layers.0.multihead_attn", "decoder.layers.0.self_attn",
                            "decoder.layers.1.multihead_attn", "decoder.layers.1.self_attn",
                            "encoder.layers.0.self_attn"]
    assert maps["encoder.layers.0.self_attn"].shape == (3, 2, 5, 5)
    assert maps["decoder.layers.1.multihead_attn"].shape == (3, 2, 4, 5)
    self_attn = maps["decoder.layers.0.self_attn"]
    np.testing.assert_allclose(self_attn.sum(-1), 1, rtol=1e-5)
    assert np.all(np.triu(self_attn[0, 0], 1) == 0)           # causal: no weight on the future
    assert out.shape == (3, 4, 8)
    layer = model.encoder.layers[0].self_attn
    assert not layer.store_attn_weights                       # the flag is restored
    x = ag.randn(3, 5, 8)
    _, w = layer(x, x, x, average_attn_weights=False)
    layer.store_attn_weights = True
    layer(x, x, x)
    np.testing.assert_allclose(layer.last_attn_weights.numpy(), w.numpy())
    assert not layer.last_attn_weights.requires_grad
