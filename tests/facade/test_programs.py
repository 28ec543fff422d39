"""Small PyTorch programs, written for torch, run through ``from dagrad import torch`` with no
other edit, and compared with PyTorch itself given the same weights and data."""
import numpy as np
import pytest

from tests.facade.programs import compare, run

RNG = np.random.default_rng(0)
X = RNG.standard_normal((32, 4)).astype(np.float32)
Y = (X @ np.array([[2.0], [-3.4], [1.0], [0.5]], dtype=np.float32) + 4.2).astype(np.float32)
W1, B1 = (RNG.standard_normal((8, 4)) * 0.3).astype(np.float32), np.zeros(8, np.float32)
W2, B2 = (RNG.standard_normal((1, 8)) * 0.3).astype(np.float32), np.zeros(1, np.float32)
WEIGHTS = {"0.weight": W1, "0.bias": B1, "2.weight": W2, "2.bias": B2}

DEVICE_IDIOMS = """
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
if torch.cuda.device_count() > 1:
    raise SystemExit("several GPUs")
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
model.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
model = model.to(device)
data = TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
loader = DataLoader(data, batch_size=8, shuffle=False, num_workers=1)
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
loss_fn = nn.MSELoss()
losses = []
for epoch in range(3):
    for xb, yb in loader:
        xb, yb = xb.to(device), yb.to(device, non_blocking=True)
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        losses.append(loss.item())
assert model[0].weight.device.type == "cpu" and xb.device == device
assert model(xb).cpu().detach().numpy().shape == (8, 1)
assert "{:.3f}".format(loss) == "{:.3f}".format(loss.item())
ones = torch.ones(2, 3, device=device, dtype=torch.float64).to(xb)
result = {"losses": losses, "weight": model[2].weight, "ones": ones,
          "dtype_ok": [xb.dtype == torch.float32, ones.dtype == torch.float,
                       model[0].bias.dtype is torch.float32]}
"""

DATA_IDIOMS = """
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
net[0].weight.data.copy_(torch.tensor(weights["0.weight"]))
net[0].bias.data.fill_(0.1)
net[2].weight.data = torch.tensor(weights["2.weight"])
net[2].bias.data.zero_()
X, Y = torch.tensor(x), torch.tensor(y)
lr = 0.05
for step in range(4):
    loss = ((net(X) - Y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        for param in net.parameters():
            param -= lr * param.grad
    for p in net.parameters():
        p.data.add_(p.grad.data, alpha=-0.01)
        p.grad.data.zero_()
result = {"loss": loss, "w0": net[0].weight, "b2": net[2].bias}
"""

MISSING_FUNCTIONS = """
import torch
import torch.nn.functional as F

a = torch.tensor(x[:6].reshape(2, 3, 4), requires_grad=True)
b = torch.tensor(x[:2].reshape(2, 4, 1) * 0.5)
out = torch.bmm(a, b).squeeze(-1)                      # (2, 3)
tri = torch.tril(a[0] @ a[0].T) + torch.triu(a[1] @ a[1].T, diagonal=1)
grid_i, grid_j = torch.meshgrid(torch.arange(3.0), torch.linspace(0, 1, 4), indexing="ij")
rep = torch.repeat_interleave(a.narrow(2, 1, 2), 2, dim=1)   # (2, 6, 2)
total = (out.square().sum() + torch.sinh(tri).sum() * 0.01 + torch.cosh(a).mean()
         + torch.max(a, torch.zeros_like(a)).sum() + torch.min(a, b.transpose(1, 2)).sum()
         + (rep * grid_i.sum()).mean() + torch.sign(a).sum() + (grid_j[:, :3] * tri).sum())
total.backward()
z = a.new_zeros(2, 2)
assert z.dtype == a.dtype and a.new_ones((3,)).shape == (3,) and a.new_full((2,), 7.0)[1] == 7
assert a.new_tensor([1, 2]).dtype == torch.float32
s = "{:+.2f}".format(total)
result = {"total": total, "grad": a.grad, "text": float(s), "z": z,
          "randn_like": list(torch.randn_like(a).shape), "normal": list(torch.normal(
              torch.zeros(3), torch.ones(3)).shape)}
"""


LBFGS_FIT = """
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1)).double()
model.load_state_dict({k: torch.tensor(v, dtype=torch.float64) for k, v in weights.items()})
X, Y = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
optimizer = torch.optim.LBFGS(model.parameters(), lr=1, max_iter=10, history_size=5,
                              line_search_fn="strong_wolfe")

def closure():
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(model(X), Y)
    loss.backward()
    return loss

losses = [optimizer.step(closure).item() for _ in range(3)]
result = {"losses": losses, "w": model[0].weight}
"""

IN_PLACE_ON_NON_LEAVES = """
import torch
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.second = nn.Linear(4, 8), nn.Linear(8, 1)

    def forward(self, X):
        Y = self.first(X)
        Y += X.repeat(1, 2)                    # in place on a layer's output
        Y[Y > 1.5] = 1.5                       # masked assignment
        Y[:, 0] *= 2                           # through a slice
        return self.second(Y.relu_())


net = Residual()
net.load_state_dict({"first.weight": torch.tensor(weights["0.weight"]),
                     "first.bias": torch.tensor(weights["0.bias"]),
                     "second.weight": torch.tensor(weights["2.weight"]),
                     "second.bias": torch.tensor(weights["2.bias"])})
opt = torch.optim.SGD(net.parameters(), lr=0.05)
X, Y = torch.tensor(x), torch.tensor(y)
for step in range(3):
    opt.zero_grad()
    loss = ((net(X) - Y) ** 2).mean()
    loss.backward()
    opt.step()
leaf = torch.zeros(3, requires_grad=True)
try:
    leaf += 1
    refused = False
except RuntimeError as e:
    refused = "leaf Variable" in str(e)
result = {"loss": loss, "w": net.first.weight, "grad": net.first.weight.grad,
          "refused": refused}
"""


@pytest.mark.parametrize("program", [DEVICE_IDIOMS, DATA_IDIOMS, MISSING_FUNCTIONS, LBFGS_FIT,
                                     IN_PLACE_ON_NON_LEAVES],
                         ids=["devices", "data", "missing_functions", "lbfgs", "in_place"])
def test_program_matches_pytorch(program):
    compare(program, x=X, y=Y, weights=WEIGHTS)


SAVE_LOAD = """
import os
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
model.load_state_dict({k: torch.tensor(v) for k, v in weights.items()})
opt = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    opt.zero_grad()
    ((model(torch.tensor(x)) - torch.tensor(y)) ** 2).mean().backward()
    opt.step()
torch.save(model.state_dict(), os.path.join(folder, "weights.pt"))
torch.save({"epoch": 2, "model": model.state_dict(), "optimizer": opt.state_dict(),
            "history": [1.5, 0.5], "note": "adam"}, os.path.join(folder, "ckpt.pt"))
torch.save(model, os.path.join(folder, "model.pt"))

fresh = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
fresh.load_state_dict(torch.load(os.path.join(folder, "weights.pt"), map_location="cpu"))
ckpt = torch.load(os.path.join(folder, "ckpt.pt"), weights_only=True)
opt2 = torch.optim.Adam(fresh.parameters(), lr=0.01)
opt2.load_state_dict(ckpt["optimizer"])
for o in (opt, opt2):
    o.zero_grad()
for m, o in ((model, opt), (fresh, opt2)):
    ((m(torch.tensor(x)) - torch.tensor(y)) ** 2).mean().backward()
    o.step()
whole = torch.load(os.path.join(folder, "model.pt"), weights_only=False)
result = {"same_step": fresh[0].weight - model[0].weight, "epoch": ckpt["epoch"],
          "history": ckpt["history"], "whole": whole(torch.tensor(x[:3])),
          "note": [ckpt["note"] == "adam"]}
"""


def test_save_and_load_round_trip_like_pytorch(tmp_path):
    ours, theirs = compare(SAVE_LOAD, x=X, y=Y, weights=WEIGHTS, folder=str(tmp_path))
    np.testing.assert_array_equal(ours["same_step"].numpy(), 0.0)


def test_saving_a_model_whose_class_cannot_be_named_says_why(tmp_path):
    """A class made where no module holds it (here by exec) cannot be named in a file; PyTorch
    refuses it too. A module-level class saves (tests/interchange/test_pt_format.py)."""
    program = """
from dagrad import torch
from dagrad.torch import nn

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 1)

torch.save(Net(), path)
"""
    with pytest.raises(TypeError, match="cannot be named by its module and name"):
        exec(program, {"path": str(tmp_path / "net.pt")})
    assert not (tmp_path / "net.pt").exists()


def test_the_loader_never_rebuilds_foreign_classes(tmp_path):
    """A file naming a class outside the allowlist is refused: loading never builds foreign
    objects (tests/nn/test_formats_door.py checks that nothing is imported either)."""
    from dagrad import nn, torch
    from tests.nn.zip_builder import archive, manifest, plain
    path = str(tmp_path / "m.pt")
    torch.save(nn.Linear(2, 1), path)
    assert type(torch.load(path)).__name__ == "Linear"
    forged = tmp_path / "forged.npz"
    tree = {"module": {"dict": [["__dagrad_module__", {"value": "os:system"}],
                                ["attrs", {"dict": []}]]}}
    forged.write_bytes(archive(plain([("__dagrad__.npy", manifest(tree))])))
    with pytest.raises(nn.SerializationError, match="os.system, from the module os, which is "
                                                    "never allowed"):
        nn.load(forged)


def test_programs_are_rewritten_only_in_their_imports():
    source = run.__doc__ and "import torch\nimport torch.nn as nn\nx = torch.nn.Linear\n"
    from tests.facade.programs import to_dagrad
    assert to_dagrad(source) == ("from dagrad import torch\nfrom dagrad.torch import nn\n"
                                 "x = torch.nn.Linear")
