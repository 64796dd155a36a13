"""benchmarks/check.py's tables and its capture of what Oclgrind writes to stderr."""

from __future__ import annotations

import os

from benchmarks.check import planted_table, table
from benchmarks.oclgrind import Stderr


def test_speed_table_gives_ratios_and_their_geometric_mean() -> None:
    rows = [{"kernel": "a", "size": "n=1", "best_s": {"oclgrind": 8.0, "oclpy check": 1.0}, "check": {},
             "reports": {"oclgrind": [], "oclpy check": []}},
            {"kernel": "b", "size": "n=2", "best_s": {"oclgrind": 2.0, "oclpy check": 1.0}, "check": {},
             "reports": {"oclgrind": ["x"], "oclpy check": []}},
            {"kernel": "c", "size": "n=3", "best_s": {"oclpy check": 1.0},
             "check": {"oclgrind": "error: no platform"}, "reports": {"oclpy check": []}}]
    assert table(rows).splitlines() == [
        "| kernel | size | Oclgrind s | oclpy check s | ratio | reports (Oclgrind / oclpy) |",
        "| --- | --- | --- | --- | --- | --- |",
        "| a | n=1 | 8 | 1 | 8.0 | 0 / 0 |",
        "| b | n=2 | 2 | 1 | 2.0 | 1 / 0 |",
        "| c | n=3 | error: no platform | 1 | - | 0 / 0 |",
        "| geometric mean | | | | 4.0 | |"]


def test_planted_table_says_who_found_what() -> None:
    rows = [{"case": "oob", "check": "memory", "oclpy": True, "oclpy_fixed_clean": True, "oclgrind": True},
            {"case": "cast", "check": "casts", "oclpy": True, "oclpy_fixed_clean": False, "oclgrind": None}]
    assert planted_table(rows).splitlines()[2:] == ["| oob | memory | yes | yes | yes |",
                                                    "| cast | casts | yes | no | (no such check) |"]


def test_stderr_capture_takes_what_the_process_writes_to_descriptor_2() -> None:
    with Stderr() as err:
        os.write(2, b"Invalid read of size 4\n")
    assert err.text == "Invalid read of size 4\n"


def test_oclgrind_missing_says_where_it_looked(monkeypatch) -> None:
    from benchmarks.oclgrind import oclgrind_impl
    monkeypatch.setenv("OCLPY_BENCH_OCLGRIND_ICD", "/nonexistent/liboclgrind-rt-icd.so")
    assert oclgrind_impl() == (None, "Oclgrind not found (/nonexistent/liboclgrind-rt-icd.so missing: "
                                     "apt-get install oclgrind)")


def test_oclgrind_after_pyopencl_was_imported_says_so(monkeypatch, tmp_path) -> None:
    import sys

    from benchmarks.oclgrind import oclgrind_impl
    lib = tmp_path / "liboclgrind-rt-icd.so"
    lib.write_bytes(b"")
    monkeypatch.setenv("OCLPY_BENCH_OCLGRIND_ICD", str(lib))
    monkeypatch.setitem(sys.modules, "pyopencl", object())
    assert oclgrind_impl() == (None, "PyOpenCL was imported before the ICD folder could be set")


def test_an_oclpy_device_kind_not_here_says_so() -> None:
    from benchmarks.impl import oclpy_device
    assert oclpy_device("abacus") == (None, "oclpy has no abacus device here")
