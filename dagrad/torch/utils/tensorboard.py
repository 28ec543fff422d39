"""``torch.utils.tensorboard`` in dagrad: ``SummaryWriter`` writes TensorBoard event files
(scalars, groups of scalars, histograms, text) that ``tensorboard --logdir runs`` shows, through
the ``tensorboard`` package's own event-file writer and protocol buffers (install it with the
``test`` extra, or ``pip install tensorboard``)::

    writer = SummaryWriter()                     # runs/<date>_<host>
    for step in range(100):
        writer.add_scalar("loss/train", loss.item(), step)
        writer.add_histogram("fc1.weight", model.fc1.weight, step)
    writer.close()

The other methods of PyTorch's writer (images, graphs, embeddings, ...) raise NotInDagradError.
"""
import os
import socket
import time
from datetime import datetime

import numpy as np

from dagrad.autograd.extras import missing_extra

from .._missing import forward_to, not_in_dagrad


def _tensorflow_bins():
    """PyTorch's ``bins="tensorflow"``: ±1e-12 · 1.1^k up to 1e20, and 0 (each limit the
    previous one times 1.1, as PyTorch computes them, so the limits agree to the bit)."""
    positive, v = [], 1e-12
    while v < 1e20:
        positive.append(v)
        v *= 1.1
    return [-v for v in reversed(positive)] + [0] + positive


TENSORFLOW_BINS = _tensorflow_bins()

_METHODS = """add_audio add_custom_scalars add_custom_scalars_marginchart
    add_custom_scalars_multilinechart add_embedding add_figure add_graph add_histogram_raw
    add_hparams add_image add_image_with_boxes add_images add_mesh add_onnx_graph add_pr_curve
    add_pr_curve_raw add_tensor add_video""".split()


def _protos():
    """tensorboard's modules, imported when a writer is made (the package is optional)."""
    try:
        from tensorboard.compat.proto import event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2
        from tensorboard.plugins.text import plugin_data_pb2
        from tensorboard.summary.writer.event_file_writer import EventFileWriter
    except ImportError:
        raise missing_extra("torch.utils.tensorboard.SummaryWriter", "tensorboard",
                            extra="test") from None
    return event_pb2, summary_pb2, tensor_pb2, tensor_shape_pb2, plugin_data_pb2, EventFileWriter


def _numbers(values):
    """``values`` (a Tensor, array, number or list) as a float64 ndarray."""
    if hasattr(values, "detach"):
        values = values.detach().numpy()
    return np.asarray(values, dtype=np.float64)


class SummaryWriter:
    """Writes events to ``log_dir`` (default ``runs/<month><day>_<time>_<host><comment>``), as
    PyTorch's: ``add_scalar``, ``add_scalars``, ``add_histogram``, ``add_text``, ``flush``,
    ``close``; also a context manager."""

    def __init__(self, log_dir=None, comment="", purge_step=None, max_queue=10,
                 flush_secs=120, filename_suffix=""):
        (self._event_pb2, self._summary_pb2, self._tensor_pb2, self._shape_pb2,
         self._text_pb2, self._EventFileWriter) = _protos()
        if not log_dir:
            now = datetime.now().strftime("%b%d_%H-%M-%S")
            log_dir = os.path.join("runs", now + "_" + socket.gethostname() + comment)
        self.log_dir = str(log_dir)
        self.max_queue, self.flush_secs, self.filename_suffix = (max_queue, flush_secs,
                                                                 filename_suffix)
        self._writers = {}
        self._writer = self._file_writer(self.log_dir)
        if purge_step is not None:        # TensorBoard hides the later steps of a resumed run
            self._add(self._event_pb2.Event(step=int(purge_step),
                                            file_version="brain.Event:2"), None, None)
            self._add(self._event_pb2.Event(session_log=self._event_pb2.SessionLog(
                status=self._event_pb2.SessionLog.START)), purge_step, None)

    def _file_writer(self, folder):
        writer = self._writers.get(folder)
        if writer is None:
            writer = self._writers[folder] = self._EventFileWriter(
                folder, self.max_queue, self.flush_secs, self.filename_suffix)
        return writer

    def _add(self, event, step, walltime, writer=None):
        event.wall_time = time.time() if walltime is None else walltime
        if step is not None:
            event.step = int(step)
        (writer or self._writer).add_event(event)

    def _summary(self, value, step, walltime, writer=None):
        self._add(self._event_pb2.Event(summary=self._summary_pb2.Summary(value=[value])),
                  step, walltime, writer)

    def get_logdir(self):
        return self.log_dir

    def add_scalar(self, tag, scalar_value, global_step=None, walltime=None, new_style=False,
                   double_precision=False):
        """One point (``global_step``, ``scalar_value``) of the curve ``tag``."""
        value = _numbers(scalar_value).squeeze()
        if value.ndim:
            raise ValueError(f"add_scalar({tag!r}): the value must have one element, got shape "
                             f"{value.shape}")
        self._summary(self._summary_pb2.Summary.Value(tag=tag, simple_value=float(value)),
                      global_step, walltime)

    def add_scalars(self, main_tag, tag_scalar_dict, global_step=None, walltime=None):
        """Several curves in one chart: each ``tag`` of the dict is written as ``main_tag`` in
        its own run folder ``<log_dir>/<main_tag>_<tag>``, as PyTorch's."""
        walltime = time.time() if walltime is None else walltime
        for tag, scalar_value in tag_scalar_dict.items():
            folder = self.log_dir + "/" + main_tag.replace("/", "_") + "_" + tag
            value = self._summary_pb2.Summary.Value(
                tag=main_tag, simple_value=float(_numbers(scalar_value).squeeze()))
            self._summary(value, global_step, walltime, self._file_writer(folder))

    def add_histogram(self, tag, values, global_step=None, bins="tensorflow", walltime=None,
                      max_bins=None):
        """The distribution of ``values`` at ``global_step``: counts in ``bins`` (PyTorch's
        default buckets ±1e-12·1.1^k, or anything ``numpy.histogram`` takes), with the min,
        max, count, sum and sum of squares."""
        values = _numbers(values).reshape(-1)
        if values.size == 0:
            raise ValueError(f"add_histogram({tag!r}): the input has no element")
        counts, limits = np.histogram(values, bins=TENSORFLOW_BINS if bins == "tensorflow"
                                      else bins)
        used = np.flatnonzero(counts)          # keep the buckets from the first to the last used
        first, last = used[0], used[-1] + 1
        counts = np.concatenate([[0], counts[:last]]) if first == 0 else counts[first - 1:last]
        limits = limits[first:last + 1]
        histogram = self._summary_pb2.HistogramProto(
            min=values.min(), max=values.max(), num=values.size, sum=values.sum(),
            sum_squares=values.dot(values), bucket_limit=limits.tolist(),
            bucket=counts.astype(np.float64).tolist())
        self._summary(self._summary_pb2.Summary.Value(tag=tag, histo=histogram), global_step,
                      walltime)

    def add_text(self, tag, text_string, global_step=None, walltime=None):
        """A text (Markdown) entry, shown in TensorBoard's Text tab."""
        plugin = self._summary_pb2.SummaryMetadata.PluginData(
            plugin_name="text", content=self._text_pb2.TextPluginData(version=0)
            .SerializeToString())
        tensor = self._tensor_pb2.TensorProto(
            dtype="DT_STRING", string_val=[text_string.encode("utf_8")],
            tensor_shape=self._shape_pb2.TensorShapeProto(
                dim=[self._shape_pb2.TensorShapeProto.Dim(size=1)]))
        value = self._summary_pb2.Summary.Value(
            tag=tag + "/text_summary", tensor=tensor,
            metadata=self._summary_pb2.SummaryMetadata(plugin_data=plugin))
        self._summary(value, global_step, walltime)

    def flush(self):
        """Write what is pending to disk."""
        for writer in self._writers.values():
            writer.flush()

    def close(self):
        """Flush and close every event file."""
        for writer in self._writers.values():
            writer.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __getattr__(self, name):
        if name in _METHODS:
            raise not_in_dagrad(f"SummaryWriter.{name}", "dagrad's writer records scalars, "
                                "histograms and text")
        raise AttributeError(f"'SummaryWriter' object has no attribute {name!r}")


__getattr__ = forward_to("torch.utils.tensorboard")
