"""``torch.utils.tensorboard.SummaryWriter`` writes real TensorBoard event files: the same calls
made with dagrad's writer and with PyTorch's, each read back with TensorBoard's own reader
(``EventAccumulator``), give the same scalars, histograms and text."""
import numpy as np
import pytest

from dagrad import torch as dt
from tests.helpers import torch_or_skip

pytest.importorskip("tensorboard", reason="the SummaryWriter test needs tensorboard: "
                                          "pip install -e '.[test]' in the checkout")
from tensorboard.backend.event_processing.event_accumulator import EventAccumulator  # noqa: E402

WEIGHTS = [np.random.default_rng(step).standard_normal(300).astype(np.float32) * (step + 1)
           for step in range(3)]


def _write(t, folder):
    from importlib import import_module
    writer = import_module(f"{t.__name__}.utils.tensorboard").SummaryWriter(folder)
    for step, weights in enumerate(WEIGHTS):
        writer.add_scalar("loss/train", 1.0 / (step + 1), step)
        writer.add_scalar("accuracy", t.tensor(0.25 * step), step)
        writer.add_histogram("fc.weight", t.tensor(weights), step)
        writer.add_histogram("fc.bias", t.tensor(weights[:10]), step, bins=5)
    writer.add_scalars("losses", {"train": 0.5, "val": 0.75}, 2)
    writer.add_text("notes", "lr **0.1**", 0)
    writer.close()


def _read(folder):
    events = EventAccumulator(str(folder))
    events.Reload()
    tags = events.Tags()
    scalars = {tag: [(e.step, e.value) for e in events.Scalars(tag)] for tag in tags["scalars"]}
    histograms = {}
    for tag in tags["histograms"]:
        histograms[tag] = [(e.step, e.histogram_value.min, e.histogram_value.max,
                            e.histogram_value.num, e.histogram_value.sum,
                            e.histogram_value.sum_squares, list(e.histogram_value.bucket_limit),
                            list(e.histogram_value.bucket)) for e in events.Histograms(tag)]
    texts = {tag: [e.tensor_proto.string_val for e in events.Tensors(tag)]
             for tag in tags["tensors"]}
    return scalars, histograms, texts


def _read_group(folder, name):
    events = EventAccumulator(str(folder / name))
    events.Reload()
    return [(e.step, e.value) for e in events.Scalars("losses")]


def test_summary_writer_event_files_read_back_as_pytorchs(tmp_path):
    torch = torch_or_skip()
    _write(torch, tmp_path / "theirs")
    _write(dt, tmp_path / "ours")
    (our_scalars, our_histograms, our_texts) = _read(tmp_path / "ours")
    (their_scalars, their_histograms, their_texts) = _read(tmp_path / "theirs")
    assert our_scalars == their_scalars
    assert our_scalars["loss/train"] == [(0, 1.0), (1, 0.5), (2, pytest.approx(1 / 3))]
    assert sorted(our_histograms) == ["fc.bias", "fc.weight"]
    for tag, theirs in their_histograms.items():
        for ours_event, their_event in zip(our_histograms[tag], theirs, strict=True):
            np.testing.assert_allclose(np.hstack(ours_event[:6]), np.hstack(their_event[:6]),
                                       rtol=1e-6)
            np.testing.assert_allclose(ours_event[6], their_event[6], rtol=1e-6)
            assert ours_event[7] == their_event[7]
    assert our_histograms["fc.weight"][0][3] == 300
    assert our_texts == their_texts == {"notes/text_summary": [[b"lr **0.1**"]]}
    for run in ("losses_train", "losses_val"):
        assert _read_group(tmp_path / "ours", run) == _read_group(tmp_path / "theirs", run)


def test_what_the_writer_cannot_record_says_so(tmp_path):
    from dagrad.torch.utils.tensorboard import SummaryWriter
    with SummaryWriter(tmp_path) as writer:
        assert writer.get_logdir() == str(tmp_path)
        with pytest.raises(dt.NotInDagradError, match="SummaryWriter.add_image"):
            writer.add_image("x", dt.zeros(3, 4, 4))
        with pytest.raises(ValueError, match="no element"):
            writer.add_histogram("empty", dt.zeros(0))
