"""``torch.nn.modules`` and its files (``torch.nn.modules.linear``, ``.conv``, ...): PyTorch's
paths to its layers, each naming dagrad's class of the same name.

PyTorch code names layers by these paths (``torch.nn.modules.linear.Linear`` in
``torch.serialization.safe_globals([...])``, ``from torch.nn.modules.loss import _Loss``). The
files and their classes come from one table (``dagrad.nn.formats.class_paths``), which the
``.pt`` loader also uses; a name dagrad lacks raises ``NotInDagradError``.
"""
from dagrad.nn import Module  # noqa: F401
from dagrad.nn.formats.class_paths import NAMES, dagrad_classes

from .._missing import facade_module, forward_to


def _file_module(file):
    """``torch.nn.modules.<file>`` (``import torch.nn.modules.linear`` finds it)."""
    names = ", ".join(NAMES[file][:4]) + (", ..." if len(NAMES[file]) > 4 else "")
    return facade_module(f"{__name__}.{file}", f"torch.nn.modules.{file}: PyTorch's path to "
                         f"{names}", "dagrad.nn", attributes=dagrad_classes(file))


for _file in NAMES:
    globals()[_file] = _file_module(_file)
    globals().update(dagrad_classes(_file))

__path__ = []           # a package to the import system: `import torch.nn.modules.conv` works
__getattr__ = forward_to("torch.nn.modules", "dagrad.nn")
