"""The save and load names ``nn`` had before its one door, each now a call of it. ``nn`` still
answers to them (with a DeprecationWarning naming the call that replaces it), so programs
written for them keep working."""
import warnings

from . import door

REPLACEMENTS = {
    "save_pt": "nn.save(obj, path, format='pt') (or a path ending in .pt)",
    "load_pt": "nn.load(path), which reads every format",
    "save_safetensors": "nn.save(state_dict, path, format='safetensors', metadata=...) (or a "
                        "path ending in .safetensors)",
    "load_safetensors": "nn.load(path), which reads every format",
    "safetensors_metadata": "nn.formats.safetensors_metadata(path)",
}


def save_pt(obj, f):
    door.write(obj, f, "pt", None, "save_pt", "pt")


def load_pt(f, map_location=None, weights_only=True):
    return door.read(f, map_location, weights_only, "load_pt", "pt")


def save_safetensors(state_dict, path, metadata=None):
    door.write(state_dict, path, "safetensors", metadata, "save_safetensors", "safetensors")


def load_safetensors(path):
    return door.read(path, None, True, "load_safetensors", "safetensors")


def lookup(name):
    """The old function called ``name``, after warning that it is deprecated."""
    warnings.warn(f"nn.{name} is deprecated: use {REPLACEMENTS[name]}", DeprecationWarning,
                  stacklevel=3)
    if name == "safetensors_metadata":
        return door.safetensors_metadata
    return globals()[name]
