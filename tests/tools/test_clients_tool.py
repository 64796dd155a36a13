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


def test_neutral_id_drops_the_device_of_pyopencl_test_generation():
    pocl = "t.py::test_x[<context factory for <pyopencl.Device 'pthread-Intel(R) Xeon(R)' on 'Portable Computing Language'>>]"
    ours = "t.py::test_x[<context factory for <oclpy.Device 'oclpy cpu' on 'oclpy'>>]"
    assert clients.neutral_id(pocl) == clients.neutral_id(ours) == "t.py::test_x[<ctx>]"
    assert clients.neutral_id("t.py::test_y[ocl,0,0]") == "t.py::test_y[ocl,0,0]"


def test_a_test_reported_twice_counts_once_as_its_last_line():
    outcome = clients.count("t.py::test_a PASSED\nt.py::test_a ERROR\nt.py::test_b PASSED\n")
    assert outcome.counts == {"passed": 1, "failed": 1, "skipped": 0}
    assert outcome.tests == {"t.py::test_a": "failed", "t.py::test_b": "passed"}


def test_sections_split_a_log_at_its_file_headers():
    log = ("== a.py\na.py::test_1 PASSED\n== b.py\nb.py::test_2 FAILED\n"
           "\n== b.py: pytest ended with status -9 (crash)\n== c.py: not run (time limit)\n")
    parts = clients.sections(log)
    assert sorted(parts) == ["a.py", "b.py", "c.py"]
    assert "test_1 PASSED" in parts["a.py"] and "(crash)" in parts["b.py"]
    assert parts["c.py"] == "== c.py: not run (time limit)\n"


def test_merged_logs_count_each_file_from_its_newest_log(tmp_path):
    import os
    old, new = tmp_path / "lib-oclpy.log", tmp_path / "lib-oclpy-part2.log"
    old.write_text("== a.py\na.py::test_1 PASSED\n== b.py\nb.py::test_2 FAILED\n"
                   "\n== b.py: stopped at the time limit\n")
    new.write_text("== b.py\nb.py::test_2 PASSED\nb.py::test_3 SKIPPED\n== a.py: not run (time limit)\n")
    os.utime(old, (1, 1))
    outcome, sources = clients.merged([new, old])
    assert outcome.counts == {"passed": 2, "failed": 0, "skipped": 1}
    assert sources == {"a.py": "lib-oclpy.log", "b.py": "lib-oclpy-part2.log"}
    assert not outcome.timed_out and not outcome.crashed


def test_compare_lists_tests_passing_on_one_implementation_only():
    pocl = clients.count("t.py::a PASSED\nt.py::b FAILED\nt.py::c PASSED\nt.py::d SKIPPED\nt.py::e PASSED\n")
    ours = clients.count("t.py::a PASSED\nt.py::b PASSED\nt.py::c FAILED\nt.py::d PASSED\nt.py::f PASSED\n")
    assert clients.compare(pocl, ours) == {"only_on_oclpy": ["t.py::b", "t.py::d"],
                                           "only_on_pyopencl": ["t.py::c"],
                                           "not_run_on_oclpy": ["t.py::e"], "not_run_on_pyopencl": ["t.py::f"]}


def test_report_merges_the_work_folder_with_reasons(tmp_path):
    (tmp_path / "lib-pyopencl.log").write_text("== a.py\na.py::x PASSED\na.py::y PASSED\n")
    (tmp_path / "lib-oclpy-a.log").write_text("== a.py\na.py::x PASSED\na.py::y FAILED\na.py::z PASSED\n")
    data, text = clients.report(tmp_path, ["lib", "other"], {"lib": "1.0"}, {"a.py::y": "PoCL's rounding"})
    assert list(data) == ["lib"]
    assert data["lib"]["oclpy"]["failures"] == ["a.py::y"]
    assert data["lib"]["only_on_pyopencl"] == [{"test": "a.py::y", "reason": "PoCL's rounding"}]
    assert text.splitlines()[-1] == ("| lib 1.0 | 2 / 0 (0 skipped) | 2 / 1 (0 skipped) | 0 "
                                     "| 1: `a.py::y`: PoCL's rounding (1 not run on PoCL) |")


def test_files_need_one_library(capsys):
    with pytest.raises(SystemExit):
        clients.main(["--libraries", "loopy", "reikna", "--files", "test_scan.py"])
    assert "--files needs exactly one library" in capsys.readouterr().err


def test_the_oclpy_run_of_reikna_and_loopy_takes_oclpy_cpu_only():
    libs = {lib.name: lib for lib in clients.LIBRARIES}
    assert libs["reikna"].oclpy_options == ("--device-include-mask", "oclpy cpu")
    assert dict(libs["loopy"].oclpy_env) == {"PYOPENCL_TEST": "oclpy:cpu"}


def test_the_oclpy_run_takes_the_librarys_device_options_and_environment(tmp_path):
    (tmp_path / "test_env.py").write_text(
        "import os\n"
        "def test_env():\n    assert os.environ.get('CLIENTS_PICK') == 'oclpy:cpu'\n"
        "def test_left_out():\n    assert False\n")
    lib = clients.Library("small", "small", None, subset=("test_env.py",),
                          oclpy_options=("-k", "not left_out"), oclpy_env=(("CLIENTS_PICK", "oclpy:cpu"),))
    log = tmp_path / "run.log"
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, "oclpy", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=log)
    assert outcome.tests == {"test_env.py::test_env": "passed"}, log.read_text()
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, "pyopencl", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=log)
    assert outcome.counts["failed"] == 2, log.read_text()


def test_files_whose_data_does_not_load_are_named():
    lib = clients.Library("x", "x", "x.test", data=(
        ("test_here.py", "pass", "nothing"),
        ("test_gone.py", "raise SystemExit(1)", "an image that is not here")))
    assert clients.without_data(Path(sys.executable), lib) == {"test_gone.py": "an image that is not here"}


def test_report_over_a_base_keeps_the_files_no_log_ran_again(tmp_path):
    (tmp_path / "lib-oclpy-b.log").write_text("== b.py\nb.py::y PASSED\nb.py::z PASSED\n== c.py: not run (time limit)\n")
    (tmp_path / "lib-pyopencl-c.log").write_text("== c.py\nc.py::w PASSED\n")
    base = {"lib": {"version": "1.0",
                    "logs": {"pyopencl": {"a.py": "old-p.log", "b.py": "old-p.log"},
                             "oclpy": {"a.py": "old-o.log", "b.py": "old-o2.log", "c.py": "old-o.log"}},
                    "pyopencl": {"crashed_files": [], "stopped_files": [],
                                 "tests": {"a.py::x": "passed", "b.py::y": "passed", "b.py::z": "passed"}},
                    "oclpy": {"crashed_files": [], "stopped_files": ["b.py"],
                              "tests": {"a.py::x": "failed", "b.py::y": "passed", "c.py::w": "passed"}}}}
    data, _ = clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    ours, pocl = data["lib"]["oclpy"], data["lib"]["pyopencl"]
    assert ours["tests"] == {"a.py::x": "failed", "b.py::y": "passed", "b.py::z": "passed", "c.py::w": "passed"}
    assert (ours["passed"], ours["failed"], ours["stopped_files"], ours["time_limit_hit"]) == (3, 1, [], False)
    assert data["lib"]["logs"]["oclpy"] == {"a.py": "old-o.log", "b.py": "lib-oclpy-b.log", "c.py": "old-o.log"}
    assert pocl["passed"] == 4 and data["lib"]["logs"]["pyopencl"]["c.py"] == "lib-pyopencl-c.log"
    assert data["lib"]["only_on_pyopencl"] == [{"test": "a.py::x", "reason": ""}]


def test_a_base_without_per_test_outcomes_is_refused(tmp_path, capsys):
    base = tmp_path / "old.json"
    base.write_text('{"lib": {"logs": {"oclpy": {}}, "oclpy": {"passed": 1}}}')
    assert clients.main(["--libraries", "loopy", "--work", str(tmp_path), "--venv", str(tmp_path / "v"),
                         "--report", str(tmp_path / "r"), "--base", str(base)]) == 0
    base.write_text('{"loopy": {"logs": {"oclpy": {}}, "oclpy": {"passed": 1}}}')
    assert clients.main(["--libraries", "loopy", "--work", str(tmp_path), "--venv", str(tmp_path / "v"),
                         "--report", str(tmp_path / "r"), "--base", str(base)]) == 2
    assert "the base report has no per-test outcomes ('tests') nor counts ('counted')" in capsys.readouterr().err


def test_a_base_counted_without_test_ids_is_kept_whole(tmp_path):
    (tmp_path / "lib-oclpy-c.log").write_text("== c.py\nc.py::w FAILED\n")
    (tmp_path / "lib-pyopencl-c.log").write_text("== c.py\nc.py::w PASSED\n")
    group = {"files": ["a.py", "b.py"], "passed": 5, "failed": 1, "skipped": 2, "failures": ["b.py::v"]}
    base = {"lib": {"logs": {"pyopencl": {"a.py": "old.log"}, "oclpy": {"a.py": "old.log"}},
                    "pyopencl": {"crashed_files": [], "counted": [group]},
                    "oclpy": {"crashed_files": [], "counted": [{**group, "passed": 4}]},
                    "only_on_oclpy": ["b.py::v"], "not_run_on_oclpy": ["a.py::x"], "not_run_on_pyopencl": []}}
    data, text = clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    assert (data["lib"]["oclpy"]["passed"], data["lib"]["oclpy"]["failed"]) == (4, 2)
    assert data["lib"]["pyopencl"]["failures"] == ["b.py::v"]
    assert data["lib"]["only_on_oclpy"] == ["b.py::v"] and data["lib"]["not_run_on_oclpy"] == ["a.py::x"]
    assert data["lib"]["only_on_pyopencl"] == [{"test": "c.py::w", "reason": ""}]
    (tmp_path / "lib-oclpy-v.log").write_text("== b.py::v\nb.py::v PASSED\n")
    data, _ = clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    assert (data["lib"]["oclpy"]["passed"], data["lib"]["oclpy"]["failed"]) == (5, 1)
    assert data["lib"]["oclpy"]["counted"][0]["failures"] == []
    (tmp_path / "lib-pyopencl-u.log").write_text("== b.py::u\nb.py::u PASSED\n")
    with pytest.raises(clients.Unavailable, match="b.py::u can only run again with all of them"):
        clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    (tmp_path / "lib-pyopencl-u.log").unlink()
    (tmp_path / "lib-oclpy-a.log").write_text("== a.py\na.py::x PASSED\n")
    with pytest.raises(clients.Unavailable, match="the base counts a.py, b.py only together: "
                       "a log that runs a.py must run all of them"):
        clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)


def test_a_test_timed_out_counts_from_the_summary_line():
    log = ("t.py::test_slow \n+++++++ Timeout +++++++\n~~ Stack of MainThread ~~\n"
           "  File \"t.py\", line 3\nFAILED                            [ 50%]\n"
           "t.py::test_fast[(1, 2)] PASSED [100%]\n"
           "FAILED t.py::test_slow - Failed: Timeout (>180.0s) from pytest-timeout.\n")
    assert clients.count(log).tests == {"t.py::test_fast[(1, 2)]": "passed", "t.py::test_slow": "failed"}


def test_a_library_may_keep_a_cache_folder_per_implementation(tmp_path):
    (tmp_path / "test_cache.py").write_text(
        "import os\n"
        "def test_cache():\n    assert os.environ['XDG_CACHE_HOME'].endswith('cache-pyopencl')\n")
    lib = clients.Library("small", "small", None, subset=("test_cache.py",), cache_per_implementation=True)
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, "pyopencl", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=tmp_path / "run.log")
    assert outcome.tests == {"test_cache.py::test_cache": "passed"}
    assert [lib.name for lib in clients.LIBRARIES if lib.cache_per_implementation] == ["loopy"]


def test_a_library_may_have_numpy_seeded_before_each_test(tmp_path):
    import numpy
    expected = numpy.random.RandomState(7).randint(1 << 30)
    (tmp_path / "test_seed.py").write_text(
        "import numpy\n"
        f"def test_first():\n    assert numpy.random.randint(1 << 30) == {expected}\n"
        f"def test_second():\n    assert numpy.random.randint(1 << 30) == {expected}\n")
    lib = clients.Library("small", "small", None, subset=("test_seed.py",), seed_numpy=7)
    log = tmp_path / "run.log"
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, "pyopencl", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=log)
    assert outcome.counts == {"passed": 2, "failed": 0, "skipped": 0}, log.read_text()
    unseeded = clients.Library("small", "small", None, subset=("test_seed.py",))
    outcome = clients.run_suite(Path(sys.executable), unseeded, tmp_path, "pyopencl", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=log)
    assert outcome.counts["failed"] >= 1, log.read_text()
    assert {lib.name: lib.seed_numpy for lib in clients.LIBRARIES if lib.seed_numpy is not None} == {"reikna": 2}


def test_a_keyword_run_covers_no_file_and_adds_a_bases_unreached_tests(tmp_path):
    assert clients.sections("== a.py -k not b or c-1\na.py::t PASSED\n== a.py -k x: not run (time limit)\n") == {
        "a.py -k not b or c-1": "a.py::t PASSED\n", "a.py -k x": "== a.py -k x: not run (time limit)\n"}
    assert not clients.covers("a.py -k x", "a.py::t")
    (tmp_path / "lib-oclpy-rest.log").write_text("== a.py -k late\na.py::late PASSED\na.py::later FAILED\n")
    (tmp_path / "lib-pyopencl-rest.log").write_text("== a.py -k later\na.py::later PASSED\n")
    group = {"files": ["a.py", "b.py"], "passed": 5, "failed": 1, "skipped": 0, "failures": ["a.py::f"],
             "not_reached": ["a.py::late", "a.py::later"]}
    base = {"lib": {"logs": {"pyopencl": {"a.py": "old.log"}, "oclpy": {"a.py": "old.log"}},
                    "pyopencl": {"crashed_files": [], "counted": [group]},
                    "oclpy": {"crashed_files": [], "counted": [
                        {**group, "not_reached": ["a.py::late", "a.py::later", "b.py::seen"]}]},
                    "not_run_on_oclpy": ["a.py::late", "a.py::later"], "not_run_on_pyopencl": [],
                    "only_on_oclpy": []}}
    data, _ = clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    ours, pocl = data["lib"]["oclpy"], data["lib"]["pyopencl"]
    assert (ours["passed"], ours["failed"], ours["counted"][0]["not_reached"]) == (6, 2, ["b.py::seen"])
    assert (pocl["passed"], pocl["failed"], pocl["counted"][0]["not_reached"]) == (6, 1, ["a.py::late"])
    assert data["lib"]["not_run_on_oclpy"] == [] and data["lib"]["not_run_on_pyopencl"] == ["a.py::late"]
    assert data["lib"]["only_on_pyopencl"] == [{"test": "a.py::later", "reason": ""}]
    (tmp_path / "lib-oclpy-seen.log").write_text("== b.py -k seen\nb.py::seen PASSED\n")
    data, _ = clients.report(tmp_path, ["lib"], {"lib": "1.0"}, {}, base)
    assert data["lib"]["oclpy"]["counted"][0]["not_reached"] == []
    assert data["lib"]["not_run_on_pyopencl"] == ["a.py::late"]  # b.py::seen: in PoCL's count


def test_a_keyword_run_selects_with_the_librarys_keyword(tmp_path):
    (tmp_path / "test_k.py").write_text("def test_one():\n    pass\ndef test_two():\n    pass\n"
                                        "def test_slow_three():\n    pass\n")
    lib = clients.Library("small", "small", None, subset=("test_k.py",), keyword="not slow")
    log = tmp_path / "run.log"
    outcome = clients.run_suite(Path(sys.executable), lib, tmp_path, "pyopencl", ROOT, time_limit=300,
                                test_timeout=None, full=False, log=log, keyword="not two")
    assert outcome.tests == {"test_k.py::test_one": "passed"}, log.read_text()
    assert log.read_text().startswith("== test_k.py -k not two\n")


def test_a_keyword_needs_files(capsys):
    with pytest.raises(SystemExit):
        clients.main(["--libraries", "loopy", "--keyword", "complex"])
    assert "--keyword needs --files" in capsys.readouterr().err
