"""PyTorch programs run unmodified on dagrad through ``python -m dagrad.torch.run``, and a program
written with ``from dagrad import torch`` runs on PyTorch once its imports say ``torch`` again.
Each program runs in its own process under both frameworks, from the same initial weights and
data (``.pt`` files both read), and their saved results agree."""
import os
import subprocess
import sys

import numpy as np
import pytest

from dagrad import nn
from tests.facade.programs import to_torch
from tests.helpers import torch_or_skip

HERE = os.path.dirname(os.path.abspath(__file__))
PROGRAMS = os.path.join(HERE, "pytorch_programs")
ROOT = os.path.dirname(os.path.dirname(HERE))
RNG = np.random.default_rng(0)


def _weights(**shapes):
    return {name: (RNG.standard_normal(shape) * 0.2).astype(np.float32)
            for name, shape in shapes.items()}


def run(command, folder, poison_torch=False):
    """Run ``command`` in a fresh process; with ``poison_torch`` a package named torch that
    fails on import comes first on the path, so the run proves PyTorch is never imported."""
    env = dict(os.environ)
    if poison_torch:
        poison = os.path.join(folder, "poison")
        os.makedirs(os.path.join(poison, "torch"), exist_ok=True)
        with open(os.path.join(poison, "torch", "__init__.py"), "w") as f:
            f.write("raise ImportError('the real torch was imported')\n")
        env["PYTHONPATH"] = os.pathsep.join([poison, env.get("PYTHONPATH", "")])
    done = subprocess.run(command, capture_output=True, text=True, cwd=folder, env=env,
                          timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def both(program, folder, *args):
    """Run ``program`` with PyTorch and with dagrad (each writing its --out); return both
    results as loaded by dagrad, and dagrad's printed output."""
    torch_or_skip()
    path = os.path.join(PROGRAMS, program)
    theirs_out, ours_out = os.path.join(folder, "theirs.pt"), os.path.join(folder, "ours.pt")
    run([sys.executable, path, *args, "--out", theirs_out], folder)
    printed = run([sys.executable, "-m", "dagrad.torch.run", path, *args, "--out", ours_out],
                  folder, poison_torch=True)
    return nn.load(ours_out), nn.load(theirs_out), printed


def close(ours, theirs, rtol=1e-4, atol=1e-5):
    np.testing.assert_allclose(np.asarray(ours, dtype=np.float64),
                               np.asarray(theirs, dtype=np.float64), rtol=rtol, atol=atol)


def test_an_mnist_style_program_runs_unmodified_and_matches_pytorch(tmp_path):
    folder = str(tmp_path)
    labels = RNG.integers(0, 10, 160)
    centres = RNG.standard_normal((10, 1, 28, 28)).astype(np.float32)
    images = (centres[labels] + RNG.standard_normal((160, 1, 28, 28)) * 0.5).astype(np.float32)
    nn.save({"train_x": images[:128], "train_y": labels[:128].astype(np.int64),
             "test_x": images[128:], "test_y": labels[128:].astype(np.int64)},
            os.path.join(folder, "data.pt"))
    nn.save(_weights(**{"fc1.weight": (64, 784), "fc1.bias": (64,), "fc2.weight": (10, 64),
                        "fc2.bias": (10,)}), os.path.join(folder, "init.pt"))
    ours, theirs, printed = both("mnist_mlp.py", folder, "--data", "data.pt", "--init",
                                 "init.pt")
    assert "Train Epoch: 2 [0/128 (0%)]" in printed and "Test set: Average loss" in printed
    close(ours["losses"].numpy(), theirs["losses"].numpy())
    close(ours["test_loss"], theirs["test_loss"])
    assert ours["correct"] == theirs["correct"] and ours["lr"] == pytest.approx(theirs["lr"])
    for name, value in theirs["model"].items():
        close(ours["model"][name].numpy(), value.numpy())


def test_a_char_rnn_program_runs_unmodified_and_matches_pytorch(tmp_path):
    folder = str(tmp_path)
    words = ["the ", "cat ", "sat ", "on ", "a ", "mat ", "and ", "ate "]
    text = "".join(words[i] for i in RNG.integers(0, len(words), 60))
    with open(os.path.join(folder, "text.txt"), "w") as f:
        f.write(text)
    vocab = len(set(text))
    nn.save(_weights(**{"embedding.weight": (vocab, 16), "rnn.weight_ih_l0": (96, 16),
                        "rnn.weight_hh_l0": (96, 32), "rnn.bias_ih_l0": (96,),
                        "rnn.bias_hh_l0": (96,), "fc.weight": (vocab, 32),
                        "fc.bias": (vocab,)}), os.path.join(folder, "init.pt"))
    ours, theirs, printed = both("char_rnn.py", folder, "--text", "text.txt", "--init",
                                 "init.pt")
    assert "epoch 2: loss" in printed
    close(ours["losses"], theirs["losses"])
    close(ours["norms"], theirs["norms"])
    assert ours["generated"] == theirs["generated"] and ours["state_shape"] == [1, 1, 32]
    for name, value in theirs["model"].items():
        close(ours["model"][name].numpy(), value.numpy(), rtol=1e-3, atol=1e-4)


def test_a_checkpointing_program_runs_unmodified_and_matches_pytorch(tmp_path):
    folder = str(tmp_path)
    x = RNG.standard_normal((32, 3)).astype(np.float32)
    nn.save({"x": x, "y": (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3)},
            os.path.join(folder, "data.pt"))
    nn.save(_weights(**{"net.0.weight": (8, 3), "net.0.bias": (8,), "net.2.weight": (1, 8),
                        "net.2.bias": (1,)}), os.path.join(folder, "init.pt"))
    ours, theirs, printed = both("checkpoint.py", folder, "--data", "data.pt", "--init",
                                 "init.pt")
    assert printed.startswith("Regressor 5 ")
    assert ours["refused"] and theirs["refused"] and ours["lr"] == theirs["lr"] == 0.05
    for key in ("first", "second", "continued"):
        close(ours[key], theirs[key])
    close(ours["second"], ours["continued"], rtol=0, atol=0)   # resuming changes nothing
    close(ours["whole_out"].numpy(), theirs["whole_out"].numpy())


def test_a_dagrad_program_runs_on_pytorch_when_its_imports_say_torch(tmp_path):
    """The exit door: the same source, imports changed back, on PyTorch."""
    torch_or_skip()
    folder = str(tmp_path)
    labels = RNG.integers(0, 4, 48)
    images = (RNG.standard_normal((48, 1, 8, 8)) + labels[:, None, None, None]).astype(
        np.float32)
    nn.save({"x": images, "y": labels.astype(np.int64)}, os.path.join(folder, "data.pt"))
    init = _weights(**{"conv.weight": (4, 1, 3, 3), "head.weight": (4, 64),
                       "head.bias": (4,)})
    init.update({"norm.weight": np.ones(4, np.float32), "norm.bias": np.zeros(4, np.float32),
                 "norm.running_mean": np.zeros(4, np.float32),
                 "norm.running_var": np.ones(4, np.float32),
                 "norm.num_batches_tracked": np.array(0, dtype=np.int64)})
    nn.save(init, os.path.join(folder, "init.pt"))
    with open(os.path.join(PROGRAMS, "exit_door.py")) as f:
        source = f.read()
    converted = to_torch(source)
    assert "dagrad" not in converted.replace("for dagrad", "").replace("from dagrad import",
                                                                          "").split('"""')[2]
    with open(os.path.join(folder, "on_torch.py"), "w") as f:
        f.write(converted)
    run([sys.executable, os.path.join(PROGRAMS, "exit_door.py"), "data.pt", "init.pt",
         "ours.pt"], folder, poison_torch=True)
    printed = run([sys.executable, "on_torch.py", "data.pt", "init.pt", "theirs.pt"], folder)
    assert "shape torch.Size([48, 4])" in printed
    ours, theirs = nn.load(os.path.join(folder, "ours.pt")), nn.load(
        os.path.join(folder, "theirs.pt"))
    close(ours["losses"].numpy(), theirs["losses"].numpy())
    close(ours["logits"].numpy(), theirs["logits"].numpy(), rtol=1e-3, atol=1e-4)
    close(ours["running_mean"].numpy(), theirs["running_mean"].numpy())
    assert ours["accuracy"] == pytest.approx(theirs["accuracy"])


def test_the_runner_passes_arguments_and_refuses_a_missing_script(tmp_path):
    script = tmp_path / "echo.py"
    script.write_text("import sys, torch, torch.nn.functional\n"
                      "from d2l import torch as d2l\n"
                      "print(torch.__name__, d2l.__name__, __name__, sys.argv)\n")
    out = run([sys.executable, "-m", "dagrad.torch.run", str(script), "a", "--b"], str(tmp_path),
              poison_torch=True)
    assert out.split() == ["dagrad.torch", "dagrad.d2l", "__main__", f"['{script}',", "'a',",
                           "'--b']"]
    done = subprocess.run([sys.executable, "-m", "dagrad.torch.run", "missing.py"],
                          capture_output=True, text=True, cwd=str(tmp_path))
    assert done.returncode == 2 and "no such file" in done.stderr


def test_the_jupyter_extension_redirects_the_kernels_imports(tmp_path):
    """What ``%load_ext dagrad.torch`` calls, in a fresh process standing for the kernel."""
    code = (
        "import dagrad.torch as ext\n"
        "ext.load_ipython_extension(None)\n"
        "import torch, torch.nn as nn\n"
        "from d2l import torch as d2l\n"
        "assert torch is ext and nn is ext.nn and d2l.__name__ == 'dagrad.d2l'\n"
        "ext.unload_ipython_extension(None)\n"
        "import sys; assert 'torch' not in sys.modules\n"
        "print('redirected')\n")
    assert run([sys.executable, "-c", code], str(tmp_path), poison_torch=True).strip() == \
        "redirected"
    torch_or_skip()
    late = ("import torch\nimport dagrad.torch as ext\n"
            "try:\n    ext.load_ipython_extension(None)\nexcept RuntimeError as e:\n"
            "    print(e)\n")
    assert "restart the kernel" in run([sys.executable, "-c", late], str(tmp_path))


# ---- the last programs of the first suite (pytorch/examples), as their code is written
def _words(folder):
    words = "the cat sat on a mat and ate the rat while a dog ran".split()
    with open(os.path.join(folder, "text.txt"), "w") as f:
        f.write(" ".join(words[i] for i in RNG.integers(0, len(words), 200)))


@pytest.mark.parametrize("model", ["LSTM", "Transformer"])
def test_word_language_model_runs_unmodified_and_matches_pytorch(tmp_path, model):
    """The LSTM calls ``model.rnn.flatten_parameters()`` after loading; the Transformer (a
    subclass of nn.Transformer) is loaded inside ``safe_globals`` naming
    ``torch.nn.modules.linear.NonDynamicallyQuantizableLinear``."""
    folder = str(tmp_path)
    _words(folder)
    ours, theirs, printed = both("word_language_model.py", folder, "--model", model, "--data",
                                 "text.txt", "--init", "init.pt")
    assert "| End of training | test loss" in printed
    close(ours["losses"].numpy(), theirs["losses"].numpy())
    close(ours["test_loss"], theirs["test_loss"])
    for name, value in theirs["model"].items():
        close(ours["model"][name].numpy(), value.numpy(), rtol=1e-3, atol=1e-5)


def test_gcn_adds_a_sparse_adjacency_to_a_dense_eye_and_matches_pytorch(tmp_path):
    folder, n = str(tmp_path), 60
    labels = RNG.integers(0, 3, n)
    features = (RNG.random((n, 12)) < 0.2 + 0.3 * (np.arange(12) % 3 == labels[:, None]))
    with open(os.path.join(folder, "cora.content"), "w") as f:
        for i in range(n):
            f.write("\t".join([str(1000 + i), *map(str, features[i].astype(int)),
                               f"class{labels[i]}"]) + "\n")
    with open(os.path.join(folder, "cora.cites"), "w") as f:
        for a in RNG.integers(0, n, 150):
            same = np.flatnonzero(labels == labels[a])
            f.write(f"{1000 + a}\t{1000 + RNG.choice(same)}\n")
    ours, theirs, printed = both("gcn.py", folder, "--data", ".", "--init", "init.pt")
    assert "Epoch: 0010 loss_train" in printed
    close(ours["losses"].numpy(), theirs["losses"].numpy())
    close(ours["val"], theirs["val"])


def test_dcgan_imports_cudnn_as_a_module_and_matches_pytorch(tmp_path):
    folder = str(tmp_path)
    nn.save({"images": (RNG.random((8, 3, 64, 64)) * 2 - 1).astype(np.float32),
             "noise": RNG.standard_normal((2, 4, 8, 1, 1)).astype(np.float32)},
            os.path.join(folder, "data.pt"))
    ours, theirs, printed = both("dcgan.py", folder, "--data", "data.pt", "--init", "init.pt")
    assert "[1/2] Loss_D:" in printed and "ConvTranspose2d(8, 32" in printed
    close(ours["losses"].numpy(), theirs["losses"].numpy(), rtol=1e-4, atol=1e-5)
    for name, value in theirs["G"].items():
        close(ours["G"][name].numpy(), value.numpy(), rtol=1e-3, atol=1e-5)
