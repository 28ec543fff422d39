"""Where the book's data sets live on disk. The book downloads each file into ``../data``;
dagrad downloads nothing: ``download`` finds the file where the book would have put it, and
otherwise raises FileNotFoundError giving the exact path, the file's name and where the book
gets it. The layout (``root`` is ``../data`` unless a data module is given another)::

    root/FashionMNIST/raw/train-images-idx3-ubyte[.gz]  (and the three other IDX files)
    root/timemachine.txt
    root/fra-eng/fra.txt                 (or root/fra-eng.zip, which holds fra-eng/fra.txt)
    root/airfoil_self_noise.dat
    root/wikitext-2/wiki.train.tokens    (or root/wikitext-2-v1.zip)
    root/ptb/ptb.train.txt               (or root/ptb.zip)
    root/glove.6B.50d/vec.txt            (or root/glove.6B.50d.zip; the other embeddings alike)

Every file is opened once, through ``nn``'s regular-file guard (``present`` finds it, ``open_data``
/ ``read_data`` open it): a FIFO or a device at one of these paths is refused at once with a
ValueError instead of blocking or reading without end.
"""
import os
import tarfile
import zipfile

from dagrad.nn.formats.guard import file_size, open_regular_file, open_text

DATA_URL = "http://d2l-data.s3-accelerate.amazonaws.com/"
DATA_HUB = {
    "airfoil": (DATA_URL + "airfoil_self_noise.dat", "76e5be1548fd8222e5074cf0faae75edff8cf93f"),
    "fra-eng": (DATA_URL + "fra-eng.zip", "94646ad1522d915e7b0f9296181140edcf86a4f5"),
    "time_machine": (DATA_URL + "timemachine.txt", "090b5e7e70c295757f55df93cb0a180b9691891a"),
}
MAX_DEFLATE_RATIO = 1032


def missing(what, path, source=None, instead="pass root=<the folder that holds it>"):
    """The FileNotFoundError for a data file that is not at ``path``: the exact path, the
    file's name, where the book gets it, and what to do ``instead``."""
    name = os.path.basename(path)
    where = f" (the book gets it from {source})" if source else ""
    return FileNotFoundError(
        f"{what}: {os.path.abspath(path)} does not exist. dagrad downloads nothing: put the "
        f"file {name!r}{where} at that path, or {instead}.")


def present(path):
    """Whether something other than a folder is at ``path`` (a file, or a FIFO or device that
    the guard will refuse when it is opened, with an error saying what it is)."""
    return os.path.lexists(path) and not os.path.isdir(path)


def open_data(what, path, binary=False):
    """The book's data file at ``path``, opened through the regular-file guard (text in UTF-8
    unless ``binary``); ``what`` names the reader in errors."""
    return open_regular_file(path, what) if binary else open_text(path, what)


def read_data(what, path):
    """The text (UTF-8) of the book's data file at ``path`` (see ``open_data``)."""
    with open_data(what, path) as f:
        return f.read()


def download(url, folder="../data", sha1_hash=None):
    """The local path of the book's file ``url`` (a URL, or a name in ``DATA_HUB``):
    ``folder/<the URL's last part>``. The file is used as found (its SHA-1 is not checked: a
    file you made yourself in the same format works). For an archive, its unpacked folder
    (``../data/fra-eng`` for ``fra-eng.zip``) stands for it when only the folder is there.
    FileNotFoundError if neither is there."""
    if not url.startswith("http"):
        if url not in DATA_HUB:
            raise KeyError(f"download: {url!r} is neither a URL nor a name in d2l.DATA_HUB "
                           f"({sorted(DATA_HUB)})")
        url, sha1_hash = DATA_HUB[url]
    fname = os.path.join(folder, url.split("/")[-1])
    if present(fname):
        return fname
    unpacked = _unpacked(fname)
    if unpacked and os.path.isdir(unpacked):
        return unpacked                 # the archive was unpacked already; extract() keeps it
    error = missing("download", fname, url, "give the folder that holds it")
    if unpacked:
        error.args = (error.args[0] + f" The folder it unpacks into, {os.path.abspath(unpacked)},"
                      f" may be given instead.",)
    raise error


def _unpacked(fname):
    """The folder an archive unpacks into (``fra-eng.zip`` -> ``fra-eng``), or None."""
    for ext in (".tar.gz", ".tgz", ".zip", ".tar"):
        if fname.endswith(ext):
            return fname[:-len(ext)]
    return None


def extract(filename, folder=None):
    """Unpack the zip or tar archive ``filename`` into ``folder`` (default: its own folder);
    nothing when ``filename`` is the folder of an archive unpacked already.
    A member whose path would land outside ``folder`` (absolute, or through ``..``), or an
    archive that unpacks to more than a compressed file can hold, is refused."""
    if os.path.isdir(filename):         # download() found the archive already unpacked
        return
    folder = os.path.dirname(filename) if folder is None else folder
    ext = os.path.splitext(filename)[1]
    if ext not in (".zip", ".tar", ".gz"):
        raise ValueError(f"extract: {filename} is not a .zip, .tar or .tar.gz archive")
    with open_data("extract", filename, binary=True) as f:
        if ext == ".zip":
            with zipfile.ZipFile(f) as archive:
                _check_zip(archive, folder, file_size(f), filename)
                archive.extractall(folder)
        else:
            with tarfile.open(fileobj=f) as archive:
                archive.extractall(folder, filter="data")   # refuses paths outside, links


def _check_zip(archive, folder, size, filename):
    root = os.path.realpath(folder)
    total = 0
    for info in archive.infolist():
        target = os.path.realpath(os.path.join(root, info.filename))
        if os.path.commonpath([root, target]) != root:
            raise ValueError(f"extract: {filename} has a member {info.filename!r} outside "
                             f"the folder it unpacks into")
        total += info.file_size
    if total > MAX_DEFLATE_RATIO * size + (1 << 16):
        raise ValueError(f"extract: {filename} claims {total} bytes unpacked, more than a zip "
                         f"file of {size} bytes can hold")


def unpacked_member(what, root, name, member, folder=None):
    """The path of ``member`` of the book's archive ``DATA_HUB[name]`` where the book unpacks
    it: ``root/<folder>/<member>``, ``folder`` defaulting to the archive's name without its
    extension (``ptb.zip`` -> ``ptb``). When only the archive is at ``root`` it is unpacked
    there first, with ``extract``'s checks; FileNotFoundError naming both places otherwise."""
    url = DATA_HUB[name][0]
    archive = os.path.join(root, url.split("/")[-1])
    folder = folder or os.path.basename(_unpacked(archive))
    path = os.path.join(root, folder, member)
    if present(path):
        return path
    if present(archive):
        extract(archive, root)
        if present(path):
            return path
        raise ValueError(f"{what}: {archive} holds no {folder}/{member}")
    raise missing(what, path, "inside " + url,
                  f"leave the archive itself at {os.path.abspath(archive)}, or pass "
                  f"root=<the folder holding {folder}/>")


def download_extract(name, folder=None):
    """The folder the book's archive ``name`` unpacks into (``../data/fra-eng`` for
    "fra-eng"), or ``folder`` inside its parent. An archive not yet unpacked is unpacked."""
    url = DATA_HUB[name][0] if name in DATA_HUB else name
    fname = os.path.join("../data", url.split("/")[-1])
    base_dir = os.path.dirname(fname)
    data_dir = os.path.splitext(fname)[0]
    target = os.path.join(base_dir, folder) if folder else data_dir
    if not os.path.isdir(target):
        extract(download(url))
    return target
