"""The frontend benchmark's 1,000-line file (benchmarks/frontend/kernels_1000.cl)
stays a valid program: it builds with no diagnostic into a verified module,
so the benchmark measures a real compile."""

from __future__ import annotations

from pathlib import Path

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.verifier import module_problems

FILE = Path(__file__).resolve().parents[2] / "benchmarks" / "frontend" / "kernels_1000.cl"


def test_benchmark_file_builds_cleanly() -> None:
    source = FILE.read_text()
    assert source.count("\n") >= 1000
    result = compile_to_ir(source, "-Werror", filename=FILE.name)
    assert result.log == ""
    assert module_problems(result.module) == []
    assert sum(fn.is_kernel for fn in result.module.functions) >= 30
