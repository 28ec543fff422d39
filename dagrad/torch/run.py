"""``python -m dagrad.torch.run script.py args...``: run a PyTorch (or d2l) program on dagrad,
unmodified.

In the process that runs the script, and only there, the names ``torch`` and ``d2l`` (with
their submodules: ``torch.nn``, ``torch.nn.functional``, ``torch.utils.data``,
``d2l.torch``, ...) resolve to ``dagrad.torch`` and ``dagrad.d2l``: an import hook placed first
on ``sys.meta_path`` answers those names with dagrad's modules, so ``import torch`` and
``from d2l import torch as d2l`` work as written. The script runs as ``__main__`` with its own
``sys.argv`` and its folder first on ``sys.path``, as ``python script.py args...`` would run it;
``python -m dagrad.torch.run -m package.module args...`` runs a module the same way.

In Jupyter, ``%load_ext dagrad.torch`` installs the same hook in the kernel (see
``load_ipython_extension`` in ``dagrad.torch``). Nothing else in the machine changes: other
processes, and this one before the hook is installed, see the real PyTorch if it is installed.
"""
import importlib
import importlib.abc
import importlib.util
import os
import runpy
import sys
import types

class DagradImports(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """The import hook: ``torch[.x.y]`` is ``dagrad.torch[.x.y]``; ``d2l`` is a package whose
    ``torch`` is ``dagrad.d2l``."""

    @staticmethod
    def target(fullname):
        top, _, rest = fullname.partition(".")
        if top == "torch":
            return "dagrad.torch" + (f".{rest}" if rest else "")
        if fullname == "d2l.torch":
            return "dagrad.d2l"
        return None

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "d2l" or self.target(fullname):
            return importlib.util.spec_from_loader(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        if spec.name == "d2l":
            shim = types.ModuleType("d2l", "d2l resolved by dagrad: d2l.torch is dagrad.d2l")
            shim.__path__, shim.__dagrad__ = [], True
            return shim
        return importlib.import_module(self.target(spec.name))

    def exec_module(self, module):
        if module.__name__ == "d2l":
            module.torch = importlib.import_module("dagrad.d2l")


HOOK = DagradImports()


def install():
    """Resolve ``torch`` and ``d2l`` to dagrad in this process from now on. Raises if the real
    ones were imported already (their modules would stay in use)."""
    taken = [name for name in ("torch", "d2l")
             if name in sys.modules and not getattr(sys.modules[name], "__dagrad__", False)]
    if taken:
        raise RuntimeError(f"{' and '.join(taken)} is already imported in this process, so its "
                           f"own modules are in use; install dagrad's before importing it (in "
                           f"Jupyter: restart the kernel and run %load_ext dagrad.torch first)")
    if HOOK not in sys.meta_path:
        sys.meta_path.insert(0, HOOK)


def uninstall():
    """Stop resolving new imports of ``torch`` and ``d2l`` to dagrad (modules already imported
    stay as they are)."""
    if HOOK in sys.meta_path:
        sys.meta_path.remove(HOOK)
    for name in [n for n in sys.modules if n == "d2l" or n.startswith(("torch.", "d2l."))
                 or n == "torch"]:
        if getattr(sys.modules[name], "__dagrad__", False) or getattr(
                sys.modules[name], "__name__", "").startswith("dagrad."):
            del sys.modules[name]


USAGE = """usage: python -m dagrad.torch.run script.py [args...]
       python -m dagrad.torch.run -m package.module [args...]

Runs a PyTorch (or d2l) program with `torch` and `d2l` resolving to dagrad.torch and
dagrad.d2l in that process only."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE, file=sys.stderr if not argv else sys.stdout)
        return 0 if argv else 2
    install()
    if argv[0] == "-m":
        if len(argv) < 2:
            print(USAGE, file=sys.stderr)
            return 2
        sys.argv = argv[1:]
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
        return 0
    script = argv[0]
    if not os.path.exists(script):
        print(f"python -m dagrad.torch.run: no such file: {script!r}", file=sys.stderr)
        return 2
    sys.argv = argv
    sys.path[0] = os.path.dirname(os.path.abspath(script))     # as `python script.py` has it
    runpy.run_path(script, run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
