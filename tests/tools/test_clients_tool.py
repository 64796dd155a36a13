"""tools/clients.py: counting pytest's lines, the table, choosing test files, a real
run of a small library folder under both implementations, and its error paths."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tools import clients  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

LOG = """== test_a.py
test_a.py::test_one PASSED                                   [ 25%]
test_a.py::test_two[ctx-float32] FAILED                      [ 50%]
test_a.py::test_three SKIPPED (no double)                    [ 75%]
test_a.py::test_four ERROR                                   [100%]
FAILED test_a.py::test_two[ctx-float32] - AssertionError
"""


def test_count_reads_verbose_lines_only():
    outcome = clients.count(LOG)
    assert outcome.counts == {"passed": 1, "failed": 2, "skipped": 1}
    assert outcome.failures == ["test_a.py::test_two[ctx-float32]", "test_a.py::test_four"]


def test_table_puts_pyopencl_first_and_marks_limits():
    slow = clients.Outcome({"passed": 3, "failed": 1, "skipped": 0}, timed_out=True, crashed=["t.py"])
    results = {"loopy": {"oclpy": slow, "pyopencl": clients.Outcome({"passed": 4, "failed": 0, "skipped": 2})}}
    text = clients.table(results, {"loopy": "2025.2"})
    assert text.splitlines() == [
        "| library | PyOpenCL + PoCL | oclpy (`oclpy run -m pytest`) |",
        "| --- | --- | --- |",
        "| loopy 2025.2 | 4 passed, 0 failed, 2 skipped | 3 passed, 1 failed, 1 file(s) crashed (time limit) |"]


def test_test_files_subset_or_every_file(tmp_path):
    (tmp_path / "sub").mkdir()
    for name in ("test_b.py", "sub/test_a.py", "helper.py"):
        (tmp_path / name).write_text("")
    lib = clients.Library("x", "x", "x.test")
    assert clients.test_files(lib, tmp_path, full=False) == ["sub/test_a.py", "test_b.py"]
    lib = clients.Library("x", "x", "x.test", exclude=("test_b.py",))
    assert clients.test_files(lib, tmp_path, full=False) == ["sub/test_a.py"]
    lib = clients.Library("x", "x", None, subset=("test_b.py",))
    assert clients.test_files(lib, tmp_path, full=False) == ["test_b.py"]


@pytest.mark.parametrize("implementation", ["pyopencl", "oclpy"])
def test_run_suite_counts_a_real_pytest_run(tmp_path, implementation):
    """With this interpreter as the venv's: the oclpy run answers `import pyopencl` with oclpy."""
    (tmp_path / "test_small.py").write_text(
        "import importlib.util, pytest\n"
        "def test_pass():\n    assert True\n"
        "def test_fail():\n    assert False\n"
        "def test_answered():\n"
        "    if importlib.util.find_spec('pyopencl') is None:\n        pytest.skip('no pyopencl')\n"
        "    import pyopencl\n    assert (pyopencl.__name__ == 'oclpy') == IS_OCLPY\n"
        f"IS_OCLPY = {implementation == 'oclpy'}\n")
    lib = clients.Library("small", "small", None, subset=("test_small.py",))
    log = tmp_path / "run.log"
    timeout = 120 if clients.has_pytest_timeout(Path(sys.executable)) else None
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, implementation, ROOT,
                                time_limit=300, test_timeout=timeout, full=False, log=log)
    assert outcome.counts["passed"] + outcome.counts["skipped"] == 2, log.read_text()
    assert outcome.counts["failed"] == 1 and outcome.failures == ["test_small.py::test_fail"]
    assert not outcome.timed_out and not outcome.crashed


def test_a_missing_tests_package_is_unavailable(tmp_path):
    lib = clients.Library("nothing", "nothing", "no_such_package_here.test")
    with pytest.raises(clients.Unavailable, match="no_such_package_here.test is not importable"):
        clients.tests_folder(Path(sys.executable), lib, tmp_path)
    with pytest.raises(clients.Unavailable, match="no_such_dist_here is not installed in the venv"):
        clients.installed_version(Path(sys.executable), "no_such_dist_here")


def test_unknown_library_is_a_usage_error(capsys):
    with pytest.raises(SystemExit):
        clients.main(["--libraries", "numba"])
    assert "unknown libraries: numba" in capsys.readouterr().err
