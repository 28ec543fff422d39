"""``torch.nn.modules`` and its files (``torch.nn.modules.linear``, ``.conv``, ...): PyTorch's
paths to its layers, each naming dagrad's class of the same name.

PyTorch code names layers by these paths (``torch.nn.modules.linear.Linear`` in
``torch.serialization.safe_globals([...])``, ``from torch.nn.modules.loss import _Loss``). The
files and their classes come from one table (``dagrad.nn.formats.class_paths``), which the
``.pt`` loader also uses; a name dagrad lacks raises ``NotInDagradError``.
"""
import sys
import types

from dagrad.nn import Module  # noqa: F401
from dagrad.nn.formats.class_paths import NAMES, dagrad_classes

from .._missing import forward_to


def _file_module(file):
    module = types.ModuleType(f"{__name__}.{file}", f"torch.nn.modules.{file}: PyTorch's "
                              f"path to {', '.join(NAMES[file][:4])}{', ...' if len(NAMES[file]) > 4 else ''}")
    module.__dict__.update(dagrad_classes(file))
    module.__getattr__ = forward_to(f"torch.nn.modules.{file}", "dagrad.nn")
    sys.modules[module.__name__] = module       # so `import torch.nn.modules.linear` finds it
    return module


for _file in NAMES:
    globals()[_file] = _file_module(_file)
    globals().update(dagrad_classes(_file))

__path__ = []           # a package to the import system: `import torch.nn.modules.conv` works
__getattr__ = forward_to("torch.nn.modules", "dagrad.nn")
