"""Every module of ``dagrad.torch`` (files, and those made in code such as
``torch.backends.cudnn`` or ``torch.nn.modules.linear``) imports as PyTorch code imports it,
``import torch.x.y as z``, under ``python -m dagrad.torch.run``, and has a module spec
(``importlib.util.find_spec`` works on it, which a module without one breaks)."""
import importlib
import importlib.util
import pkgutil
import subprocess
import sys

import dagrad.torch


def facade_modules():
    """The dotted names of every dagrad.torch module, after importing them all."""
    for info in pkgutil.walk_packages(dagrad.torch.__path__, "dagrad.torch."):
        if not info.name.endswith(".run"):
            importlib.import_module(info.name)
    return sorted(name for name, module in list(sys.modules.items())
                  if name.startswith("dagrad.torch.") and module is not None)


def test_every_facade_module_has_a_spec():
    names = facade_modules()
    assert {"dagrad.torch.backends.cudnn", "dagrad.torch.cuda.amp",
            "dagrad.torch.nn.modules.linear", "dagrad.torch.utils.data.dataloader",
            "dagrad.torch.utils.tensorboard", "dagrad.torch.distributed"} <= set(names)
    for name in names:
        assert sys.modules[name].__spec__ is not None, name
        assert importlib.util.find_spec(name) is not None, name


def test_every_facade_module_imports_as_torch_x_y_as_z(tmp_path):
    names = [n for n in facade_modules() if not n.rpartition(".")[2].startswith("_")]
    lines = [f"import {'torch' + name[len('dagrad.torch'):]} as module_{i}"
             for i, name in enumerate(names)]
    lines.append("import torch.backends.cudnn as cudnn\ncudnn.benchmark = True\nprint('ok')")
    script = tmp_path / "imports.py"
    script.write_text("\n".join(lines) + "\n")
    (tmp_path / "torch").mkdir()
    (tmp_path / "torch" / "__init__.py").write_text("raise ImportError('the real torch')\n")
    done = subprocess.run([sys.executable, "-m", "dagrad.torch.run", str(script)],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-2000:]
    assert len(lines) > 30
