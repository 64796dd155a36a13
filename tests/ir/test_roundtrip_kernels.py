"""Round trip over every OpenCL C kernel of the test tree: each source builds
to IR at -O0 and -O2, the verifier accepts it, and print(parse(print(m))) is
print(m), byte for byte.

The sources: tests/frontend/kernels/*.cl, every string literal holding a
kernel in the Python test files (end-to-end, target, runtime and frontend
tests; sources written to fail compilation are skipped, since they make no
IR), and the demo's kernels in oclpy/demo.py.
"""

from __future__ import annotations

import ast
from functools import lru_cache
from pathlib import Path

import pytest

from oclpy.cli import demo
from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.parser import parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import verify_module
from oclpy.passes.manager import PIPELINES, run_pipeline

TESTS = Path(__file__).parent.parent
PY_SOURCES = ("e2e", "targets", "runtime", "frontend", "passes")


def _kernel_literals(path: Path) -> list[str]:
    try:
        tree = ast.parse(path.read_text())
    except (SyntaxError, UnicodeDecodeError):
        return []
    return [node.value for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str)
            and ("__kernel" in node.value or "kernel void" in node.value) and "{" in node.value
            and not _is_ir_text(node.value)]


def _is_ir_text(text: str) -> bool:
    """IR written as text in a test (`kernel void @k(ptr<global> ...)`), not OpenCL C."""
    return "ptr<" in text or "@" in text


@lru_cache(maxsize=1)
def kernel_sources() -> dict[str, str]:
    sources: dict[str, str] = {}
    for cl in sorted((TESTS / "frontend" / "kernels").glob("*.cl")):
        sources[f"kernels/{cl.name}"] = cl.read_text()
    for folder in PY_SOURCES:
        for py in sorted((TESTS / folder).rglob("*.py")):
            for k, text in enumerate(_kernel_literals(py)):
                sources[f"{py.relative_to(TESTS)}:{k}"] = text
    for k, text in enumerate(_kernel_literals(Path(demo.__file__))):
        sources[f"demo.py:{k}"] = text
    return sources


def _build(source: str, level: int, options: str = ""):
    module = compile_to_ir(source, options).module
    run_pipeline(module, PIPELINES[f"O{level}"])
    return module


def _options(source: str) -> str:
    return "-cl-std=CL2.0" if "generic" in source or "CL2" in source else ""


@pytest.mark.parametrize("level", [0, 2])
def test_every_test_kernel_round_trips(level: int) -> None:
    built = failed = 0
    problems: list[str] = []
    for name, source in kernel_sources().items():
        try:
            module = _build(source, level, _options(source))
        except CompileError:
            failed += 1  # an error-path test's source, or one needing -D options
            continue
        built += 1
        try:
            verify_module(module)
        except Exception as exc:  # noqa: BLE001 - collected and reported below
            problems.append(f"{name}: {exc}")
            continue
        text = print_module(module)
        again = print_module(parse_module(text, name))
        if again != text:
            problems.append(f"{name}: print(parse(print(m))) differs")
    assert not problems, "\n".join(problems)
    assert built >= 75, (built, failed)


# Sources of the corpus and the demo that are written to fail (they test diagnostics).
EXPECTED_TO_FAIL = {"kernels/structs.cl"}


def test_corpus_and_demo_kernels_all_build() -> None:
    for name, source in kernel_sources().items():
        if name.startswith(("kernels/", "demo.py")) and name not in EXPECTED_TO_FAIL:
            _build(source, 2)


def test_the_collection_finds_each_kind_of_source() -> None:
    names = kernel_sources()
    assert sum(n.startswith("kernels/") for n in names) >= 20
    assert any(n.startswith("e2e/") for n in names)
    assert sum(n.startswith("demo.py") for n in names) == len(demo.CASES)
