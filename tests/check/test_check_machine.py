"""The checker on machine code run by the simulator directly: the kernarg segment,
deadlocks, what the simulator does with failing lanes, and the report log and
its rendering."""

from __future__ import annotations

import numpy as np
import pytest

from oclpy.diagnostics import SourceLocation
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.check.check_render import render_report, summary
from oclpy.targets.simt.check.check_report import Report, ReportLog
from oclpy.targets.simt.check.check_session import Checker
from oclpy.targets.simt.sim_memory import GlobalMemory, SimError
from oclpy.targets.simt.simulator import SimConfig, load_program, run_kernel


def run(text: str, memory: GlobalMemory, checker: Checker | None, args: bytes = b"", size: int = 32,
        config: SimConfig = SimConfig()) -> None:
    program = load_program(parse_asm(text), config)
    run_kernel(program, "k", memory, global_size=(size,), local_size=(size,), args=args, checker=checker)


KERNARG_READ = """kernel @k {
entry:
  s_load_b32 s8, s[0:1], 4096 loc "m.s":3:3
  s_endpgm
}
"""


def test_a_scalar_load_past_the_kernarg_segment_is_reported() -> None:
    checker = Checker()
    run(KERNARG_READ, GlobalMemory(), checker)
    (report,) = checker.log.reports
    assert (report.kind, report.loc, report.message) == (
        "out-of-bounds", SourceLocation("m.s", 3, 3), "out-of-bounds read from the kernel arguments: offset 4096, size 80")
    assert (report.work_item, report.group, report.count) == ((0, 0, 0), (0, 0, 0), 1)


def test_without_a_checker_the_same_load_is_an_error() -> None:
    with pytest.raises(SimError, match="runs|past the end"):
        run(KERNARG_READ, GlobalMemory(), None)


SPIN = """kernel @k {
entry:
  s_branch entry loc "m.s":3:3
}
"""


def test_a_kernel_that_never_ends_is_a_deadlock_report() -> None:
    checker = Checker()
    run(SPIN, GlobalMemory(), checker, config=SimConfig(max_steps=50))
    (report,) = checker.log.reports
    assert report.kind == "deadlock"
    assert report.message == ("deadlock: the work-items here did not finish within 50 steps "
                              "(waiting for something no work-item does?)")
    assert report.count == 32


STORE_ALL = """kernel @k {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_lshl_b32 v2, v0, 3
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  global_store_b32 v[2:3], v0, 0 loc "m.s":7:3
  s_endpgm
}
"""


def test_failing_lanes_go_to_the_sink_and_the_others_store() -> None:
    memory = GlobalMemory()
    out = memory.alloc(128, name="out")
    checker = Checker()
    run(STORE_ALL, memory, checker, args=np.uint64(out).tobytes())
    assert list(memory.download(out, np.uint32, 32)[::2]) == list(range(16))
    (report,) = checker.log.reports
    assert report.message == "out-of-bounds write to __global buffer at 0x100000000: offset 128, size 128"
    assert (report.work_item, report.count) == ((16, 0, 0), 16)


def test_the_log_merges_by_kind_and_locations_counting_distinct_work_items() -> None:
    heard: list[Report] = []
    log = ReportLog(listeners=[heard.append])
    loc = SourceLocation("k.cl", 3, 9)
    first = log.add(Report("out-of-bounds", "k", loc, "m1", (1, 0, 0), (0, 0, 0)), [1, 2])
    again = log.add(Report("out-of-bounds", "k", loc, "m2", (5, 0, 0), (0, 0, 0)), [2, 3])
    other = log.add(Report("data-race", "k", loc, "m3", (1, 0, 0), (0, 0, 0)), [1])
    assert again is first and first.count == 3 and first.message == "m1"
    assert log.reports == [first, other] and heard == [first, other]
    log.clear()
    assert log.reports == []


def test_a_report_renders_as_a_clang_diagnostic_with_a_note_for_the_other_side() -> None:
    report = Report("data-race", "k", SourceLocation("k.cl", 2, 5), "data race on __local memory: x",
                    (3, 0, 0), (0, 0, 0), 7, SourceLocation("k.cl", 1, 1), "the other access, a write")
    text = render_report(report, {"k.cl": "t[l] = 1;\nx = t[0];\n"})
    assert text == ("k.cl:2:5: error: data race on __local memory: x\n"
                    "x = t[0];\n"
                    "    ^\n"
                    "k.cl:1:1: note: the other access, a write\n"
                    "t[l] = 1;\n"
                    "^\n"
                    "k.cl:2:5: note: in kernel 'k', first by work-item (3,0,0) of work-group (0,0,0); "
                    "7 work-items in all\n")


def test_a_report_without_a_location_names_the_kernel() -> None:
    text = render_report(Report("deadlock", "k", None, "deadlock: x", (0, 0, 0), (0, 0, 0)))
    assert text.startswith("kernel 'k':0:0: error: deadlock: x\n")
    assert text.endswith("1 work-item in all\n")


def test_the_summary_counts_reports_per_kind() -> None:
    loc = SourceLocation("k.cl", 1, 1)
    reports = [Report("data-race", "k", loc, "", (0, 0, 0), (0, 0, 0)),
               Report("data-race", "k", loc, "", (0, 0, 0), (0, 0, 0)),
               Report("out-of-bounds", "k", loc, "", (0, 0, 0), (0, 0, 0))]
    assert summary(reports) == "oclpy check: 3 problems found\n  data-race: 2\n  out-of-bounds: 1\n"
    assert summary([]) == "oclpy check: no problems found\n"


SELECT_IMMEDIATE = """kernel @k {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_lshl_b32 v2, v0, 2
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  v_mov_b32 v4, 5
  v_cndmask_b32 v4, v4, 9, 0
  v_cndmask_b32 v5, v4, 7, exec
  v_add_u32 v4, v4, v5
  global_store_b32 v[2:3], v4, 0 loc "m.s":10:3
  s_endpgm
}
"""


def test_selects_with_an_immediate_mask_run_the_same_under_the_checker() -> None:
    for checker in (None, Checker()):
        memory = GlobalMemory()
        out = memory.alloc(128, name="out")
        run(SELECT_IMMEDIATE, memory, checker, args=np.uint64(out).tobytes())
        assert list(memory.download(out, np.uint32, 32)) == [12] * 32
        assert checker is None or checker.log.reports == []


UNDEFINED_STORE = """kernel @k {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_lshl_b32 v2, v0, 2
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  global_store_b32 v[2:3], v7, 0 loc "m.s":7:3
  s_endpgm
}
"""


def test_a_register_nothing_wrote_stored_to_global_memory_is_reported() -> None:
    memory = GlobalMemory()
    out = memory.alloc(128, name="out")
    checker = Checker()
    run(UNDEFINED_STORE, memory, checker, args=np.uint64(out).tobytes())
    (report,) = checker.log.reports
    assert (report.kind, report.message, report.count) == (
        "uninitialized", "store of an uninitialised value to __global memory", 32)


LOAD_ALL = """kernel @k {
entry:
  s_load_b64 s[8:9], s[0:1], 0
  v_lshl_b32 v2, v0, 2
  v_mov_b32 v3, 0
  v_add_u64 v[2:3], s[8:9], v[2:3]
  global_load_b32 v4, v[2:3], 0 loc "m.s":7:3
  s_endpgm
}
"""


def test_an_access_to_a_freed_buffer_is_a_released_buffer_report() -> None:
    memory = GlobalMemory()
    gone = memory.alloc(128, name="gone")
    memory.free(gone)
    checker = Checker()
    run(LOAD_ALL, memory, checker, args=np.uint64(gone).tobytes())
    (report,) = checker.log.reports
    assert (report.kind, report.message, report.count) == (
        "released-buffer", "4-byte read from __global buffer at 0x100000000, which was released", 32)


def test_the_log_tells_its_hits_of_every_finding_new_or_merged() -> None:
    hits: list[Report] = []
    log = ReportLog(hits=[hits.append])
    loc = SourceLocation("k.cl", 3, 9)
    first = log.add(Report("out-of-bounds", "k", loc, "m1", (1, 0, 0), (0, 0, 0)), [1])
    log.add(Report("out-of-bounds", "k", loc, "m2", (5, 0, 0), (0, 0, 0)), [5])
    assert len(hits) == 2 and hits[0] is first and hits[1] is first and log.reports == [first]
