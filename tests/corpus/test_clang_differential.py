"""oclpy against clang, kernel by kernel: both accept, or both reject on the same line.

The cases are the kernels of our own test tree (`tests/**/*.cl` and OpenCL C
embedded in the tests as string literals; oclpy's frontend only, so this
stays quick) and, when the corpus has been fetched (`python -m tools.corpus
fetch`), every corpus kernel, built whole as an application builds it. The
corpus part is long (tens of minutes) and is the acceptance test of the
frontend: it is skipped under CI unless OCLPY_CORPUS_TEST=1.

The oracle is the clang 23.1 of the pinned clang-tidy wheel that the `test`
extra installs, chosen before any clang on PATH so that every machine gives
the same verdicts (`OCLPY_CLANG` chooses another; see tools/corpus/oracle.py);
with no clang at all, the test skips and says why. Deliberate differences
are listed, with a reason each, in tools/corpus/known_differences.toml,
written against that clang; so are the disagreements awaiting a fix (strict
xfails: a fix turns them into XPASS, and the entry must go).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.corpus import manifest  # noqa: E402
from tools.corpus.build import run_case, worker_setup  # noqa: E402
from tools.corpus.intree import repo_cases  # noqa: E402
from tools.corpus.known import KnownDifferences  # noqa: E402
from tools.corpus.oracle import Oracle  # noqa: E402
from tools.corpus.report import classify  # noqa: E402

AGREE = ("build", "same-line", "known", "skipped")

_ORACLE = Oracle()
_KNOWN = KnownDifferences.load()
_SCRATCH = tempfile.mkdtemp(prefix="oclpy-differential-")


def _corpus_enabled() -> bool:
    if os.environ.get("OCLPY_CORPUS_TEST") == "0":
        return False
    if os.environ.get("CI") and os.environ.get("OCLPY_CORPUS_TEST") != "1":
        return False
    return True


def _corpus_cases() -> list[manifest.Case]:
    return manifest.cases() if _corpus_enabled() else []


def _explain(case: manifest.Case, result: dict, category: str) -> str:
    clang, oclpy = result["clang"], result["oclpy"]

    def where(side: dict) -> str:
        first = side.get("first")
        return f"{side['status']} at {first['file'] or '<kernel>'}:{first['line']}: {first['message']}" \
            if first else side["status"]

    return (f"{case.id}: {category}\n  clang: {where(clang)}\n  oclpy: {where(oclpy)}\n"
            f"  options: {' '.join(case.options)} -cl-std={case.std}\n"
            f"(a deliberate difference belongs in tools/corpus/known_differences.toml, with its reason)")


def _check(case: manifest.Case, depth: str, request: pytest.FixtureRequest) -> None:
    if not _ORACLE.available:
        pytest.skip(f"no clang oracle: {_ORACLE.reason}")
    if case.skip:
        pytest.skip(case.skip)
    pending = _KNOWN.find_pending(case.id)
    if pending:
        request.applymarker(pytest.mark.xfail(strict=pending.strict, reason=f"pending: {pending.reason}"))
    worker_setup(_SCRATCH)
    job = {"id": case.id, "path": case.path, "text": case.text, "directory": str(case.directory),
           "options": case.options, "std": case.std, "depth": depth, "write_dir": _SCRATCH,
           "clang_cache": _SCRATCH}
    result = run_case(job)
    category = classify(result, _KNOWN)
    assert category in AGREE, _explain(case, result, category)


@pytest.mark.parametrize("case", repo_cases(), ids=lambda c: c.id)
def test_in_tree_kernel_agrees_with_clang(case: manifest.Case, request: pytest.FixtureRequest) -> None:
    _check(case, "frontend", request)


@pytest.mark.parametrize("case", _corpus_cases(), ids=lambda c: c.id)
def test_corpus_kernel_agrees_with_clang(case: manifest.Case, request: pytest.FixtureRequest) -> None:
    _check(case, "build", request)


def test_known_differences_have_reasons() -> None:
    """Each entry explains itself; the loader refuses an empty reason."""
    for entry in _KNOWN.entries + _KNOWN.pending:
        assert entry.category in ("*", "fail", "other-line", "accepts"), entry
        assert len(entry.reason.split()) >= 3, entry
