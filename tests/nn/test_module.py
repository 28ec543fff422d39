"""Module: registration, traversal, modes, dtype casts, state dicts, repr, hooks, and the
module paths recorded on graph nodes."""
import copy
import threading
from collections import OrderedDict

import numpy as np
import pytest

from dagrad import autograd as ag
from dagrad import nn


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)
        self.norm = nn.LayerNorm(3)

    def forward(self, x):
        return self.norm(self.fc(x)).relu()


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(np.ones(1, dtype=np.float32))
        self.encoder = nn.Sequential(Block(), Block())
        self.layers = nn.ModuleList([nn.Linear(3, 3), nn.Tanh()])
        self.head = nn.Linear(3, 2)
        self.register_buffer("steps", ag.tensor(np.array(0)))

    def forward(self, x):
        x = self.encoder(x) * self.scale
        for layer in self.layers:
            x = layer(x)
        return self.head(x)


def test_parameters_are_registered_in_insertion_order():
    names = [n for n, _ in Net().named_parameters()]
    assert names == ["scale", "encoder.0.fc.weight", "encoder.0.fc.bias",
                     "encoder.0.norm.weight", "encoder.0.norm.bias", "encoder.1.fc.weight",
                     "encoder.1.fc.bias", "encoder.1.norm.weight", "encoder.1.norm.bias",
                     "layers.0.weight", "layers.0.bias", "head.weight", "head.bias"]
    net = Net()
    assert [type(m).__name__ for m in net.children()] == ["Sequential", "ModuleList", "Linear"]
    assert [n for n, _ in net.named_modules()][:4] == ["", "encoder", "encoder.0",
                                                       "encoder.0.fc"]
    assert len(list(net.modules())) == 12
    assert [n for n, _ in net.named_buffers()] == ["steps"]


def test_parameter_is_a_leaf_tensor_that_requires_grad():
    p = nn.Parameter(np.zeros(3))
    assert isinstance(p, ag.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p).startswith("Parameter containing:\ntensor(")
    assert not nn.Parameter(np.zeros(2), requires_grad=False).requires_grad
    y = p * 2
    assert type(y) is ag.Tensor


def test_shared_parameters_are_listed_once_but_saved_under_both_names():
    a = nn.Linear(2, 2)
    seq = nn.Sequential(a, nn.ReLU(), a)
    assert len(list(seq.parameters())) == 2
    assert list(seq.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]


def test_reassigning_and_deleting_attributes_updates_the_registries():
    net = Net()
    net.head = nn.Identity()
    assert "head.weight" not in dict(net.named_parameters())
    net.scale = None
    assert "scale" not in dict(net.named_parameters()) and net.scale is None
    with pytest.raises(TypeError, match="nn.Parameter or None"):
        net.scale = ag.ones(1)
    del net.layers
    assert not hasattr(net, "layers")
    net.plain = 3
    assert net.plain == 3 and "plain" not in net.state_dict()
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        net.missing


def test_registered_names_read_the_same_through_the_class_shortcut():
    # ``module.weight`` is read through a descriptor on the class (nn/module.py _Registered)
    # once any instance registers the name; every instance must still see its own value.
    class Box(nn.Module):
        limit = 5                       # a class attribute wins over a registered name

        def __init__(self, kind):
            super().__init__()
            if kind == "parameter":
                self.w = nn.Parameter(ag.ones(2))
            elif kind == "buffer":
                self.register_buffer("w", ag.zeros(2))
            elif kind == "module":
                self.w = nn.Identity()
            else:
                self.w = "plain"
            self.register_buffer("limit", ag.ones(1))

    p, b, m, plain = Box("parameter"), Box("buffer"), Box("module"), Box("plain")
    assert isinstance(p.w, nn.Parameter) and p.w is p._parameters["w"]
    assert b.w is b._buffers["w"] and isinstance(m.w, nn.Identity) and plain.w == "plain"
    assert p.limit == 5 and "limit" in p.state_dict()
    with pytest.raises(AttributeError):
        Box.w                           # on the class itself, as before: no attribute
    del p.w
    with pytest.raises(AttributeError, match="'Box' object has no attribute 'w'"):
        p.w
    assert not hasattr(Box("none"), "missing") and Box("none").w == "plain"
    p.w = nn.Parameter(ag.zeros(3))     # registered again, read again
    assert p.w.shape == (3,) and copy.deepcopy(p).w.shape == (3,)


def test_assigning_before_init_is_a_clear_error():
    class Broken(nn.Module):
        def __init__(self):
            self.fc = nn.Linear(2, 2)

    with pytest.raises(AttributeError, match="super\\(\\).__init__\\(\\)"):
        Broken()


def test_train_eval_propagate_to_every_module():
    net = Net()
    assert all(m.training for m in net.modules())
    assert net.eval() is net
    assert not any(m.training for m in net.modules())
    net.train()
    assert all(m.training for m in net.modules())
    with pytest.raises(ValueError):
        net.train("no")


def test_zero_grad_and_requires_grad():
    net = Net()
    net(ag.randn(2, 3)).sum().backward()
    assert all(p.grad is not None for p in net.parameters())
    net.zero_grad(set_to_none=False)
    assert all(np.all(p.grad.numpy() == 0) for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    net.encoder.requires_grad_(False)
    net(ag.randn(2, 3)).sum().backward()
    assert net.encoder[0].fc.weight.grad is None and net.head.weight.grad is not None


def test_apply_visits_children_first():
    seen = []
    net = nn.Sequential(nn.Linear(1, 1), nn.Sequential(nn.ReLU()))
    assert net.apply(lambda m: seen.append(type(m).__name__)) is net
    assert seen == ["Linear", "ReLU", "Sequential", "Sequential"]


def test_to_double_and_float_cast_parameters_and_float_buffers_only():
    net = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
    net(ag.randn(3, 2)).sum().backward()
    net.double()
    assert all(p.dtype == np.float64 and p.grad.dtype == np.float64 for p in net.parameters())
    assert net[1].running_mean.dtype == np.float64
    assert net[1].num_batches_tracked.dtype == np.int64
    assert net(ag.randn(3, 2, dtype=np.float64)).dtype == np.float64
    assert net.to("cpu") is net and net.to(dtype=np.float32)[0].weight.dtype == np.float32
    with pytest.raises(TypeError, match="floating"):
        net.to(np.int32)


def test_state_dict_contains_parameters_and_buffers_like_pytorch():
    net = Net()
    keys = list(net.state_dict())
    assert keys[:2] == ["scale", "steps"]
    assert "encoder.0.norm.weight" in keys and "head.bias" in keys
    sd = net.state_dict()
    assert not sd["head.weight"].requires_grad
    assert sd["head.weight"].numpy() is net.head.weight.numpy()      # shares memory
    assert net.state_dict(keep_vars=True)["head.weight"] is net.head.weight
    bn = nn.BatchNorm1d(2)
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]


def test_non_persistent_buffers_are_not_saved():
    m = nn.Module()
    m.register_buffer("a", ag.zeros(2))
    m.register_buffer("b", ag.zeros(2), persistent=False)
    assert list(m.state_dict()) == ["a"]
    assert [n for n, _ in m.named_buffers()] == ["a", "b"]


def test_load_state_dict_round_trip_copies_in_place():
    a, b = Net(), Net()
    weight = b.head.weight
    result = b.load_state_dict(a.state_dict())
    assert result.missing_keys == [] and result.unexpected_keys == []
    assert b.head.weight is weight                                   # same Parameter object
    for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items()):
        np.testing.assert_array_equal(x.numpy(), y.numpy(), err_msg=name)
    x = ag.randn(2, 3)
    np.testing.assert_array_equal(a(x).numpy(), b(x).numpy())


def test_load_state_dict_names_every_missing_unexpected_and_misshaped_key():
    net = Net()
    sd = dict(net.state_dict())
    del sd["head.bias"], sd["steps"]
    sd["extra.weight"] = np.zeros(2)
    sd["head.weight"] = np.zeros((5, 3))
    before = net.head.weight.numpy().copy()
    with pytest.raises(RuntimeError) as info:
        net.load_state_dict(sd)
    message = str(info.value)
    for key in ["'head.bias'", "'steps'", "'extra.weight'", "size mismatch for head.weight",
                "(5, 3)", "(2, 3)", "Net"]:
        assert key in message
    np.testing.assert_array_equal(net.head.weight.numpy(), before)     # nothing was modified
    sd["head.weight"] = before
    result = net.load_state_dict(sd, strict=False)
    assert result.missing_keys == ["steps", "head.bias"]
    assert result.unexpected_keys == ["extra.weight"]
    sd["head.weight"] = np.zeros((5, 3))
    with pytest.raises(RuntimeError, match="size mismatch"):       # even when not strict
        net.load_state_dict(sd, strict=False)


def test_load_state_dict_from_pytorch_numpy_arrays():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for parity tests")
    ref = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.BatchNorm1d(4), torch.nn.ReLU(),
                              torch.nn.Linear(4, 2))
    ours = nn.models.MLP([3, 4, 2], norm="batch")
    ours.load_state_dict({k: v.numpy() for k, v in ref.state_dict().items()})
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    ref.eval(), ours.eval()
    np.testing.assert_allclose(ours(ag.tensor(x)).numpy(), ref(torch.tensor(x)).detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def test_repr_is_a_readable_tree_and_folds_repeated_blocks():
    net = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Sequential(nn.Dropout(0.1)))
    assert repr(net) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=3, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Sequential(\n"
        "    (0): Dropout(p=0.1)\n"
        "  )\n"
        ")")
    stack = nn.ModuleList([nn.Linear(4, 4) for _ in range(6)] + [nn.Tanh()])
    assert "(0-5): 6 x Linear(in_features=4, out_features=4, bias=True)" in repr(stack)
    assert "(6): Tanh()" in repr(stack)
    assert repr(nn.CrossEntropyLoss(reduction="sum")) == "CrossEntropyLoss(reduction='sum')"


def _modules_of(root):
    """{operation name: module path} for every node of the graph below ``root``."""
    found, stack, seen = [], [root.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or not hasattr(node, "parents") or id(node) in seen:
            continue
        seen.add(id(node))
        found.append((node.name, node.module))
        stack.extend(p for p in node.parents if p is not None)
    return found


def test_call_records_module_paths_on_graph_nodes():
    net = Net()
    out = net(ag.randn(2, 3))
    modules = {m for _, m in _modules_of(out)}
    assert {"encoder.0.fc", "encoder.0.norm", "encoder.1.fc", "encoder.1.norm", "layers.0",
            "layers.1", "head"} <= modules
    assert None in modules                           # the root's own multiplication
    assert ("Relu", "encoder.0") in _modules_of(out)
    assert ag.grad_mode.STATE.frame.path is None          # restored afterwards
    # a registered submodule called on its own keeps its registered path
    sub = net.encoder(ag.randn(2, 3))
    assert {m for _, m in _modules_of(sub)} >= {"encoder.0.fc", "encoder.1.norm"}


def test_the_running_module_is_per_thread():
    # grad_mode.Frame holds the running module and its path: one per thread, so an operation
    # another thread records while a model's submodule runs here is not named after it
    seen = {}

    def other():
        seen["plain"] = (ag.randn(2, requires_grad=True) * 2).grad_fn.module
        seen["own"] = _modules_of(nn.Sequential(nn.Tanh())(ag.randn(1, 2, requires_grad=True)))

    class Spawner(nn.Module):
        def forward(self, x):
            worker = threading.Thread(target=other)
            worker.start()
            worker.join()
            return x * 3

    model = nn.Sequential(nn.Linear(2, 2), Spawner())
    out = model(ag.randn(1, 2))
    assert seen["plain"] is None and seen["own"] == [("Tanh", "0")]
    assert {("Linear", "0"), ("Mul", "1")} <= set(_modules_of(out))
    assert ag.grad_mode.STATE.frame.path is None


def test_module_path_is_restored_after_an_exception():
    net = nn.Sequential(nn.Linear(3, 2), nn.Linear(3, 2))
    with pytest.raises(ValueError):
        net(ag.randn(1, 3))
    assert ag.grad_mode.STATE.frame.path is None
    out = net[0](ag.randn(1, 3))
    assert out.grad_fn.module == "0"                  # its registered path, not a stale one


def test_module_paths_follow_changes_to_the_tree():
    net = nn.Sequential(nn.Linear(2, 2))
    assert net(ag.randn(1, 2)).grad_fn.module == "0"
    net.append(nn.Linear(2, 2))
    assert net(ag.randn(1, 2)).grad_fn.module == "1"


def test_deep_copies_are_independent_and_record_their_own_paths():
    import copy
    net = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2))
    net(ag.randn(1, 2))
    clone = copy.deepcopy(net)
    assert isinstance(clone[0].weight, nn.Parameter) and clone[0].weight.requires_grad
    assert clone[0].weight.numpy() is not net[0].weight.numpy()
    assert clone(ag.randn(1, 2)).grad_fn.module == "2"


def test_forward_hooks_can_observe_and_replace():
    layer = nn.Linear(2, 2)
    calls = []
    h1 = layer.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
    h2 = layer.register_forward_hook(lambda m, args, out: calls.append(out.shape))
    out = layer(ag.ones(1, 2))
    np.testing.assert_allclose(out.numpy(), layer.bias.numpy()[None])
    assert calls == [(1, 2)]
    h1.remove(), h2.remove()
    layer(ag.ones(1, 2))
    assert calls == [(1, 2)]


def test_sequential_indexing_slicing_and_editing():
    seq = nn.Sequential(nn.Linear(1, 2), nn.ReLU(), nn.Linear(2, 1))
    assert isinstance(seq[-1], nn.Linear) and len(seq) == 3
    head = seq[:2]
    assert isinstance(head, nn.Sequential) and head[0] is seq[0]
    del seq[1]
    assert list(seq._modules) == ["0", "1"] and isinstance(seq[1], nn.Linear)
    seq.insert(1, nn.Tanh())
    assert isinstance(seq[1], nn.Tanh) and len(seq) == 3
    named = nn.Sequential(OrderedDict([("fc", nn.Linear(1, 1)), ("act", nn.ReLU())]))
    assert list(named.state_dict()) == ["fc.weight", "fc.bias"]
    with pytest.raises(IndexError):
        seq[5]


def test_module_list_and_dict():
    layers = nn.ModuleList([nn.Linear(1, 1)])
    layers.append(nn.ReLU())
    layers += [nn.Tanh()]
    assert len(layers) == 3 and isinstance(layers[-1], nn.Tanh)
    del layers[0]
    assert [type(m).__name__ for m in layers] == ["ReLU", "Tanh"]
    with pytest.raises(NotImplementedError, match="iterate"):
        layers(ag.ones(1))
    d = nn.ModuleDict({"a": nn.Linear(1, 2), "b": nn.Linear(2, 1)})
    assert list(d) == ["a", "b"] and "a" in d
    assert list(d.state_dict()) == ["a.weight", "a.bias", "b.weight", "b.bias"]
    d.pop("a")
    assert list(d.keys()) == ["b"]


def test_forward_must_be_defined():
    with pytest.raises(NotImplementedError, match="forward"):
        nn.Module()(1)


def test_get_submodule():
    net = Net()
    assert net.get_submodule("encoder.1.norm") is net.encoder[1].norm
    with pytest.raises(AttributeError, match="nothing"):
        net.get_submodule("encoder.nothing")


def test_submodule_called_from_a_model_method_records_its_registered_path():
    """``model.encoder(x)`` from a method other than forward (e.g. a VAE's loss) names its nodes
    as when the model itself is called, so encoder.0 and decoder.0 never merge in pictures."""
    from dagrad import autograd as ag
    from dagrad import nn

    class Pair(nn.Module):
        def __init__(self):
            super().__init__()
            self.encoder = nn.Sequential(nn.Linear(3, 2))
            self.decoder = nn.Sequential(nn.Linear(2, 3))

        def loss(self, x):
            return self.decoder(self.encoder(x)).sum()

    model = Pair()
    out = model.loss(ag.randn(4, 3))
    paths = set()
    stack = [out.grad_fn]
    while stack:
        node = stack.pop()
        paths.add(node.module)
        stack += [p for p in node.parents if p is not None and hasattr(p, "parents")]
    assert {"encoder.0", "decoder.0"} <= paths
    copy = __import__("copy").deepcopy(model.encoder)     # an unregistered copy is a root
    assert copy(ag.randn(1, 3)).grad_fn.module == "0"
