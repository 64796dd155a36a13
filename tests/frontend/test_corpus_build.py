"""The real-kernel corpus (tests/frontend/kernels/): each file, written in the
style of kernels that real programs ship, builds with no diagnostic at all
(no warnings either) into a module the IR verifier accepts."""

from __future__ import annotations

from pathlib import Path

import pytest

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.verifier import module_problems

KERNELS = Path(__file__).parent / "kernels"
# structs.cl is a parser test (it holds bit-fields, which OpenCL C rejects in sema).
CORPUS = sorted(p for p in KERNELS.glob("*.cl") if p.name != "structs.cl")


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.stem)
def test_corpus_kernel_builds_cleanly(path: Path) -> None:
    result = compile_to_ir(path.read_text(), "-Werror", filename=path.name)
    assert result.log == ""
    assert module_problems(result.module) == []
    assert any(fn.is_kernel for fn in result.module.functions)


def test_corpus_is_large_enough() -> None:
    assert len(CORPUS) >= 15
