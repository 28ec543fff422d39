"""Every door through which dagrad reads a file opens it once, through the regular-file guard,
and reads from that handle: a FIFO never blocks and ``/dev/zero`` (or a link to it) never
allocates without bound; both raise at once, saying what the path is. The doors: ``torch.load``,
``nn.load`` in each format, ``nn.formats``' readers, ``read_idx`` and the d2l readers of the
book's data files.

All doors run in one subprocess with a time limit per door (an alarm that interrupts a blocked
open) and a memory limit for the process, so a door that regresses fails its own test instead
of hanging the suite or taking the machine's memory."""
import json

import pytest

from tests.helpers import run_bounded

# door -> the call; place(name) puts the FIFO or the /dev/zero link at folder/name
DOORS = {
    "torch.load": "torch.load(place('model.pt'))",
    "torch.load (no suffix)": "torch.load(place('model'))",
    "nn.load (.npz)": "nn.load(place('model.npz'))",
    "nn.load (.pt)": "nn.load(place('model.pt'))",
    "nn.load (.safetensors)": "nn.load(place('model.safetensors'))",
    "nn.formats.format_of": "nn.formats.format_of(place('model.pt'))",
    "nn.formats.safetensors_metadata": "nn.formats.safetensors_metadata(place('m.safetensors'))",
    "get_unsafe_globals_in_checkpoint":
        "torch.serialization.get_unsafe_globals_in_checkpoint(place('model.pt'))",
    "nn.datasets.read_idx": "nn.datasets.read_idx(place('train-images-idx3-ubyte'))",
    "nn.datasets.read_idx (.gz)": "nn.datasets.read_idx(place('train-images-idx3-ubyte.gz'))",
    "d2l.FashionMNIST": "place('FashionMNIST/raw/train-images-idx3-ubyte'); "
                        "d2l.FashionMNIST(root=folder)",
    "d2l.TimeMachine": "place('timemachine.txt'); d2l.TimeMachine(2, 3, root=folder)",
    "d2l.MTFraEng": "place('fra-eng/fra.txt'); d2l.MTFraEng(2, root=folder)",
    "d2l.MTFraEng (.zip)": "place('fra-eng.zip'); d2l.MTFraEng(2, root=folder)",
    "d2l.get_data_ch11": "place('airfoil_self_noise.dat'); d2l.get_data_ch11(root=folder)",
    "d2l._read_wiki": "place('wiki.train.tokens'); d2l._read_wiki(folder)",
    "d2l.read_ptb": "place('ptb/ptb.train.txt'); d2l.read_ptb(folder)",
    "d2l.read_ptb (.zip)": "place('ptb.zip'); d2l.read_ptb(folder)",
    "d2l.TokenEmbedding": "place('glove.6B.50d/vec.txt'); "
                          "d2l.TokenEmbedding('glove.6b.50d', root=folder)",
    "d2l.extract (.zip)": "d2l.extract(place('data.zip'))",
    "d2l.extract (.tar)": "d2l.extract(place('data.tar'))",
}

SCRIPT = """
import json, os, tempfile
from dagrad import d2l, nn, torch
from tests.helpers import outcome_within

for door, call in json.loads({doors!r}).items():
    for kind in ("fifo", "zero"):
        folder = tempfile.mkdtemp()

        def place(name):
            path = os.path.join(folder, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if kind == "fifo":
                os.mkfifo(path)
            else:
                os.symlink("/dev/zero", path)
            return path

        outcome = outcome_within(20, lambda: exec(call) and None)
        print(json.dumps([door, kind, outcome]), flush=True)
"""


@pytest.fixture(scope="module")
def outcomes():
    out = run_bounded(SCRIPT.format(doors=json.dumps(DOORS)), seconds=900)
    found = {}
    for line in out.stdout.splitlines():
        door, kind, outcome = json.loads(line)
        found[door, kind] = outcome
    return found, out


@pytest.mark.parametrize("kind, what", [("fifo", "is a FIFO (named pipe), not a regular file"),
                                        ("zero", "is a character device, not a regular file")])
@pytest.mark.parametrize("door", list(DOORS))
def test_the_door_refuses_at_once(outcomes, door, kind, what):
    found, out = outcomes
    assert (door, kind) in found, f"the subprocess ended before this door: {out.stderr[-1500:]}"
    outcome = found[door, kind]
    assert outcome[0] != "Hung", f"{door} blocked on a {kind}"
    assert outcome[0] != "MemoryError", f"{door} read /dev/zero without bound"
    assert outcome[0] != "returns" and outcome[2], outcome        # a ValueError
    assert what in outcome[1], outcome
