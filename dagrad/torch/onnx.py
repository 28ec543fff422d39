"""``torch.onnx`` in dagrad: ``export`` is ``dagrad.onnx.export`` when that package is present;
otherwise it raises one error saying ONNX export is not available yet."""
import importlib.util

from ._missing import forward_to, not_in_dagrad


def export(model, args, f, *more, **kwargs):
    """Export ``model`` run on ``args`` to the ONNX file ``f`` (``dagrad.onnx.export``)."""
    if importlib.util.find_spec("dagrad.onnx") is None:
        raise not_in_dagrad("torch.onnx.export", "ONNX export is not available yet in dagrad: "
                            "save the weights with torch.save(model.state_dict(), path) "
                            "and export from PyTorch")
    from dagrad.onnx import export as dagrad_export
    return dagrad_export(model, args, f, *more, **kwargs)


__getattr__ = forward_to("torch.onnx")
