"""PyTorch programs that save weights as safetensors or export ONNX run with
``from dagrad import torch``: torch.save/torch.load choose the format by the path's suffix, and
torch.onnx.export is dagrad.onnx.export."""
import numpy as np
import pytest

from dagrad import torch

safetensors_numpy = pytest.importorskip("safetensors.numpy", reason="the interchange extra")
ort = pytest.importorskip("onnxruntime", reason="the interchange extra")


def _model():
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2))


def test_save_and_load_choose_safetensors_by_suffix(tmp_path):
    model = _model()
    torch.save(model.state_dict(), tmp_path / "model.safetensors")
    plain = safetensors_numpy.load_file(tmp_path / "model.safetensors")   # the real format
    np.testing.assert_array_equal(plain["0.weight"], model[0].weight.numpy())
    other = _model()
    torch.nn.init.zeros_(other[0].weight)
    other.load_state_dict(torch.load(tmp_path / "model.safetensors", weights_only=True))
    np.testing.assert_array_equal(other[0].weight.numpy(), model[0].weight.numpy())
    torch.save({"model": model.state_dict(), "epoch": 3}, tmp_path / "checkpoint.pt")
    assert torch.load(tmp_path / "checkpoint.pt")["epoch"] == 3          # other suffixes: .npz
    with pytest.raises(TypeError, match="holds a state dict"):
        torch.save([model.state_dict()], tmp_path / "list.safetensors")


def test_torch_onnx_export_runs_in_onnx_runtime(tmp_path):
    model = _model()
    x = torch.randn(3, 4)
    torch.onnx.export(model, (x,), str(tmp_path / "m.onnx"), input_names=["x"],
                      output_names=["y"], dynamic_axes={"x": {0: "batch"}}, dynamo=False,
                      do_constant_folding=True)
    session = ort.InferenceSession(str(tmp_path / "m.onnx"), providers=["CPUExecutionProvider"])
    batch = torch.randn(5, 4)
    with torch.no_grad():
        expected = model(batch).numpy()
    np.testing.assert_allclose(session.run(None, {"x": batch.numpy()})[0], expected, atol=1e-6)
    with pytest.raises(NotImplementedError, match="custom_opsets"):
        torch.onnx.export(model, (x,), str(tmp_path / "n.onnx"), custom_opsets={"a": 1})
