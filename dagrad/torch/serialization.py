"""``torch.save`` / ``torch.load`` in dagrad's safe format (``nn.save`` / ``nn.load``).

State dicts, optimizer state, nested checkpoints (dicts, lists, tuples of tensors, numbers,
strings) and whole modules of dagrad's own classes are written as an ``.npz`` file with a JSON
manifest; loading never unpickles, so it never runs code from the file. The file is not
PyTorch's format: PyTorch reads dagrad's weights from safetensors or NumPy instead.
"""
from dagrad.autograd.device import check_device
from dagrad.nn.serialization import load as _load
from dagrad.nn.serialization import save as _save


def save(obj, f, pickle_module=None, pickle_protocol=None, **kwargs):
    """Save ``obj`` (state dict, checkpoint, or whole dagrad module) to the path ``f``."""
    if pickle_module is not None:
        raise TypeError("torch.save: dagrad never pickles; drop pickle_module")
    _save(obj, f)


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **kwargs):
    """Load what ``save`` wrote. ``map_location`` may name the CPU (a GPU is refused);
    ``weights_only`` is accepted (the format holds only data anyway)."""
    if not callable(map_location) and not isinstance(map_location, dict):
        check_device(map_location, "torch.load(map_location=...)")
    if pickle_module is not None:
        raise TypeError("torch.load: dagrad never unpickles; drop pickle_module")
    return _load(f)
