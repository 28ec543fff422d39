"""One wording for "this feature needs an optional package", with commands that work from a
checkout (dagrad is installed from its repository, not from a package index)."""


def missing_extra(feature, package, extra="notebooks"):
    """The ImportError to raise when ``feature`` needs ``package`` (pip name), which the
    ``extra`` of pyproject.toml installs."""
    where = (f"run `make demo` in the dagrad checkout (it installs the '{extra}' extra into "
             f".venv), or `pip install -e '.[{extra}]'` there" if extra == "notebooks" else
             f"run `pip install -e '.[{extra}]'` in the dagrad checkout")
    return ImportError(f"{feature} needs {package}: {where}, or `pip install {package}`")
