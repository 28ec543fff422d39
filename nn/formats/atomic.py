"""``atomic_write``: a file replaced whole or not at all, for every writer of files (``nn.save``
in every format, ``torch.save``, ``dagrad.onnx.export``).

The data go to a temporary file next to the target, which is flushed to disk and renamed over
the target; the directory is flushed after the rename. A save that fails or is interrupted
leaves the previous file as it was.
"""
import errno
import os
import re
import tempfile


def atomic_write(path, write):
    """Call ``write(f)`` on a temporary file next to ``path`` and rename it over ``path``.

    - The temporary file is named after the target (``.model.npz.<pid>.XXXX.tmp``, in the same
      directory, so the rename stays on one file system) and flushed to disk before the rename;
      the directory is flushed after it, so the new name survives a power cut.
    - An interrupted or failed write removes it and leaves any previous file intact; temporary
      files left by a killed save (their process is gone) are removed by the next save of the
      same target.
    - A new file gets ``0o666`` minus the umask, as ``open(path, "wb")`` would; an existing
      target keeps its permissions, and one that cannot be written raises ``PermissionError``
      like ``open(path, "wb")`` (the rename alone would replace it).
    - A symlinked target is written through: the file it points to is replaced, the link stays
      (as ``torch.save`` does).
    """
    path = os.path.realpath(os.fspath(path))
    directory, base = os.path.split(path)
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise PermissionError(errno.EACCES, "Permission denied (saving over a read-only "
                                  "file)", path)
        mode = os.stat(path).st_mode & 0o777
    else:
        mode = 0o666 & ~_umask()
    _remove_stale_temporaries(directory, base)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=f".{base}.{os.getpid()}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            os.chmod(tmp, mode)
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_directory(directory)


def _umask():
    """The process umask (reading it means setting it; it is put back at once)."""
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _remove_stale_temporaries(directory, base):
    """Remove ``.<base>.<pid>.*.tmp`` files whose writing process no longer exists."""
    pattern = re.compile(rf"^\.{re.escape(base)}\.(\d+)\.[^.]+\.tmp$")
    for name in os.listdir(directory):
        match = pattern.match(name)
        if match and not _process_alive(int(match.group(1))):
            try:
                os.remove(os.path.join(directory, name))
            except FileNotFoundError:
                pass


def _process_alive(pid):
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError, OSError):
        return True
    return True


def _fsync_directory(directory):
    """Flush the directory entry of a rename to disk (POSIX; Windows cannot open directories)."""
    if os.name != "posix":
        return
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
