"""tools/corpus/oracle.py: which clang is the oracle, and clang's first error as clang reports it
(its order and its presumed locations), whichever binary runs clang."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.corpus import diaglog  # noqa: E402
from tools.corpus.oracle import RECORD_VERSION, Diag, Oracle, choose  # noqa: E402

CASES = ROOT / "tests" / "frontend" / "preprocessor_cases"
MESSAGE = "program scope variable must reside in constant address space"

LOG = """<dict>
  <key>main-file</key>
  <string>/k/a.cl</string>
  <key>diagnostics</key>
  <array>
    <dict>
      <key>level</key><string>warning</string>
      <key>filename</key><string>/k/a.cl</string>
      <key>line</key><integer>1</integer>
      <key>column</key><integer>2</integer>
      <key>message</key><string>a &lt;warning&gt;</string>
    </dict>
    <dict>
      <key>level</key><string>error</string>
      <key>filename</key><string>/k/h.h</string>
      <key>line</key><integer>2</integer>
      <key>column</key><integer>5</integer>
      <key>message</key><string>first</string>
    </dict>
    <dict>
      <key>level</key><string>fatal error</string>
      <key>filename</key><string>/k/a.cl</string>
      <key>line</key><integer>9</integer>
      <key>column</key><integer>1</integer>
      <key>message</key><string>too many errors emitted</string>
    </dict>
  </array>
</dict>
"""


def test_the_diagnostic_log_keeps_clangs_order_and_levels() -> None:
    assert [e.message for e in diaglog.parse(LOG)] == ["a <warning>", "first", "too many errors emitted"]
    assert [e.render() for e in diaglog.errors(LOG)] == [
        "/k/h.h:2:5: error: first", "/k/a.cl:9:1: fatal error: too many errors emitted"]


def test_the_clang_tidy_wheel_is_chosen_before_clang_on_path(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("clang_tidy")
    fake = tmp_path / "clang-14"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tmp_path}:{os.environ['PATH']}")
    kind, binary, _ = choose(None)
    assert kind == "clang-tidy" and binary is not None and "clang_tidy" in binary
    assert choose("clang-14") == ("binary", str(fake), "")  # OCLPY_CLANG still chooses another


def test_an_explicit_oracle_that_is_no_program_is_refused() -> None:
    assert choose("no-such-clang-oclpy") == ("none", None, "OCLPY_CLANG=no-such-clang-oclpy is not a program")


def _oracle() -> Oracle:
    oracle = Oracle()
    if oracle.kind not in ("clang-tidy", "binary"):
        pytest.skip(f"no clang binary: {oracle.reason or oracle.kind}")
    return oracle


def test_the_oracle_of_record_is_the_pinned_wheel() -> None:
    oracle = _oracle()
    if oracle.kind != "clang-tidy":
        pytest.skip("OCLPY_CLANG chose another clang")
    assert "not the oracle of record" not in oracle.describe(), (oracle.describe(), RECORD_VERSION)


@pytest.mark.parametrize("name, first", [
    ("diagnostics.cl", Diag("x.cl", 5, MESSAGE)),  # after `#line 5 "x.cl"`: the presumed location
    ("c99_example4_include.cl", Diag("vers2.h", 2, MESSAGE)),  # the header's error comes first, in the header
    ("include_macro.cl", Diag("vers2.h", 2, MESSAGE)),
])
def test_the_first_error_is_where_clang_reports_it(name: str, first: Diag) -> None:
    verdict = _oracle().check(CASES / name, [f"-I{CASES}"], "CL1.2")
    assert not verdict.ok and verdict.first == first, verdict.log


# Extensions clang 23's x86 target claims that clang 14's did not (the oracle must turn them off too).
CLANG_23_EXTENSIONS = (
    "cl_khr_subgroup_ballot", "cl_khr_subgroup_clustered_reduce", "cl_khr_subgroup_non_uniform_arithmetic",
    "cl_khr_subgroup_non_uniform_vote", "cl_khr_subgroup_rotate", "cl_khr_subgroup_shuffle",
    "cl_khr_subgroup_shuffle_relative", "cl_khr_kernel_clock", "cl_intel_bfloat16_conversions",
    "cl_intel_split_work_group_barrier", "cl_intel_subgroup_buffer_prefetch", "cl_intel_subgroup_local_block_io",
)


@pytest.mark.parametrize("std", ["CL1.2", "CL2.0", "CL3.0"])
def test_the_oracle_defines_only_the_imitated_devices_extensions(std: str, tmp_path: Path) -> None:
    from tools.corpus.oracle import CLANG_EXTENSIONS

    device = ["cl_khr_fp64", "cl_khr_subgroups"]
    oracle = Oracle(device)
    if oracle.kind not in ("clang-tidy", "binary"):
        pytest.skip(f"no clang binary: {oracle.reason or oracle.kind}")
    names = sorted(set(CLANG_EXTENSIONS + CLANG_23_EXTENSIONS) - set(device))
    checks = "".join(f"#ifdef {e}\n#error {e} is defined\n#endif\n" for e in names)
    kernel = tmp_path / "k.cl"
    kernel.write_text(checks + "kernel void k(global uint *o) { o[0] = get_sub_group_size(); }\n")
    verdict = oracle.check(kernel, [], std)
    assert verdict.ok, verdict.log
