"""PyOpenCL's public names, read statically from its source (no import, so no Mako or
OpenCL driver is needed), and the frozen copy the tests use where PyOpenCL is absent.

A module's public names are its `__all__` when that is a literal list, else its
top-level functions, classes and assigned names that do not start with `_`.

    python -m tools.pyopencl_names            # print PyOpenCL's names as installed
    python -m tools.pyopencl_names --write    # refresh tests/data/pyopencl_public_names.txt
"""

from __future__ import annotations

import ast
import importlib.util
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FROZEN = ROOT / "tests" / "data" / "pyopencl_public_names.txt"
OMISSIONS = ROOT / "tests" / "data" / "pyopencl_omissions.txt"

# the PyOpenCL modules oclpy answers (oclpy.as_pyopencl maps each to oclpy's module)
MODULES = ("__init__", "array", "tools", "elementwise", "reduction", "scan", "algorithm", "clmath",
           "clrandom", "characterize/__init__", "cltypes", "bitonic_sort", "invoker", "version",
           "compyte/dtypes", "compyte/array", "capture_call", "cache")


def module_name(rel: str) -> str:
    """"characterize/__init__" -> "pyopencl.characterize"."""
    parts = ["pyopencl", *rel.split("/")]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _literal_all(tree: ast.Module) -> list[str] | None:
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
            try:
                value = ast.literal_eval(node.value)
            except ValueError:
                return None
            return [str(v) for v in value]
    return None


def _top_level(tree: ast.Module) -> list[str]:
    names: list[str] = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
    return names


def public_names(package: Path) -> dict[str, list[str]]:
    """{module: sorted public names} for the MODULES found under `package`."""
    out: dict[str, list[str]] = {}
    for rel in MODULES:
        path = package / f"{rel}.py"
        if not path.is_file():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = _literal_all(tree)
        if names is None:
            names = _top_level(tree)
        out[module_name(rel)] = sorted({n for n in names if not n.startswith("_")})
    return out


def installed_package() -> Path | None:
    """Where PyOpenCL is installed, found without importing it."""
    spec = importlib.util.find_spec("pyopencl")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def format_names(names: dict[str, list[str]]) -> str:
    return "".join(f"{module} {name}\n" for module, items in names.items() for name in items)


def read_names(text: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        if line.strip() and not line.startswith("#"):
            module, name = line.split()
            out.setdefault(module, []).append(name)
    return out


def read_omissions(text: str) -> dict[tuple[str, str], str]:
    """{(module, name): reason} from lines `module name: reason` (`#` comments)."""
    out: dict[tuple[str, str], str] = {}
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        head, _, reason = line.partition(":")
        module, name = head.split()
        out[(module, name)] = reason.strip()
    return out


def main(argv: list[str]) -> int:
    package = installed_package()
    if package is None:
        print("PyOpenCL is not installed", file=sys.stderr)
        return 1
    text = "# PyOpenCL's public names (python -m tools.pyopencl_names --write)\n" + format_names(public_names(package))
    if "--write" in argv:
        FROZEN.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
