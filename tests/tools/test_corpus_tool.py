"""tools/corpus: the manifest's globs and options, fetching from a mirror,
and the classification of a pair of verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools.corpus import manifest  # noqa: E402
from tools.corpus.fetch import fetch_project  # noqa: E402
from tools.corpus.known import Difference, KnownDifferences  # noqa: E402
from tools.corpus.oracle import first_error  # noqa: E402
from tools.corpus.report import Report, classify, normalise  # noqa: E402


@pytest.mark.parametrize("path, pattern, hit", [
    ("a/b.cl", "a/*.cl", True),
    ("a/x/b.cl", "a/*.cl", False),
    ("a/x/b.cl", "a/**/*.cl", True),
    ("a/b.cl", "a/**/*.cl", True),
    ("a/b/c.h", "a/**", True),
    ("src/x_part2.opencl", "src/x_part[234].opencl", True),
])
def test_glob_match(path: str, pattern: str, hit: bool) -> None:
    assert manifest.glob_match(path, pattern) is hit


def test_run_line_options_take_std_defines_and_continuations() -> None:
    text = ("// RUN: %clang_cc1 %s -verify -cl-std=CL2.0 \\\n"
            "// RUN:   -DFOO=1 -D BAR -triple spir-unknown-unknown\n"
            "// RUN: %clang_cc1 %s -cl-std=CL1.2\n")
    assert manifest.run_line_options(text) == (["-DFOO=1", "-DBAR"], "CL2.0")


def test_raw_string_extraction_keeps_line_numbers() -> None:
    text = '// a comment\nR"(\nkernel void f() {}\n)"\n'
    body = manifest.extract_raw_string(text)
    assert body.splitlines()[2] == "kernel void f() {}"


def test_the_manifest_is_complete() -> None:
    projects = manifest.load()
    assert len({p.repo for p in projects}) >= 40
    for p in projects:
        assert len(p.commit) == 40 and p.licence and p.kernels, p.name


def _result(oclpy: str, clang: str, o_line: int = 3, c_line: int = 3) -> dict:
    def side(status: str, line: int) -> dict:
        return {"status": status, "first": None if status == "ok" else {"file": "", "line": line, "message": "m"}}
    return {"id": "p:k.cl", "oclpy": side(oclpy, o_line), "clang": side(clang, c_line)}


@pytest.mark.parametrize("oclpy, clang, o_line, category", [
    ("ok", "ok", 0, "build"),
    ("error", "ok", 3, "fail"),
    ("error", "error", 3, "same-line"),
    ("error", "error", 4, "other-line"),
    ("ok", "error", 0, "accepts"),
    ("internal", "ok", 3, "internal"),
    ("timeout", "ok", 3, "timeout"),
])
def test_classify(oclpy: str, clang: str, o_line: int, category: str) -> None:
    assert classify(_result(oclpy, clang, o_line)) == category


def test_a_verdict_of_clang_alone_is_skipped() -> None:
    """`python -m tools.corpus --what clang` asks only clang; there is no pair to classify."""
    result = _result("ok", "error")
    del result["oclpy"]
    assert classify(result) == "skipped"


def test_a_known_difference_is_reported_as_known() -> None:
    known = KnownDifferences([Difference("p:*.cl", "fail", "oclpy rejects this on purpose")])
    assert classify(_result("error", "ok"), known) == "known"
    assert classify(_result("error", "error", 4), known) == "other-line"


def test_first_error_and_normalise() -> None:
    log = "<kernel>:3:10: warning: w\ninc/a.h:7:2: error: use of undeclared identifier 'foo'\n"
    diag = first_error(log, ("<kernel>",))
    assert (diag.file, diag.line) == ("a.h", 7)
    assert normalise(diag.message) == "use of undeclared identifier '_'"


def test_report_line_and_groups(tmp_path: Path) -> None:
    report = Report()
    for r, category in [(_result("ok", "ok"), "build"), (_result("error", "ok"), "fail"),
                        (_result("error", "error"), "same-line")]:
        report.add(r, category)
    assert report.line().startswith("corpus: 1 build, 1 fail where clang accepts, "
                                    "1 rejected as clang rejects, 0 internal errors")
    assert report.groups()[0]["count"] == 1
    report.save(tmp_path / "r.json")
    assert json.loads((tmp_path / "r.json").read_text())["counts"]["fail"] == 1


def test_fetch_from_a_mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    work = tmp_path / "work"
    (work / "k").mkdir(parents=True)
    (work / "k" / "a.cl").write_text("kernel void a() {}\n")
    (work / "k" / "h.h").write_text("#define X 1\n")
    (work / "other.c").write_text("int main;\n")
    git = ["git", "-C", str(work), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run(["git", "init", "-q", str(work)], check=True)
    subprocess.run(git + ["add", "."], check=True)
    subprocess.run(git + ["commit", "-qm", "x"], check=True)
    commit = subprocess.run(git + ["rev-parse", "HEAD"], capture_output=True, text=True).stdout.strip()
    mirrors = tmp_path / "mirrors" / "o+r"
    mirrors.mkdir(parents=True)
    subprocess.run(["git", "clone", "-q", "--bare", str(work), str(mirrors / "repo")], check=True)
    monkeypatch.setenv("OCLPY_CORPUS_MIRRORS", str(tmp_path / "mirrors"))
    project = manifest.Project("p", "o/r", commit, "MIT", "test", ["k/*.cl"], headers=["k/*.h"])
    root = tmp_path / "corpus"
    assert fetch_project(project, root, log=lambda _: None)
    assert (root / "o+r" / "k" / "a.cl").exists() and not (root / "o+r" / "other.c").exists()
    cases = manifest.cases(root, [project])
    assert [c.id for c in cases] == ["p:k/a.cl"]


def test_a_case_key_does_not_depend_on_where_the_corpus_lies(monkeypatch: pytest.MonkeyPatch) -> None:
    from tools.corpus.__main__ import case_key

    def case(root: str, define: str = "N=1") -> manifest.Case:
        return manifest.Case("p", "k.cl", "kernel void k() {}", Path(root) / "p", [f"-I{root}/p/inc", f"-D{define}"],
                             "CL1.2")

    monkeypatch.setenv("OCLPY_CORPUS_DIR", "/a/corpus")
    here = case_key(case("/a/corpus"))
    monkeypatch.setenv("OCLPY_CORPUS_DIR", "/b/elsewhere")
    assert case_key(case("/b/elsewhere")) == here
    assert case_key(case("/b/elsewhere", "N=2")) != here
