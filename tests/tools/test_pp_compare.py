"""tools/pp_compare.py and tools/pp_suite.py: which clang they run, the corpus
kernels with their own build options, and the suite's `//O` options. The
comparisons themselves run when a clang is on PATH."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools import pp_compare  # noqa: E402
from tools.corpus.manifest import Project  # noqa: E402
from tools.pp_suite import options_of  # noqa: E402

CLANG = pp_compare.find_clang()
needs_clang = pytest.mark.skipif(CLANG is None, reason="no clang on PATH")


def _corpus(tmp_path: Path) -> tuple[Path, Project]:
    """A one-kernel corpus whose kernel needs its project's -D, include dir and -cl-std."""
    base = tmp_path / "someone+proj"
    (base / "inc").mkdir(parents=True)
    (base / "src").mkdir()
    (base / ".commit").write_text("0" * 40 + "\n")
    (base / "inc" / "two.h").write_text("#define TWO (N + N)\n")
    (base / "src" / "k.cl").write_text('#include "two.h"\n#if __OPENCL_C_VERSION__ >= 200\nint v = TWO;\n#endif\n')
    project = Project(name="proj", repo="someone/proj", commit="0" * 40, licence="MIT", domain="test",
                      kernels=["src/*.cl"], options="-DN=3", include_dirs=["inc"], std="CL2.0")
    return tmp_path, project


def test_corpus_jobs_carry_each_kernels_own_options(tmp_path: Path) -> None:
    root, project = _corpus(tmp_path)
    [job] = pp_compare.corpus_jobs(root=root, projects=[project])
    assert job.name == "proj:src/k.cl"
    assert job.path == root / "someone+proj" / "src" / "k.cl"
    assert job.options[0] == "-DN=3"
    assert f"-I{root / 'someone+proj' / 'inc'}" in job.options
    assert job.options[-1] == "-cl-std=CL2.0"


@needs_clang
def test_corpus_kernel_agrees_with_its_options(tmp_path: Path) -> None:
    root, project = _corpus(tmp_path)
    [job] = pp_compare.corpus_jobs(root=root, projects=[project])
    result = pp_compare.compare(CLANG, job.path, job.options)
    assert result.same_tokens, result.token_diff(job.name)
    assert [t for _, t in result.ours] == ["int", "v", "=", "(", "3", "+", "3", ")", ";"]


def test_find_clang_takes_oclpy_clang_when_it_names_a_driver(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "clang-29"
    fake.write_text("#!/bin/sh\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}")
    monkeypatch.setenv("OCLPY_CLANG", "clang-29")
    assert pp_compare.find_clang() == str(fake)
    monkeypatch.setenv("OCLPY_CLANG", "clang-tidy")  # no -E in clang-tidy: the PATH's clang instead
    assert pp_compare.find_clang() == str(fake)


def test_token_diff_shows_token_changes_only() -> None:
    same_layout = pp_compare.Result([(1, "a"), (1, "b")], [(1, "a"), (2, "b")], [], [])
    assert same_layout.token_diff("k") == ""
    changed = pp_compare.Result([(1, "a"), (1, "x")], [(1, "a"), (1, "b")], [], [])
    assert "clang: b\n  oclpy: x" in changed.token_diff("k")


@pytest.mark.parametrize("text, options, reason", [
    ("//O -DTEST\n//O -DFOO=0x1234567ULL\n", ["-DTEST", "-DFOO=0x1234567ULL"], ""),
    ("//O -S.\n//O -I$P(inc)\n", ["-I/t", "-I/t/inc"], ""),
    ("//O --variadics\n//O -Werror\n", [], ""),
    ("//O --c++11\n", [], "C++ only (--c++11)"),
])
def test_suite_options(text: str, options: list[str], reason: str) -> None:
    assert options_of(text, Path("/t")) == (options, reason)
