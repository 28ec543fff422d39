"""dagrad.onnx.export: the traced graph, checked by onnx.checker, run by ONNX Runtime, gives
dagrad's outputs (within 1e-5) for every model family, with a dynamic batch where asked."""
import sys

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn
from dagrad.autograd.function import Function

onnx = pytest.importorskip("onnx", reason="the interchange extra: pip install -e "
                           "'.[interchange]' in the checkout")
ort = pytest.importorskip("onnxruntime", reason="the interchange extra: pip install -e "
                          "'.[interchange]' in the checkout")
from dagrad import onnx as donnx  # noqa: E402

VOCAB = 20


def _tokens(batch, seed=0):
    return ag.tensor(np.random.default_rng(seed).integers(0, VOCAB, size=(batch, 7)))


def _floats(*shape, seed=0):
    return ag.tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def _batch_of(*shape):
    """An input maker: (batch, seed) -> float32 inputs of shape (batch, *shape)."""
    return lambda n, seed=0: _floats(n, *shape, seed=seed)


def _models():
    """name -> (model or function, input maker(batch)); every model in eval mode."""
    ag.manual_seed(0)
    M = nn.models
    vae = M.VAE(64, 32, 8).eval()
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 4, 32, batch_first=True), 2)
    vgg = M.VGG()
    vgg(_floats(4, 1, 8, 8))                 # move the batch-norm statistics off their defaults
    return {
        "mlp": (M.MLP([64, 32, 10]), _batch_of(64)),
        "lenet": (M.LeNet(input_size=28), _batch_of(1, 28, 28)),
        "vgg_digits": (vgg, _batch_of(1, 8, 8)),
        "lstm_lm": (M.CharLM(VOCAB, 8, 16), _tokens),
        "transformer_encoder": (encoder, _batch_of(5, 16)),
        "gpt": (M.GPT(VOCAB, 8, n_layer=2, n_head=2, n_embd=16), _tokens),
        "autoencoder": (M.Autoencoder(64, (32,), 8), _batch_of(64)),
        "conv_autoencoder": (M.ConvAutoencoder(), _batch_of(1, 8, 8)),
        "vae_decoder": (vae.decode, _batch_of(8)),
    }


MODELS = _models()


def _eval(model):
    if hasattr(model, "eval"):
        model.eval()
    return model


def _run(path, **feeds):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    return session.run(None, {k: np.asarray(v) for k, v in feeds.items()})


def _reference(model, x):
    with ag.no_grad():
        out = model(x)
    return out[0].numpy() if isinstance(out, tuple) else out.numpy()


@pytest.mark.parametrize("name", sorted(MODELS))
def test_onnx_runtime_matches_dagrad(tmp_path, name):
    model, make = MODELS[name]
    model = _eval(model)
    x = make(3)
    path = tmp_path / f"{name}.onnx"
    donnx.export(model, (x,), path, input_names=["x"], output_names=["y"])
    onnx.checker.check_model(onnx.load(path), full_check=True)
    y = _run(path, x=x.numpy())[0]
    np.testing.assert_allclose(y, _reference(model, x), rtol=0, atol=1e-5)


@pytest.mark.parametrize("name", sorted(MODELS))
def test_a_dynamic_batch_runs_other_batch_sizes(tmp_path, name):
    model, make = MODELS[name]
    model = _eval(model)
    path = tmp_path / f"{name}.onnx"
    donnx.export(model, make(3), path, input_names=["x"], output_names=["y"],
                 dynamic_axes={"x": {0: "batch"}, "y": [0]})
    declared = onnx.load(path).graph.input[0].type.tensor_type.shape.dim[0]
    assert declared.dim_param == "batch"
    for batch in (1, 5):
        x = make(batch, seed=batch)
        y = _run(path, x=x.numpy())[0]
        assert y.shape[0] == batch
        np.testing.assert_allclose(y, _reference(model, x), rtol=0, atol=1e-5)


def test_outputs_that_follow_the_batch_are_declared_unknown(tmp_path):
    model, make = MODELS["lstm_lm"]
    exported = donnx.export(_eval(model), make(3), tmp_path / "lm.onnx", input_names=["x"],
                            output_names=["logits"], dynamic_axes={"x": [0], "logits": [0]})
    h = exported.graph.output[1].type.tensor_type.shape.dim      # final h: (layers, N, H)
    assert (h[0].dim_value, h[1].HasField("dim_value"), h[2].dim_value) == (1, False, 16)
    logits, h, c = _run(tmp_path / "lm.onnx", x=make(5).numpy())
    with ag.no_grad():
        expected_logits, (expected_h, expected_c) = model(make(5))
    assert h.shape == c.shape == (1, 5, 16)
    np.testing.assert_allclose(h, expected_h.numpy(), rtol=0, atol=1e-5)
    np.testing.assert_allclose(c, expected_c.numpy(), rtol=0, atol=1e-5)


def test_parameters_are_initializers_named_as_in_the_state_dict(tmp_path):
    model, make = MODELS["gpt"]
    model.train()
    exported = donnx.export(model, make(2), tmp_path / "gpt.onnx")
    assert model.training                     # traced in eval mode, then put back
    names = {i.name for i in exported.graph.initializer}
    assert {"wte.weight", "wpe.weight", "blocks.layers.1.self_attn.in_proj_weight",
            "ln_f.weight"} <= names
    weights = {i.name: onnx.numpy_helper.to_array(i) for i in exported.graph.initializer}
    np.testing.assert_array_equal(weights["wte.weight"], model.wte.weight.numpy())
    assert [i.name for i in exported.graph.input] == ["input_0"]
    assert exported.graph.input[0].type.tensor_type.elem_type == onnx.TensorProto.INT64
    assert not any(p.requires_grad is False for p in model.parameters())   # flags restored


@pytest.mark.parametrize("opset", [13, 17, 18, 20])
def test_other_opsets(tmp_path, opset):
    model, make = MODELS["transformer_encoder"]
    model = _eval(model)
    x = make(2)
    exported = donnx.export(model, x, tmp_path / "m.onnx", opset_version=opset)
    assert exported.opset_import[0].version == opset
    ops = {n.op_type for n in exported.graph.node}
    assert ("LayerNormalization" in ops) == (opset >= 17)
    np.testing.assert_allclose(_run(tmp_path / "m.onnx", input_0=x.numpy())[0],
                               _reference(model, x), rtol=0, atol=1e-5)


class Wobble(Function):
    """y = x + sin(x), an operation written by a user, which the exporter does not know."""

    def forward(ctx, x):
        return x + np.sin(x)

    def backward(ctx, grad):
        return grad


class WobbleLayer(nn.Module):
    def forward(self, x):
        return Wobble.apply(x)


def test_an_unmapped_operation_is_named_with_its_module(tmp_path):
    model = nn.Sequential(nn.Linear(4, 4), nn.Sequential(nn.ReLU(), WobbleLayer()))
    with pytest.raises(donnx.UnsupportedOperationError,
                       match=r"operation 'Wobble' in module '1\.1' has no ONNX mapping"):
        donnx.export(model, ag.randn(2, 4), tmp_path / "m.onnx")
    assert not (tmp_path / "m.onnx").exists()


def test_an_unmapped_index_form_is_named_with_its_module(tmp_path):
    class Positive(nn.Module):
        def forward(self, x):
            return x[x.numpy() > 0]

    with pytest.raises(donnx.UnsupportedOperationError,
                       match=r"'GetItem' in module 'pick'.*boolean masks"):
        donnx.export(_Holder(Positive()), ag.randn(2, 4), tmp_path / "m.onnx")


class _Holder(nn.Module):
    def __init__(self, pick):
        super().__init__()
        self.pick = pick

    def forward(self, x):
        return self.pick(x)


def _many_ops(x, y):
    """A function through most mapped operations (x (2, 3, 4, 5), y (2, 3, 4, 5))."""
    import dagrad.nn.functional as F
    a = F.softplus(x, beta=2.0, threshold=1.0) + F.gelu(y, approximate="tanh")
    a = a + F.leaky_relu(x, 0.2) * F.elu(y) - ag.clamp(x, -0.5, 0.5) / (y.abs() + 1.0)
    a = a + ag.where(x.numpy() > 0, x, y) + ag.maximum(x, y) - ag.minimum(x, y) ** 2
    a = a + (x.exp() + 1.0).log()
    a = a + ag.sin(x) * ag.cos(y) + (y * y + 1.0).sqrt() + ag.sigmoid(x) * ag.tanh(y)
    b = F.pad(a, (1, 2), value=0.5).flip(-1)[..., ::2][:, None, 1, -2:]
    c = ag.cat([a.sum(dim=1, keepdim=True),
                a.mean(dim=(2, 3), keepdim=True).expand(2, 3, 4, 5)], dim=1)
    d = ag.stack([a.amax(dim=-1), a.amin(dim=-1), a.logsumexp(dim=-1)], dim=0)
    e = F.softmax(a, dim=1) + F.log_softmax(a, dim=-1) + a.transpose(2, 3).transpose(2, 3)
    f = F.avg_pool2d(e, 2) + F.max_pool2d(e, 2)
    g = x.max(dim=0)[0] + a.var(dim=0) + a.std(dim=0) + (-x).prod(dim=0) + ag.erf(x.clone())[0]
    g = g + ag.clamp(x, min=-y.abs(), max=y.abs())[1] + x.double().float()[0]
    return (b.sum() + c.sum() + d.sum() + f.sum() + g.sum()).reshape(1) + a.repeat(2, 1, 1, 1, 2)


def test_a_function_through_many_operations(tmp_path):
    x, y = _floats(2, 3, 4, 5, seed=1), _floats(2, 3, 4, 5, seed=2)
    exported = donnx.export(_many_ops, (x, y), tmp_path / "f.onnx", input_names=["x", "y"])
    assert len({n.op_type for n in exported.graph.node}) > 25
    out = _run(tmp_path / "f.onnx", x=x.numpy(), y=y.numpy())[0]
    with ag.no_grad():
        expected = _many_ops(x, y).numpy()
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("layer, shape", [
    (lambda: nn.GRU(6, 5, num_layers=2, batch_first=True), (3, 4, 6)),
    (lambda: nn.LSTM(6, 5, bidirectional=True), (4, 3, 6)),
    (lambda: nn.RNN(6, 5, nonlinearity="relu", batch_first=True), (3, 4, 6)),
    (lambda: nn.Sequential(nn.Conv1d(3, 4, 3, padding=1, groups=1), nn.BatchNorm1d(4),
                           nn.ELU()), (2, 3, 9)),
    (lambda: nn.Sequential(nn.Conv2d(4, 8, 3, stride=2, padding=1, dilation=1, groups=2),
                           nn.ConvTranspose2d(8, 3, 3, stride=2, padding=1, output_padding=1),
                           nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.LayerNorm(12)),
     (2, 4, 9, 9)),
    (lambda: nn.MultiheadAttention(8, 2), (5, 2, 8)),
])
def test_layers(tmp_path, layer, shape):
    ag.manual_seed(0)
    module = layer().eval()
    x = _floats(*shape, seed=3)
    fn = (lambda t: module(t, t, t)[0]) if isinstance(module, nn.MultiheadAttention) else module
    donnx.export(fn, x, tmp_path / "m.onnx", input_names=["x"])
    outputs = _run(tmp_path / "m.onnx", x=x.numpy())
    with ag.no_grad():
        expected = fn(x)
    expected = expected if isinstance(expected, tuple) else (expected,)
    flat = []
    for e in expected:
        flat += list(e) if isinstance(e, tuple) else [e]
    for got, want in zip(outputs, flat):
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-5, atol=1e-5)


def test_the_missing_extra_is_named(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "onnx", None)
    with pytest.raises(ImportError, match=r"\.\[interchange\]"):
        donnx.export(nn.Linear(2, 2), ag.randn(1, 2), tmp_path / "m.onnx")


def test_a_module_is_traced_in_eval_mode_and_put_back(tmp_path):
    model = nn.Sequential(nn.Linear(4, 8), nn.Dropout(0.5), nn.BatchNorm1d(8)).train()
    model(_floats(6, 4))                       # running statistics away from their defaults
    x = _floats(3, 4, seed=4)
    donnx.export(model, x, tmp_path / "m.onnx", input_names=["x"])
    assert model.training
    model.eval()
    np.testing.assert_allclose(_run(tmp_path / "m.onnx", x=x.numpy())[0], _reference(model, x),
                               rtol=0, atol=1e-5)
