"""Each planted bug gives exactly its expected report; each fixed kernel gives none."""

from __future__ import annotations

import pytest

from planted import CASES, Case
from run_case import run_case, summary_of


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_planted_bug_is_reported_exactly(case: Case) -> None:
    assert [summary_of(r) for r in run_case(case)] == list(case.expected)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_fixed_kernel_has_no_report(case: Case) -> None:
    assert [summary_of(r) for r in run_case(case, fixed=True)] == []


def test_every_check_family_has_a_planted_bug() -> None:
    from oclpy.targets.simt.check.check_session import CHECKS
    assert {c.check for c in CASES} == set(CHECKS)


KEEP_ADDRESS = """__kernel void keep(__global int *b, __global ulong *a) { a[0] = (ulong)b; }
__kernel void use(__global const ulong *a, __global int *out) {
    out[get_global_id(0)] = *(__global int *)a[0];
}
"""


def test_a_pointer_to_a_released_buffer_is_reported() -> None:
    import numpy as np

    import oclpy as cl
    from oclpy.runtime import checking
    from run_case import simt_context

    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, KEEP_ADDRESS).build()
    a = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8)
    b = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.arange(4, dtype=np.int32))
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 16)
    program.keep(queue, (1,), (1,), b, a)
    queue.finish()
    b.release()
    del b
    import gc
    gc.collect()
    checking.clear()
    program.use(queue, (4,), (4,), a, out)
    queue.finish()
    assert [(r.kind, r.loc.line, r.count) for r in checking.reports()] == [("released-buffer", 3, 4)]
    assert checking.reports()[0].message.startswith("4-byte read from __global buffer at 0x")
    assert checking.reports()[0].message.endswith(", which was released")


def test_work_items_are_named_with_the_global_offset() -> None:
    import numpy as np

    import oclpy as cl
    from oclpy.runtime import checking
    from planted import LOCAL_RACE
    from run_case import simt_context

    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, LOCAL_RACE.source).build()
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.zeros(256, np.int32))
    checking.clear()
    program.k(queue, (128,), (64,), out, global_offset=(100,))
    queue.finish()
    (report,) = checking.reports()
    assert report.work_item == (100, 0, 0) and report.group == (0, 0, 0)
    assert report.message.endswith("a write by work-item (163,0,0) are not ordered by a barrier")


def test_a_division_the_kernel_guards_itself_is_not_reported() -> None:
    """`a / (b == 0 ? 1 : b)` is the frontend's own guard written by hand: the check looks
    through the frontend's guard only, so the kernel's survives and nothing is reported."""
    import numpy as np

    import oclpy as cl
    from oclpy.runtime import checking
    from run_case import simt_context

    source = """__kernel void k(__global const int *a, __global const uint *b, __global int *out) {
    int i = get_global_id(0);
    out[i] = a[i] / (b[i] == 0 ? 1 : (int)b[i]) + a[i] % (b[i] == 0 ? 1u : b[i]);
}
"""
    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(64, dtype=np.int32))
    b = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.uint32))
    out = cl.Buffer(ctx, mf.READ_WRITE, 256)
    checking.clear()
    cl.Program(ctx, source).build().k(queue, (64,), (32,), a, b, out)
    queue.finish()
    assert checking.reports() == []


def test_a_report_shows_its_own_programs_lines_when_programs_share_a_file_name() -> None:
    """Every `Program(ctx, source)` is `<kernel>`: the racy program's report keeps its own text
    (the fixed program, launched after, has a barrier on line 5)."""
    import numpy as np

    import oclpy as cl
    from oclpy.runtime import checking
    from oclpy.targets.simt.check.check_render import render_report
    from planted import LOCAL_RACE
    from run_case import simt_context

    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.zeros(128, np.int32))
    checking.clear()
    for source in (LOCAL_RACE.source, LOCAL_RACE.fixed):
        cl.Program(ctx, source).build().k(queue, (128,), (64,), out)
        queue.finish()
    (report,) = checking.reports()
    lines = render_report(report, checking.SESSION.sources).splitlines()
    assert lines[:2] == ["<kernel>:5:30: error: " + report.message, "    out[get_global_id(0)] = t[63 - l];"]
    assert lines[3:5] == ["<kernel>:4:10: note: the other access, a write", "    t[l] = l;"]
