"""oclpy's preprocessor against clang's, run live (tools/pp_compare.py): on each
preprocessor case and on every .cl file of the tests, the token streams and
the diagnostics must agree. Skipped, with the reason printed, when no clang
is on PATH (`OCLPY_CLANG`, else clang, clang-30 ... clang-14)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.pp_compare import CLANG_NAMES, compare, find_clang  # noqa: E402

CLANG = find_clang()
pytestmark = pytest.mark.skipif(CLANG is None, reason="no clang on PATH (tried " + ", ".join(CLANG_NAMES) + ")")

CASES = sorted((ROOT / "tests" / "frontend" / "preprocessor_cases").glob("*.cl"))
KERNELS = sorted(p for p in (ROOT / "tests").rglob("*.cl")  # not the differential's extracted copies
                 if "preprocessor_cases" not in p.parts and not p.name.endswith(".corpus.cl"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_case_agrees_with_clang(path):
    result = compare(CLANG, path)
    assert result.same_tokens, result.token_diff(path.name)
    assert result.our_diags == result.clang_diags


@pytest.mark.parametrize("path", KERNELS, ids=lambda p: str(p.relative_to(ROOT)))
def test_test_kernel_agrees_with_clang(path):
    result = compare(CLANG, path)
    assert result.same_tokens, result.token_diff(path.name)


@pytest.mark.parametrize("options", ["-cl-std=CL2.0", "-D N=3 -DFLAG"])
def test_options_reach_both(options):
    result = compare(CLANG, ROOT / "tests" / "frontend" / "preprocessor_cases" / "if_arithmetic.cl", options)
    assert result.same_tokens, result.token_diff("if_arithmetic.cl")


@pytest.mark.parametrize("seed", range(25))
def test_random_program_agrees_with_clang(seed, tmp_path):
    import random

    from tools.pp_fuzz import _normal, program
    path = tmp_path / f"fuzz{seed}.cl"
    path.write_text(program(random.Random(seed)))
    result = compare(CLANG, path)
    assert result.same_tokens, path.read_text() + result.token_diff(path.name)
    assert _normal(result.our_diags) == _normal(result.clang_diags), path.read_text()
