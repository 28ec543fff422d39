"""Build the static site: every lesson executed (outputs, pictures and players included), the
README as the home page, the pages of docs/, and a lesson map.

    python -m website.build [--out build/site] [--reuse DIR] [--jobs 2]     (from the checkout)

Steps: stage the pages in build/site-src/pages (README.md -> index.md with its links made
site-relative, docs/*.md and docs/images), execute each notebooks/NN_*.ipynb into
pages/lessons/ (a fresh kernel each, run in a temporary folder with ``DAGRAD_OUTPUT`` pointing
there, so nothing is written into the repository), write the lesson map, copy MathJax 3 from the
``django-static-mathjax`` package so formulas render offline, and run ``mkdocs build`` with
website/mkdocs.yml (MkDocs, Material theme, mkdocs-jupyter).

``--reuse DIR``: an executed copy ``DIR/<stem>.ipynb`` whose recorded source digest matches the
lesson as it is now is used instead of executing it again (the test suite keeps every lesson it
executes in build/executed/, tests/notebooks/executed.py, and tests/site/ builds from those
copies). Without it every lesson is executed.

It says what it does as it goes: a line per stage and per lesson, with the time taken and, for
a lesson, the CPU time its kernel used (which a busy machine does not inflate as it does the
time on the clock). After ``mkdocs build`` the search index gets the lessons' formulas as plain
text (website/plain_math.py), so a search result never shows raw TeX.
"""
import argparse
import concurrent.futures
import functools
import hashlib
import json
import os
import pathlib
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time

from website import plain_math

ROOT = pathlib.Path(__file__).resolve().parent.parent
HERE = ROOT / "website"
CELL_TIMEOUT = 300       # a hung cell fails the build (and the notebook tests), not stalls them
DIGEST_KEY = "dagrad_source_sha256"      # notebook metadata: the digest of the lesson executed


def lessons():
    """The numbered lessons in the order to take them: the order of docs/notebooks.md's table
    of lessons (the capstone of the backprop part, 17, comes after 06); a lesson the table does
    not list comes last."""
    found = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    rank = {stem: k for k, stem in enumerate(re.findall(r"^\| `(\d\d_\w+)` \|", page, re.M))}
    return sorted(found, key=lambda path: (rank.get(path.stem, len(rank)), path.name))


def source_digest(path):
    """sha256 of a lesson file as committed and of the library that runs it: what an executed
    copy must have been made from (its pictures and players are the library's HTML, so a copy
    made before a change to viz/ shows the old player)."""
    return hashlib.sha256(pathlib.Path(path).read_bytes() + library_digest()).hexdigest()


@functools.lru_cache(maxsize=None)
def library_digest():
    """sha256 (bytes) of every Python file of the dagrad package: the folders pyproject.toml
    maps into it, each file by its path and its bytes."""
    import tomllib
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    folders = sorted(set(config["tool"]["setuptools"]["package-dir"].values()))
    digest = hashlib.sha256()
    for folder in folders:
        for source in sorted((ROOT / folder).rglob("*.py")):
            digest.update(source.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(source.read_bytes())
    return digest.digest()


# The kernel's own log shows errors only: at every start it warns that it "is running over TCP
# without encryption". Its sockets are on the loopback interface of this machine and every
# message is signed with the connection's key; that warning, seventeen times, is all a build
# would print otherwise.
QUIET_KERNEL = ["--IPKernelApp.log_level=ERROR"]


def notebook_client(nb, folder):
    """nbclient's client running ``nb`` on the python3 kernel, from ``folder``, quietly."""
    import nbclient
    return nbclient.NotebookClient(nb, timeout=CELL_TIMEOUT, kernel_name="python3",
                                   resources={"metadata": {"path": str(folder)}},
                                   extra_arguments=QUIET_KERNEL)


def execute(path, out_path):
    """Execute lesson ``path`` in a fresh kernel, in a temporary folder (the lesson's files go
    there: ``DAGRAD_OUTPUT``), and write the executed notebook to ``out_path`` atomically.
    Returns (seconds taken, CPU seconds of the kernel)."""
    import nbformat
    start, cpu = time.monotonic(), children_cpu()
    nb = nbformat.read(path, as_version=4)
    with tempfile.TemporaryDirectory(prefix=f"dagrad_{path.stem}_") as work:
        env = dict(os.environ, DAGRAD_OUTPUT=work)
        notebook_client(nb, work).execute(env=env)
    nb.metadata[DIGEST_KEY] = source_digest(path)
    write_atomically(nb, out_path)
    return time.monotonic() - start, children_cpu() - cpu


def children_cpu():
    """CPU seconds (user + system) of this process's finished children: a lesson's kernel once
    it has stopped."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


EXECUTED = ROOT / "build" / "executed"       # executed lessons the test suite keeps for reuse


def keep_executed(nb, path, folder=EXECUTED):
    """Keep ``nb``, lesson ``path`` just executed elsewhere (the notebook tests), in ``folder``
    with the lesson's digest, for a later ``--reuse``."""
    nb.metadata[DIGEST_KEY] = source_digest(path)
    write_atomically(nb, pathlib.Path(folder) / pathlib.Path(path).name)


def write_atomically(nb, out_path):
    """Write notebook ``nb`` to ``out_path`` through a temporary file and a rename, so a reader
    never sees half a file."""
    import nbformat
    out_path = pathlib.Path(out_path)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=out_path.parent, suffix=".part")
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        nbformat.write(nb, f)
    os.replace(tmp, out_path)


def reusable(path, reuse_dir):
    """The executed copy of lesson ``path`` in ``reuse_dir`` if it was made from the lesson as
    it is now, else None."""
    if reuse_dir is None:
        return None
    copy = pathlib.Path(reuse_dir) / path.name
    try:
        meta = json.loads(copy.read_text(encoding="utf-8"))["metadata"]
    except (OSError, ValueError, KeyError):
        return None
    return copy if meta.get(DIGEST_KEY) == source_digest(path) else None


def execute_lessons(dest, reuse_dir=None, jobs=2):
    """Every lesson executed into ``dest``: reused copies first, the rest ``jobs`` at a time,
    a line each as it finishes. Returns {stem: "reused" | "executed"}."""
    dest.mkdir(parents=True, exist_ok=True)
    done, todo = {}, []
    for path in lessons():
        copy = reusable(path, reuse_dir)
        if copy is not None:
            shutil.copyfile(copy, dest / path.name)
            done[path.stem] = "reused"
        else:
            todo.append(path)
    if done:
        say(f"lessons: {len(done)} reused, executed earlier from the same source ({reuse_dir})")
    if todo:
        say(f"lessons: executing {len(todo)}, {max(1, jobs)} at a time, each in a fresh kernel")
    with concurrent.futures.ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {pool.submit(execute, path, dest / path.name): path for path in todo}
        for k, future in enumerate(concurrent.futures.as_completed(futures), 1):
            seconds, cpu = future.result()      # a failing lesson fails the build, with its cell
            stem = futures[future].stem
            done[stem] = "executed"
            say(f"  {k:2}/{len(todo)} {stem:<26} {seconds:4.0f} s  (its kernel's CPU: {cpu:.0f} s)")
    return done


def say(line):
    """One line of the build's progress, printed at once (a build takes minutes)."""
    print(f"site: {line}", flush=True)


def lesson_heading(path):
    """(number, title, what it teaches, course section) from a lesson's first cell."""
    nb = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    first = "".join(nb["cells"][0]["source"])
    number, title = re.match(r"# (\d\d) · (.+)", first).groups()

    def paragraph(label):
        m = re.search(r"\*\*" + re.escape(label) + r"\*\*\s*(.+?)(?:\n\s*\n|$)", first, re.S)
        return " ".join(m.group(1).split()) if m else ""
    return number, title.strip(), paragraph("What this notebook teaches."), \
        paragraph("Course section.")


def first_sentence(text):
    """The opening clause of ``text``, up to its first full stop, colon or semicolon."""
    m = re.match(r"(.+?)[.:;](\s|$)", text)
    return (m.group(1) if m else text).rstrip() + "."


def lesson_map():
    """The lesson map page: every lesson, what it teaches and the course section it follows."""
    rows = ["# Lesson map", "",
            "The lessons in order. Each page is the lesson executed: every output, picture and "
            "step-through player is there, and the notebook itself can be downloaded from its "
            "page to run and change. Run them locally with `make notebooks`; the exercises "
            "check your answers when you run their check cells.", "",
            "| lesson | what it teaches | course section | course topics |", "|---|---|---|---|"]
    topics = course_topics()
    for path in lessons():
        number, title, teaches, section = lesson_heading(path)
        cell = lambda s: s.replace("|", "\\|")        # noqa: E731 (a table cell)
        taught = ", ".join(topics.get(number, [])) or "—"
        rows.append(f"| [{number} · {cell(title)}]({path.name}) | {cell(first_sentence(teaches))}"
                    f" | {cell(section)} | {taught} |")
    extra = ROOT / "docs" / "notebooks.md"
    rows += ["", f"The course topics are numbered as in the topic map of "
             f"[the lessons page](../{extra.name}#the-courses-topics-lesson-by-lesson), which "
             f"also says what each lesson covers in detail."]
    return "\n".join(rows) + "\n"


def course_topics():
    """{lesson number: [topic numbers it teaches]} from the topic map of docs/notebooks.md
    (topics still planned for a lesson are left out)."""
    page = (ROOT / "docs" / "notebooks.md").read_text(encoding="utf-8")
    found = {}
    for topic, taught_in in re.findall(r"^\| (\d+) \| .+? \| (\d\d(?:, \d\d)*) \| `", page,
                                       re.M):
        for lesson in taught_in.split(", "):
            found.setdefault(lesson, []).append(topic)
    return found


README_LINK = re.compile(r"\]\((docs/)([^)]*)\)")


def home_page():
    """README.md as the home page: its links into docs/ point at the site's pages."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return README_LINK.sub(lambda m: f"]({m.group(2)})", text)


def stage(staging, reuse_dir, jobs):
    """Lay out everything mkdocs builds from in ``staging``; returns the lesson run record."""
    if staging.exists():
        shutil.rmtree(staging)
    pages = staging / "pages"
    pages.mkdir(parents=True)
    (pages / "index.md").write_text(home_page(), encoding="utf-8")
    docs = sorted((ROOT / "docs").glob("*.md"))
    for page in docs:
        shutil.copyfile(page, pages / page.name)
    shutil.copytree(ROOT / "docs" / "images", pages / "images")
    shutil.copytree(HERE / "assets", pages / "assets")
    shutil.copytree(HERE / "overrides", staging / "overrides")
    shutil.copytree(mathjax_dir(), pages / "assets" / "mathjax", ignore=MATHJAX_UNUSED)
    ran = execute_lessons(pages / "lessons", reuse_dir, jobs)
    (pages / "lessons" / "index.md").write_text(lesson_map(), encoding="utf-8")
    config = (HERE / "mkdocs.yml").read_text(encoding="utf-8")
    nav = ["nav:", "  - Home: index.md", "  - Lessons:", "    - Lesson map: lessons/index.md"]
    for path in lessons():
        number, title, _, _ = lesson_heading(path)
        nav.append(f"    - {json.dumps(number + ' · ' + title, ensure_ascii=False)}: "
                   f"lessons/{path.name}")
    nav.append("  - Documentation:")
    for page in docs:
        nav.append(f"    - {page.stem}: {page.name}")
    config = config.replace("nav: []", "\n".join(nav))
    (staging / "mkdocs.yml").write_text(config, encoding="utf-8")
    return ran


# What the lesson pages do not use of MathJax 3's distribution: the speech engine, the SVG
# output and the other combined bundles (tex-mml-chtml.js is the one loaded).
MATHJAX_UNUSED = shutil.ignore_patterns("sre", "svg", "tex-chtml*", "tex-svg*", "mml-*",
                                        "tex-mml-svg.js", "node-main.js", "latest.js")


def mathjax_dir():
    """MathJax 3's browser distribution (es5/) as the django-static-mathjax package ships it
    (a plain copy of the files, in the `site` extra)."""
    try:
        import mathjax
    except ImportError:
        sys.exit("website/build.py: MathJax is missing; install the site extra: "
                 "pip install -e '.[site]'")
    return pathlib.Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"


def build(out, reuse_dir=None, jobs=2, staging=None):
    """Stage, execute and build the site into ``out``; returns (lesson run record, seconds)."""
    start = time.monotonic()
    staging = pathlib.Path(staging or ROOT / "build" / "site-src")
    say(f"staging the home page, {len(list((ROOT / 'docs').glob('*.md')))} documentation pages "
        f"and MathJax in {staging}")
    ran = stage(staging, reuse_dir, jobs)
    out = pathlib.Path(out).resolve()
    began = time.monotonic()
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")    # Material's notice about MkDocs 2
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--quiet", "--clean",
                    "-f", str(staging / "mkdocs.yml"), "-d", str(out)], check=True, env=env)
    formulas = plain_search_index(out / "search" / "search_index.json")
    say(f"mkdocs build (Material, mkdocs-jupyter): {time.monotonic() - began:.0f} s; "
        f"{formulas} formulas in the search index written as plain text")
    return ran, time.monotonic() - start


def plain_search_index(path):
    """Rewrite the search index at ``path`` with the lessons' formulas as plain text (the pages
    typeset them with MathJax; the index holds the TeX); returns how many were rewritten."""
    index = json.loads(path.read_text(encoding="utf-8"))
    count = 0
    for doc in index["docs"]:
        if doc["location"].startswith("lessons/"):
            for key in ("title", "text"):
                count += len(plain_math.FORMULA.findall(doc[key]))
                doc[key] = plain_math.plain(doc[key])
    path.write_text(json.dumps(index, ensure_ascii=False), encoding="utf-8")
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "site"))
    parser.add_argument("--reuse", default=None, help="folder of executed lessons to reuse")
    parser.add_argument("--jobs", type=int, default=2, help="lessons executed at once")
    args = parser.parse_args(argv)
    ran, seconds = build(args.out, args.reuse, args.jobs)
    executed = sum(1 for how in ran.values() if how == "executed")
    say(f"{len(ran)} lessons ({executed} executed, {len(ran) - executed} reused) -> "
        f"{args.out}/index.html in {seconds / 60:.1f} min, {cpu_minutes():.1f} CPU-minutes")


def cpu_minutes():
    """CPU minutes (user + system) of this process and its finished children so far."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    return (own.ru_utime + own.ru_stime + children_cpu()) / 60


if __name__ == "__main__":
    main()
