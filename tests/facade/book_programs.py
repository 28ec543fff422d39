"""Run a program written in the book's style (``torch``, ``nn``, ``F``, ``d2l``) twice: on
dagrad (``dagrad.torch`` and ``dagrad.d2l``) and on PyTorch, with ``d2l`` being dagrad.d2l's
own source with its torch imports pointed at PyTorch (the way out: the same code on both).

What would make the two runs differ by chance is made the same:
- ``torch.normal``, ``torch.randn`` and ``torch.rand`` return, on PyTorch, the numbers they
  returned on dagrad, call by call (the scratch models' weights, the synthetic data);
- data loaders keep the data's order (no shuffling);
- ``share(model)``, called by the program once its lazy layers have their sizes, gives the
  PyTorch model dagrad's initial parameters.
A program leaves what it computed in ``result`` (numbers, tensors, lists or strings).
"""
import importlib.abc
import importlib.util
import re
import sys
from pathlib import Path

import numpy as np

from dagrad import d2l as dagrad_d2l
from dagrad import torch as dagrad_torch
from tests.helpers import torch_or_skip

SOURCE = Path(dagrad_d2l.__file__).parent
PACKAGE = "d2l_on_torch"
END = r"(?=\s*(#.*)?$)"            # the import may carry a comment
TO_PYTORCH = [(r"^from dagrad import torch" + END, "import torch"),
              (r"^from dagrad\.torch import nn" + END, "from torch import nn"),
              (r"^from dagrad\.torch\.nn import functional as F" + END,
               "from torch.nn import functional as F")]


class _OnTorch(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports ``d2l_on_torch[.module]`` from dagrad/d2l's files with the imports rewritten."""

    def find_spec(self, name, path=None, target=None):
        if name != PACKAGE and not name.startswith(PACKAGE + "."):
            return None
        is_package = name == PACKAGE
        spec = importlib.util.spec_from_loader(name, self, is_package=is_package)
        if is_package:
            spec.submodule_search_locations = []
        return spec

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        stem = "__init__" if module.__name__ == PACKAGE else module.__name__.split(".")[-1]
        path = SOURCE / f"{stem}.py"
        lines = []
        for line in path.read_text(encoding="utf-8").splitlines():
            for pattern, replacement in TO_PYTORCH:
                line = re.sub(pattern, replacement, line)
            assert not line.startswith(("from dagrad import torch", "from dagrad.torch")), line
            lines.append(line)
        exec(compile("\n".join(lines), str(path), "exec"), module.__dict__)


def d2l_on_pytorch():
    """dagrad.d2l's source running on PyTorch (skips when PyTorch is not installed)."""
    torch_or_skip()
    if not any(isinstance(f, _OnTorch) for f in sys.meta_path):
        sys.meta_path.insert(0, _OnTorch())
    return importlib.import_module(PACKAGE)


def _numpy(t):
    return np.array(t.detach().numpy())


class _Bridge:
    """Carries random draws and initial parameters from the dagrad run to the PyTorch run."""

    def __init__(self):
        self.draws, self.states = [], []

    def install(self, framework, monkeypatch, record):
        """Patch ``framework``'s random functions and DataLoader for one run."""
        queue = list(self.draws)
        for name in ("normal", "randn", "rand"):
            original = getattr(framework, name)

            def draw(*args, _original=original, _name=name, **kwargs):
                if record:
                    out = _original(*args, **kwargs)
                    self.draws.append((_name, _numpy(out)))
                    return out
                assert queue, f"the PyTorch run drew more random numbers ({_name}) than dagrad's"
                name_then, values = queue.pop(0)
                assert name_then == _name, (name_then, _name)
                out = framework.tensor(values)
                return out.requires_grad_() if kwargs.get("requires_grad") else out
            monkeypatch.setattr(framework, name, draw)
        loader = framework.utils.data.DataLoader

        class InOrder(loader):
            def __init__(self, dataset, batch_size=1, shuffle=False, **kwargs):
                kwargs.pop("num_workers", None)
                super().__init__(dataset, batch_size, shuffle=False, **kwargs)
        monkeypatch.setattr(framework.utils.data, "DataLoader", InOrder)

    def share(self, framework, record):
        states = iter(list(self.states))

        def share(model):
            if record:
                self.states.append({k: _numpy(v) for k, v in model.state_dict().items()})
                return
            state = next(states)
            model.load_state_dict({k: framework.tensor(v) for k, v in state.items()})
        return share


def run_both(source, monkeypatch, **inputs):
    """(dagrad's result, PyTorch's result) of ``source``."""
    real_d2l = d2l_on_pytorch()
    real = real_d2l.torch
    bridge = _Bridge()
    results = []
    for torch, d2l, record in ((dagrad_torch, dagrad_d2l, True), (real, real_d2l, False)):
        with monkeypatch.context() as patch:
            bridge.install(torch, patch, record)
            namespace = dict(inputs, torch=torch, nn=torch.nn, F=torch.nn.functional, d2l=d2l,
                             share=bridge.share(torch, record))
            torch.manual_seed(0)
            exec(compile(source, f"<book program on {torch.__name__}>", "exec"), namespace)
            results.append(namespace["result"])
    return results


def compare(source, monkeypatch, rtol=1e-4, atol=1e-5, **inputs):
    """Run ``source`` on both and assert every entry of ``result`` agrees (strings exactly)."""
    ours, theirs = run_both(source, monkeypatch, **inputs)
    assert sorted(ours) == sorted(theirs)
    for key, expected in theirs.items():
        if isinstance(expected, str):
            assert ours[key] == expected, f"result[{key!r}]"
            continue
        np.testing.assert_allclose(_as_numbers(ours[key]), _as_numbers(expected), rtol=rtol,
                                   atol=atol, err_msg=f"result[{key!r}]")
    return ours, theirs


def _as_numbers(value):
    if hasattr(value, "detach"):
        return np.asarray(value.detach().numpy(), dtype=np.float64)
    if isinstance(value, (list, tuple)):
        return np.asarray([_as_numbers(v) for v in value], dtype=np.float64)
    return np.asarray(value, dtype=np.float64)
