"""Reports as Python objects on the context (`Context.check_reports`): each context lists
what its own launches found, through the launch fast path and the general one, and a
report the process already knew is listed on every context whose launch hit it again."""

from __future__ import annotations

import numpy as np

import oclpy as cl
from oclpy.runtime import checking

from planted import GLOBAL_OOB
from run_case import simt_context


def launch(ctx: cl.Context, source: str, general_path: bool = False) -> None:
    queue = cl.CommandQueue(ctx)
    mf = cl.mem_flags
    a = cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=np.arange(64, dtype=np.int32))
    out = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=np.zeros(64, np.int32))
    kernel = cl.Program(ctx, source).build().k
    if general_path:  # a global offset: the launch takes the general path, not the plan's
        kernel(queue, (64,), (32,), a, out, global_offset=(0,))
    else:
        kernel(queue, (64,), (32,), a, out)
    queue.finish()


def test_each_context_lists_the_reports_of_its_own_launches() -> None:
    buggy, clean = simt_context(), simt_context()
    launch(clean, GLOBAL_OOB.fixed)
    launch(buggy, GLOBAL_OOB.source)
    (report,) = checking.reports()
    assert buggy.check_reports == [report] and report.kind == "out-of-bounds"
    assert buggy.check_reports[0] is report
    assert clean.check_reports == []


def test_a_report_already_known_is_listed_on_the_next_context_that_hits_it() -> None:
    first, second = simt_context(), simt_context()
    launch(first, GLOBAL_OOB.source)
    launch(second, GLOBAL_OOB.source, general_path=True)
    (report,) = checking.reports()
    assert first.check_reports == [report] and second.check_reports == [report]
    assert report.count == 1  # one work-item, (63,0,0), in both launches


def test_a_relaunch_in_one_context_lists_the_report_once() -> None:
    ctx = simt_context()
    launch(ctx, GLOBAL_OOB.source)
    launch(ctx, GLOBAL_OOB.source, general_path=True)
    assert [r.kind for r in ctx.check_reports] == ["out-of-bounds"]


def test_a_cpu_context_lists_nothing() -> None:
    ctx = cl.Context([d for d in cl.get_platforms()[0].get_devices() if d.kind == "cpu"])
    queue = cl.CommandQueue(ctx)
    out = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 256)
    cl.Program(ctx, "__kernel void k(__global int *o) { o[get_global_id(0)] = 1; }").build().k(queue, (64,), None,
                                                                                                   out)
    queue.finish()
    assert ctx.check_reports == [] and checking.reports() == []
