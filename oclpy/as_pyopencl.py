"""`pyopencl` answered by oclpy, on request: `import pyopencl.X` gives `oclpy.X`.

Libraries built on PyOpenCL (loopy, reikna, pyFAI, silx) say `import pyopencl`
themselves. `install()` puts a finder first on `sys.meta_path` that resolves
`pyopencl` and every `pyopencl.X` to oclpy's modules: the same module objects
(`sys.modules["pyopencl.array"] is oclpy.array`), so a class or a registry is
never loaded twice. A name oclpy lacks fails as PyOpenCL's would
(`ModuleNotFoundError: No module named 'pyopencl.foo'`); the real PyOpenCL, if
installed, is not looked at while the finder is in place.

    import oclpy.as_pyopencl
    oclpy.as_pyopencl.install()      # or: with oclpy.as_pyopencl.installed(): ...
    import pyopencl as cl            # oclpy
    import pyopencl.array            # oclpy.array

`oclpy run SCRIPT | -m MODULE | -c CODE` calls `install()` before running the
program (as `coverage run` installs its tracer). Nothing happens without the
request: `import pyopencl` then imports PyOpenCL, if installed. Child
processes that a program starts do not inherit the finder.
"""

from __future__ import annotations

import contextlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType
from typing import Iterator, Sequence

from . import _cl  # noqa: F401  (PyOpenCL's __init__ imports its _cl, so `pyopencl._cl` is an attribute)

ALIAS = "pyopencl"
TARGET = "oclpy"


def oclpy_name(fullname: str) -> str | None:
    """`pyopencl.X.Y` -> `oclpy.X.Y`; None for any other module name."""
    if fullname == ALIAS:
        return TARGET
    if fullname.startswith(ALIAS + "."):
        return TARGET + fullname[len(ALIAS):]
    return None


class AliasLoader(importlib.abc.Loader):
    """Hands back the already imported oclpy module; runs nothing a second time."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.own_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        module = importlib.import_module(self.target)
        self.own_spec = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        module.__spec__ = self.own_spec  # the import system set the alias's spec: keep our own


class PyOpenCLFinder(importlib.abc.MetaPathFinder):
    """Answers `pyopencl` and `pyopencl.X` with oclpy's modules of the same names."""

    def find_spec(self, fullname: str, path: Sequence[str] | None = None,
                  target: ModuleType | None = None) -> importlib.machinery.ModuleSpec | None:
        name = oclpy_name(fullname)
        if name is None:
            return None
        if name not in sys.modules and importlib.util.find_spec(name) is None:
            return None  # the path finder then fails as for any missing `pyopencl.X`
        module = importlib.import_module(name)
        return importlib.machinery.ModuleSpec(fullname, AliasLoader(name),
                                              is_package=hasattr(module, "__path__"))


_FINDER = PyOpenCLFinder()


def is_installed() -> bool:
    return _FINDER in sys.meta_path


def install() -> None:
    """Resolve `import pyopencl[.X]` to oclpy from now on (idempotent).

    Raises RuntimeError if a real PyOpenCL is already imported in this process:
    two implementations side by side would mix their objects.
    """
    loaded = sys.modules.get(ALIAS)
    if loaded is not None and loaded is not sys.modules.get(TARGET):
        raise RuntimeError(f"pyopencl is already imported from {getattr(loaded, '__file__', '?')}: "
                           "oclpy can answer 'import pyopencl' only before it is first imported")
    if not is_installed():
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Remove the finder and forget the `pyopencl` names it gave out."""
    if is_installed():
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if oclpy_name(n) is not None]:
        del sys.modules[name]


@contextlib.contextmanager
def installed() -> Iterator[None]:
    """`install()` for the duration of a `with` block."""
    was = is_installed()
    install()
    try:
        yield
    finally:
        if not was:
            uninstall()
