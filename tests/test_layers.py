"""The folder tree is the architecture: imports point down the layers.

Every module of the `oclpy` package is read (not imported) and each of its
imports of another oclpy module is checked against three rules:
- it points down (or sideways inside one layer) in `LAYERS`;
- the folders do not import each other in a cycle;
- no `_private` name is imported from another module;
and an oclpy module is imported at module level only: a function-level import
is for optional dependencies (cuda-bindings, PyOpenCL), never for oclpy itself.
The companions (PyOpenCL's modules) and kernelgen/ reach the runtime only
through the public face, as PyOpenCL's own do, and their modules import each
other in no cycle (a package's __init__ counted as loaded with its modules).
The last tests prove the checker would fail on a bad import.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "oclpy"

# Bottom first. A module belongs to the first entry that is a prefix of its
# dotted name; a module may import its own layer and the layers below it.
LAYERS: list[tuple[str, ...]] = [
    ("oclpy.diagnostics",),
    ("oclpy.ir",),
    ("oclpy.analysis",),
    ("oclpy.passes",),
    ("oclpy.frontend",),
    ("oclpy.targets",),
    ("oclpy.compiler",),
    ("oclpy.runtime",),
    ("oclpy.cltypes", "oclpy.version", "oclpy.__init__"),
    ("oclpy.kernelgen",),
    ("oclpy.array", "oclpy.elementwise", "oclpy.reduction", "oclpy.scan", "oclpy.algorithm",
     "oclpy.bitonic_sort", "oclpy.clmath", "oclpy.clrandom", "oclpy.tools", "oclpy.mempool",
     "oclpy.characterize", "oclpy._cl", "oclpy.compyte", "oclpy.invoker"),
    ("oclpy.dask",),  # the optional Dask extra, built on the companions' kernel generators
    ("oclpy.cli", "oclpy.as_pyopencl"),
]


@dataclass(frozen=True)
class Import:
    importer: str       # dotted module name of the importing file
    target: str         # dotted module name imported (a module or a package)
    names: tuple[str, ...]
    line: int
    in_function: bool


def module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    return ".".join(parts)


def resolve(importer: str, is_package: bool, level: int, module: str | None) -> str:
    if level == 0:
        return module or ""
    base = importer.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports_of(source: str, importer: str, is_package: bool) -> list[Import]:
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool) -> None:
        for child in ast.iter_child_nodes(node):
            inner = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.ImportFrom):
                target = resolve(importer, is_package, child.level, child.module)
                found.append(Import(importer, target, tuple(a.name for a in child.names), child.lineno, in_function))
            elif isinstance(child, ast.Import):
                for alias in child.names:
                    found.append(Import(importer, alias.name, (), child.lineno, in_function))
            visit(child, inner)

    visit(ast.parse(source), False)
    return [i for i in found if i.target == "oclpy" or i.target.startswith("oclpy.")]


def all_imports(root: Path = PACKAGE) -> list[Import]:
    result = []
    for path in sorted(root.rglob("*.py")):
        name = module_name(path, root)
        is_package = path.name == "__init__.py"
        if is_package:
            name = name[: -len(".__init__")]
        result += imports_of(path.read_text(), name, is_package)
    return [part for i in result for part in submodule_imports(i, root)]


def submodule_imports(i: Import, root: Path) -> list[Import]:
    """`from .. import compiler` imports the module `oclpy.compiler`, not the package above it."""
    subs = [n for n in i.names if is_submodule(root, i.target, n)]
    if not subs or len(subs) != len(i.names):
        return [i]
    return [Import(i.importer, f"{i.target}.{n}", (), i.line, i.in_function) for n in subs]


def layer_of(module: str) -> int:
    if module == "oclpy":
        module = "oclpy.__init__"
    for rank, prefixes in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return rank
    raise LookupError(f"{module} is in no layer: add it to LAYERS in {Path(__file__).name}")


def is_submodule(package_dir: Path, target: str, name: str) -> bool:
    path = package_dir.parent.joinpath(*target.split("."), name)
    return path.with_suffix(".py").exists() or (path / "__init__.py").exists()


def upward_imports(imports: list[Import]) -> list[str]:
    return [f"{i.importer}:{i.line} imports {i.target} (layer {layer_of(i.target)} above {layer_of(i.importer)})"
            for i in imports if layer_of(i.target) > layer_of(i.importer)]


def private_imports(imports: list[Import], root: Path = PACKAGE) -> list[str]:
    bad = []
    for i in imports:
        for name in i.names:
            if name.startswith("_") and not name.startswith("__") and not is_submodule(root, i.target, name):
                bad.append(f"{i.importer}:{i.line} imports private {name} from {i.target}")
    return bad


def function_level_imports(imports: list[Import]) -> list[str]:
    return [f"{i.importer}:{i.line} imports {i.target} inside a function" for i in imports if i.in_function]


def folder(module: str, root: Path = PACKAGE) -> str:
    path = root.parent.joinpath(*module.split("."))
    return module if (path / "__init__.py").exists() else module.rpartition(".")[0]


def folder_cycles(imports: list[Import], root: Path = PACKAGE) -> list[list[str]]:
    """Cycles in the graph of folders (packages), each as its list of folders."""
    edges: dict[str, set[str]] = {}
    for i in imports:
        a, b = folder(i.importer, root), folder(i.target, root)
        if a != b and not b.startswith(a + ".") :
            edges.setdefault(a, set()).add(b)
    return cycles_of(edges)


def cycles_of(edges: dict[str, set[str]]) -> list[list[str]]:
    """Cycles in a directed graph, each as its list of nodes (the first one repeated at the end)."""
    cycles: list[list[str]] = []
    state: dict[str, int] = {}

    def walk(node: str, stack: list[str]) -> None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt])
            elif nxt not in state:
                walk(nxt, stack)
        stack.pop()
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            walk(node, [])
    return cycles


COMPANIONS = next(layer for layer in LAYERS if "oclpy.array" in layer) + ("oclpy.dask", "oclpy.kernelgen")
FACE = ("oclpy", "oclpy.cltypes")


def is_companion(module: str) -> bool:
    return any(module == p or module.startswith(p + ".") for p in COMPANIONS)


def non_face_imports(imports: list[Import]) -> list[str]:
    """Imports by a companion (or kernelgen) of anything but the face, kernelgen and the companions."""
    return [f"{i.importer}:{i.line} imports {i.target}" for i in imports
            if is_companion(i.importer) and i.target not in FACE and not is_companion(i.target)]


def module_edges(imports: list[Import], root: Path = PACKAGE) -> dict[str, set[str]]:
    """The modules each module loads: the target (`from pkg import mod` loads pkg.mod too)
    and each package around it that the importer is not itself inside (its __init__ runs)."""
    edges: dict[str, set[str]] = {}
    for i in imports:
        targets = [i.target, *(f"{i.target}.{n}" for n in i.names if is_submodule(root, i.target, n))]
        for target in targets:
            parts = target.split(".")
            for k in range(1, len(parts) + 1):
                module = ".".join(parts[:k])
                if module != i.importer and not i.importer.startswith(module + "."):
                    edges.setdefault(i.importer, set()).add(module)
    return edges


def companion_cycles(imports: list[Import], root: Path = PACKAGE) -> list[list[str]]:
    """Cycles among the companion modules (and kernelgen's)."""
    edges = module_edges([i for i in imports if is_companion(i.importer)], root)
    return cycles_of({a: {b for b in bs if is_companion(b)} for a, bs in edges.items()})


@pytest.fixture(scope="module")
def imports() -> list[Import]:
    return all_imports()


def test_every_module_has_a_layer(imports: list[Import]) -> None:
    for i in imports:
        layer_of(i.importer)
        layer_of(i.target)


def test_imports_point_down(imports: list[Import]) -> None:
    assert upward_imports(imports) == []


def test_no_private_name_crosses_a_module(imports: list[Import]) -> None:
    assert private_imports(imports) == []


def test_oclpy_modules_are_imported_at_module_level(imports: list[Import]) -> None:
    assert function_level_imports(imports) == []


def test_folders_import_each_other_in_no_cycle(imports: list[Import]) -> None:
    assert folder_cycles(imports) == []


def test_companions_use_the_public_face(imports: list[Import]) -> None:
    assert non_face_imports(imports) == []


def test_companion_modules_import_each_other_in_no_cycle(imports: list[Import]) -> None:
    assert companion_cycles(imports) == []


def test_every_module_has_a_name_of_its_own() -> None:
    """One name per file in the tree: a name says which module it is without its folder."""
    seen: dict[str, list[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        if path.name not in ("__init__.py", "__main__.py"):
            seen.setdefault(path.name, []).append(str(path.relative_to(PACKAGE)))
    assert {name: paths for name, paths in seen.items() if len(paths) > 1} == {}


# The checker itself, on a small tree written for the test.

def make_tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "oclpy"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_checker_finds_an_upward_import(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"__init__.py": "", "ir/__init__.py": "", "runtime/__init__.py": "",
                                "ir/values.py": "from ..runtime import queue\n", "runtime/queue.py": ""})
    found = upward_imports(all_imports(root))
    assert found == ["oclpy.ir.values:1 imports oclpy.runtime.queue (layer 7 above 1)"]


def test_checker_finds_a_private_import_and_a_lazy_import(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"__init__.py": "", "ir/__init__.py": "",
                                "ir/a.py": "def f():\n    from .b import _helper\n", "ir/b.py": "_helper = 1\n"})
    found = all_imports(root)
    assert private_imports(found, root) == ["oclpy.ir.a:2 imports private _helper from oclpy.ir.b"]
    assert function_level_imports(found) == ["oclpy.ir.a:2 imports oclpy.ir.b inside a function"]


def test_checker_finds_a_folder_cycle(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"__init__.py": "", "frontend/__init__.py": "", "frontend/c/__init__.py": "",
                                "frontend/spirv/__init__.py": "",
                                "frontend/c/a.py": "from ..spirv import b\n",
                                "frontend/spirv/b.py": "from ..c import a\n"})
    assert folder_cycles(all_imports(root), root) == [["oclpy.frontend.c", "oclpy.frontend.spirv",
                                                       "oclpy.frontend.c"]]


def test_checker_finds_a_companion_using_the_runtime_and_a_cycle_through_a_package(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"__init__.py": "", "runtime/__init__.py": "", "runtime/queue.py": "",
                                "array/__init__.py": "from . import core, functions\n",
                                "array/core.py": "from ..runtime.queue import enqueue_marker\n",
                                "array/functions.py": "from ..scan import scan\n",
                                "scan.py": "from .array.core import Array\n"})
    found = all_imports(root)
    assert non_face_imports(found) == ["oclpy.array.core:1 imports oclpy.runtime.queue"]
    assert companion_cycles(found, root) == [["oclpy.array", "oclpy.array.functions", "oclpy.scan",
                                              "oclpy.array"]]
