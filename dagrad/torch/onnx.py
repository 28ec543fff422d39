"""``torch.onnx`` in dagrad: ``export`` is ``dagrad.onnx.export``, taking PyTorch's keywords."""
from dagrad.onnx import export as _export

from ._missing import forward_to, not_in_dagrad

# Keywords that change how PyTorch builds or reports its file, not what the model computes.
_HOW_TORCH_EXPORTS = {"verbose", "dynamo", "external_data", "optimize", "do_constant_folding",
                      "keep_initializers_as_inputs", "report", "verify", "profile",
                      "dump_exported_program", "artifacts_dir", "autograd_inlining"}


def export(model, args=(), f=None, *, input_names=None, output_names=None, opset_version=None,
           dynamic_axes=None, export_params=True, **options):
    """Export ``model`` run on ``args`` to the ONNX file ``f`` with ``dagrad.onnx.export`` (the
    module is traced in evaluation mode, PyTorch's default ``training=TrainingMode.EVAL``).
    PyTorch's keywords about how it builds its file (``dynamo``, ``do_constant_folding``,
    ``verbose``, ...) are accepted and have nothing to change here."""
    unknown = sorted(set(options) - _HOW_TORCH_EXPORTS)
    if unknown or not export_params or f is None:
        what = ", ".join(unknown) or ("f=None" if f is None else "export_params=False")
        raise not_in_dagrad(f"torch.onnx.export({what})",
                            "pass the file path f, and input_names, output_names, "
                            "dynamic_axes and opset_version as needed")
    return _export(model, args, f, input_names=input_names, output_names=output_names,
                   dynamic_axes=dynamic_axes, opset_version=opset_version or 17)


__getattr__ = forward_to("torch.onnx")
