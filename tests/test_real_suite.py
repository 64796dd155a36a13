"""The real benchmark suite (benchmarks/real) cannot rot: every case builds on oclpy's cpu
device at tiny sizes and matches its NumPy reference, and every vendored project names
its repository, pinned commit and licence, with the licence file and the kernel files present.

Only oclpy runs here; the peers (PoCL, Intel's CPU runtime) are the runner's business
(`python -m benchmarks.real --small` is the smoke run over all of them).
"""

from __future__ import annotations

import pytest

from benchmarks.real import sources, suite
from benchmarks.real.case import check
from benchmarks.real.impls import oclpy_impl

_IMPL = []


def _oclpy():
    if not _IMPL:
        _IMPL.append(oclpy_impl())
    return _IMPL[0]


@pytest.mark.parametrize("name", list(suite.MAKERS))
def test_case_builds_and_matches_numpy(name):
    case = suite.MAKERS[name](True)
    impl = _oclpy()
    p = impl.prepare(case, case.source)
    impl.run(p)
    assert check(case, impl.outputs(case, p)) is None


@pytest.mark.parametrize("origin", sources.origins(), ids=lambda o: o["project"])
def test_vendored_project_names_its_origin(origin):
    folder = sources.KERNELS / origin["project"]
    for key in ("name", "repo", "commit", "licence"):
        assert origin.get(key), f"{folder}/ORIGIN.toml lacks {key}"
    for f in list(origin["licence_files"]) + list(origin["files"]):
        assert (folder / f).is_file(), f"{folder / f} is missing"


def test_every_vendored_project_is_used():
    used = {suite.MAKERS[n](True).project for n in suite.MAKERS}
    assert used == {o["project"] for o in sources.origins()}


def test_suite_spans_the_brief():
    cases = [suite.MAKERS[n](True) for n in suite.MAKERS]
    kernels = {(c.project, c.source, k) for c in cases for k in c.kernels()}  # two files may both say mmul
    assert len(kernels) >= 30 and len({c.project for c in cases}) >= 8


def test_base_revision_runs_in_a_child_and_is_checked():
    """`--base REV`: oclpy at another commit, in a child process, answers like an Impl."""
    from benchmarks.real import baseline, measure

    case = dict(suite.select(["handson_mmul_row_priv"]))["handson_mmul_row_priv"](True)
    impl = baseline.BaseImpl(baseline.export_tree("HEAD"), small=True)
    p, res = measure.first_run(impl, case, case.source)  # type: ignore[arg-type]
    assert p is not None and res.error is None, res.error
    assert measure.timed_run(impl, case, p) > 0  # type: ignore[arg-type]
    assert len(impl.versions()["commit"]) == 40


def test_base_revision_that_is_not_a_commit():
    from benchmarks.real import baseline

    with pytest.raises(SystemExit, match="--base no-such-rev: not a commit here"):
        baseline.export_tree("no-such-rev")


def test_evidence_names_the_strategy_and_the_vector_widths(capsys):
    from benchmarks.real import evidence

    assert evidence.main(["handson_mmul_row_priv", "--small"]) == 0
    out = capsys.readouterr().out
    assert "mmul: widened to 16 work-items (mmul.unguarded.wide); lane arrays, 4096 bytes per work-item" in out
    assert "vector <16 x ...> instructions" in out


def test_evidence_reads_elf_sections_and_refuses_other_files(capsys):
    from benchmarks.real import evidence

    assert evidence.elf_section(b"not an object file at all" * 4, ".ocl.obj") is None
    assert evidence.main(["no_such_case"]) == 2
    assert "unknown case(s) no_such_case; known: clblast_xgemm" in capsys.readouterr().err
