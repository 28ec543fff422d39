"""dagrad.onnx: export a model's forward pass as an ONNX graph that ONNX Runtime (and any other
ONNX consumer) runs, with PyTorch's ``torch.onnx.export`` signature::

    from dagrad import onnx
    onnx.export(model.eval(), x, "model.onnx", input_names=["x"], output_names=["y"],
                dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})

The ``onnx`` package (the test extra) is imported only when ``export`` runs.
"""
from .export import UnsupportedOperationError, export
from .ops import EMITTERS

__all__ = ["export", "UnsupportedOperationError", "EMITTERS"]
