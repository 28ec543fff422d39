"""Every PyTorch name dagrad lacks raises NotInDagradError naming it (and what to use instead,
where there is something): from every facade module, from submodules PyTorch has, and from
Tensor attributes torch.Tensor has. A name PyTorch lacks too (a typo) stays a plain
AttributeError; the name tables are PyTorch's own."""
import importlib
import inspect

import pytest

from dagrad import torch as dt
from dagrad.torch._missing import NotInDagradError
from dagrad.torch.pytorch_names import MODULE_NAMES, SUBMODULES, _tables
from tests.helpers import torch_or_skip

FACADE_MODULES = ["torch", "torch.nn", "torch.nn.functional", "torch.nn.init", "torch.nn.utils",
                  "torch.optim", "torch.optim.lr_scheduler", "torch.utils", "torch.utils.data",
                  "torch.autograd", "torch.cuda", "torch.backends", "torch.onnx"]


def _facade(name):
    return importlib.import_module("dagrad." + name)


@pytest.mark.parametrize("module", FACADE_MODULES)
def test_every_name_pytorchs_module_has_is_there_or_raises_not_in_dagrad(module):
    facade = _facade(module)
    missing = []
    for name in sorted(MODULE_NAMES[module]):
        try:
            getattr(facade, name)
        except NotInDagradError as e:
            assert f"{module}.{name}: dagrad does not have it" in str(e)
            missing.append(name)
        except AttributeError as e:      # anything else is the bug this test looks for
            pytest.fail(f"{module}.{name} raised a plain {type(e).__name__}: {e}")
    assert not hasattr(facade, missing[0]) if missing else True


def test_a_name_pytorch_lacks_too_is_a_plain_attribute_error():
    for obj, name in ((dt, "tensr"), (dt.nn, "Lineer"), (dt.ones(2), "sizee")):
        with pytest.raises(AttributeError) as info:
            getattr(obj, name)
        assert not isinstance(info.value, NotInDagradError)


def test_every_tensor_attribute_pytorch_has_is_there_or_raises_not_in_dagrad():
    from dagrad.autograd.missing import TENSOR_NAMES
    x = dt.ones(2, 3, requires_grad=True)
    for name in sorted(TENSOR_NAMES):
        try:
            getattr(x, name)
        except NotInDagradError as e:
            assert f"Tensor.{name}: dagrad does not have it" in str(e)
        except AttributeError as e:
            pytest.fail(f"Tensor.{name} raised a plain AttributeError: {e}")
        except Exception:     # a property PyTorch has that exists here and refuses this tensor
            pass


def test_hints_name_what_to_use_instead():
    with pytest.raises(NotInDagradError, match="x.numpy()"):
        dt.ones(2).storage()
    with pytest.raises(NotInDagradError, match="no GPU to pin memory"):
        dt.ones(2).pin_memory()
    with pytest.raises(NotInDagradError, match="runs eagerly"):
        dt.compile
    assert getattr(dt.ones(2), "pin_memory", "default") == "default"


def test_a_submodule_pytorch_has_imports_and_names_what_is_missing():
    import dagrad.torch.distributions as distributions
    with pytest.raises(NotInDagradError, match="torch.distributions.Normal: dagrad does not"):
        distributions.Normal
    from dagrad.torch import linalg
    with pytest.raises(NotInDagradError, match="torch.linalg.norm"):
        linalg.norm
    from dagrad.torch.nn import parallel   # noqa: F401  (torch.nn's submodules too)
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("dagrad.torch.distributionz")


def test_the_name_tables_are_the_installed_pytorchs():
    torch_or_skip()
    modules, packages = _tables()
    for name, names in modules.items():
        module = importlib.import_module(name)
        submodules = {n for n in MODULE_NAMES[name] if inspect.ismodule(getattr(module, n, None))}
        assert set(names) == MODULE_NAMES[name] - submodules, (
            f"{name}: regenerate dagrad/torch/pytorch_names.py "
            f"(python -m dagrad.torch.pytorch_names)")
    for name, names in packages.items():
        assert set(names) == SUBMODULES[name], name
    import torch
    from dagrad.autograd.missing import TENSOR_NAMES
    assert TENSOR_NAMES == {n for n in dir(torch.Tensor) if not n.startswith("_")}
