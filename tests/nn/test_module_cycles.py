"""A module that contains itself (``m.add_module("me", m)``, or a file that builds one): every
walk over the module tree either follows PyTorch's memo semantics (``named_modules``,
``parameters``, ``modules`` skip a module already seen, and give PyTorch's answer) or, where
PyTorch recurses until RecursionError (``state_dict``, ``train``, ``apply``, ``repr``, ...),
raises one RuntimeError naming the walk and both paths of the module. Each walk runs in a
subprocess with a time and memory limit, because before the check several looped for ever."""
import json

import pytest

from tests.helpers import run_bounded, torch_or_skip

# name -> the call, written for both libraries (``m`` is the module, ``ag`` the tensors)
WALKS = {
    "named_modules": "[n for n, _ in m.named_modules()]",
    "named_modules(remove_duplicate=False)":
        "[n for n, _ in m.named_modules(remove_duplicate=False)]",
    "modules": "len(list(m.modules()))",
    "children": "len(list(m.children()))",
    "parameters": "len(list(m.parameters()))",
    "named_parameters": "[n for n, _ in m.named_parameters()]",
    "named_parameters(remove_duplicate=False)":
        "[n for n, _ in m.named_parameters(remove_duplicate=False)]",
    "buffers": "len(list(m.buffers()))",
    "state_dict": "list(m.state_dict())",
    "load_state_dict": "m.load_state_dict({}, strict=False) and None",
    "train": "type(m.train()).__name__",
    "eval": "type(m.eval()).__name__",
    "apply": "type(m.apply(lambda module: None)).__name__",
    "to": "type(m.to(ag.float64)).__name__",
    "zero_grad": "m.zero_grad()",
    "requires_grad_": "type(m.requires_grad_(False)).__name__",
    "get_submodule": "type(m.get_submodule('me.me.me')).__name__",
    "repr": "repr(m)[:6]",
}

SCRIPT = """
import json
{imports}
from tests.helpers import outcome_within

for name, call in json.loads({walks!r}).items():
    m = {make}
    m.add_module("me", m)
    print(json.dumps([name, outcome_within(10, lambda: eval(call))]), flush=True)
"""


def outcomes(imports, make):
    out = run_bounded(SCRIPT.format(imports=imports, walks=json.dumps(WALKS), make=make),
                      seconds=300)
    assert out.returncode == 0, out.stderr[-2000:]
    return dict(json.loads(line) for line in out.stdout.splitlines())


@pytest.fixture(scope="module")
def both():
    torch_or_skip()
    theirs = outcomes("import torch\nfrom torch import nn\nag = torch", "nn.Linear(2, 2)")
    ours = outcomes("from dagrad import nn, autograd as ag", "nn.Linear(2, 2)")
    return ours, theirs


@pytest.mark.parametrize("walk", sorted(WALKS))
def test_a_module_containing_itself_is_walked_as_pytorch_or_named_in_one_error(both, walk):
    ours, theirs = both[0][walk], both[1][walk]
    if theirs[0] == "returns":          # PyTorch's memo semantics: the same answer
        assert ours == theirs
    else:
        assert theirs[0] == "RecursionError", theirs
        assert ours[0] == "RuntimeError", ours
        assert ours[1].startswith(f"{walk.split('(')[0]}: the module tree has a cycle"), ours
        assert "the Linear at '<root>' contains itself again at 'me'" in ours[1], ours


def test_a_cycle_two_modules_long_names_both_paths():
    out = run_bounded("""
from dagrad import nn
outer, inner = nn.Sequential(), nn.Sequential(nn.Linear(1, 1))
outer.add_module("block", inner)
inner.add_module("back", outer)
assert [n for n, _ in outer.named_modules()] == ["", "block", "block.0"]
try:
    outer.state_dict()
except RuntimeError as e:
    print(e)
""", seconds=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.startswith("state_dict: the module tree has a cycle: the Sequential at "
                                 "'<root>' contains itself again at 'block.back'"), out.stdout


def test_shared_children_are_no_cycle():
    from dagrad import nn
    shared = nn.Linear(1, 1)
    model = nn.Sequential(shared, nn.Sequential(shared))
    assert list(model.state_dict()) == ["0.weight", "0.bias", "1.0.weight", "1.0.bias"]
    assert [n for n, _ in model.named_modules()] == ["", "0", "1"]
    seen = []
    model.apply(lambda m: seen.append(type(m).__name__))
    assert seen == ["Linear", "Linear", "Sequential", "Sequential"]      # as PyTorch's apply
    model.train(False)
    assert not shared.training and "Sequential" in repr(model)


def test_a_failed_walk_changes_nothing():
    from dagrad import autograd as ag
    from dagrad import nn
    m = nn.Linear(2, 2)
    m.add_module("me", m)
    for change in (lambda: m.to(ag.float64), lambda: m.train(False)):
        with pytest.raises(RuntimeError, match="cycle"):
            change()
    assert m.weight.dtype == ag.float32 and m.training
