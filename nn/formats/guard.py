"""The regular-file guard: every reader of a file from outside (``nn.load`` and ``torch.load``
for every format, the data sets' readers, ``d2l``'s) opens it here, once, and reads only from
that handle.

A FIFO, socket or device is refused at once: opening a FIFO without a writer would block for
ever, and a device such as ``/dev/zero`` never ends, so a reader that trusted it would allocate
without bound. The file is opened without blocking, checked with ``fstat`` on the open
descriptor (a path checked before opening could be swapped for a FIFO in between), then switched
back to blocking reads; its size is then a bound every reader can trust.
"""
import io
import os
import stat

from .errors import SerializationError


def open_regular_file(path, who):
    """Open ``path`` for binary reading, refusing anything but a regular file.

    Raises ``FileNotFoundError`` for a missing path, ``IsADirectoryError`` for a directory (as
    ``open`` does) and ``SerializationError`` (a ValueError) for a FIFO, socket or device, each
    naming ``who`` (the function the user called) and the path."""
    path = os.fspath(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise FileNotFoundError(f"{who}: no such file: {path!r}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(f"{who}: {path!r} is a directory; give the path of a file "
                                    f"inside it")
        if not stat.S_ISREG(mode):
            raise SerializationError(f"{who}: {path!r} is {_kind(mode)}, not a regular file; "
                                     f"load from a file saved on disk")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def open_text(path, who, encoding="utf-8"):
    """``open(path, encoding=encoding)`` through the guard: a text file to read."""
    return io.TextIOWrapper(open_regular_file(path, who), encoding=encoding)


def file_size(f):
    """The size in bytes of the open binary file ``f``: from its descriptor, or (an in-memory
    file such as ``io.BytesIO``, which ``torch.load`` also takes) from seeking to its end."""
    try:
        return os.fstat(f.fileno()).st_size
    except (AttributeError, OSError, ValueError):   # io.UnsupportedOperation is both
        position = f.tell()
        size = f.seek(0, os.SEEK_END)
        f.seek(position)
        return size


def _kind(mode):
    for test, name in ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"
