"""``torch.distributed`` in dagrad: the names exist, so programs that import them for a
multi-process run (nanoGPT: ``from torch.distributed import init_process_group,
destroy_process_group``) import on one CPU; calling one raises ``NotInDagradError``, since dagrad
trains in one process. ``is_available()`` and ``is_initialized()`` are False, so code that asks
first takes its single-process path. ``torch.nn.parallel.DistributedDataParallel`` and
``torch.utils.data.distributed.DistributedSampler`` behave the same way.
"""
import functools

from ._missing import forward_to, not_in_dagrad

WHY = "dagrad trains in one process on the CPU; run multi-process training on PyTorch"


def is_available():
    """False: dagrad has no distributed back end."""
    return False


def is_initialized():
    """False: no process group exists."""
    return False


def is_torchelastic_launched():
    return False


def refused(qualified_name):
    """A function standing for PyTorch's ``qualified_name``: importable, and calling it raises
    NotInDagradError naming it."""
    def call(*args, **kwargs):
        raise not_in_dagrad(qualified_name, WHY)
    call.__name__ = call.__qualname__ = qualified_name.rpartition(".")[2]
    call.__doc__ = f"``{qualified_name}``: raises NotInDagradError ({WHY})."
    return call


_FUNCTIONS = """
    all_gather all_gather_into_tensor all_gather_object all_reduce all_to_all barrier
    broadcast broadcast_object_list destroy_process_group gather get_backend get_rank
    get_world_size init_process_group irecv isend monitored_barrier new_group recv reduce
    reduce_scatter scatter send
""".split()
globals().update({name: refused(f"torch.distributed.{name}") for name in _FUNCTIONS})


class ReduceOp:
    """The reduction names of ``all_reduce(..., op=ReduceOp.SUM)`` (usable as values; the
    operations themselves raise NotInDagradError)."""
    SUM, AVG, PRODUCT, MIN, MAX = "sum", "avg", "product", "min", "max"


def refused_class(qualified_name):
    """A class standing for PyTorch's ``qualified_name`` (for ``isinstance`` and imports);
    making one raises NotInDagradError."""
    def __init__(self, *args, **kwargs):
        raise not_in_dagrad(qualified_name, WHY)
    name = qualified_name.rpartition(".")[2]
    return type(name, (), {"__init__": functools.wraps(__init__)(__init__),
                           "__doc__": f"``{qualified_name}``: NotInDagradError ({WHY}).",
                           "__module__": qualified_name.rpartition(".")[0]})


__getattr__ = forward_to("torch.distributed")
