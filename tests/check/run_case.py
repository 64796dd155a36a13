"""Running a planted-bug case (`planted.Case`) through the public API under the checker."""

from __future__ import annotations

import numpy as np

import oclpy as cl
from oclpy.runtime import checking
from oclpy.targets.simt.check.check_report import Report

from planted import Arg, Case  # noqa: E402  (tests/check is on sys.path: see conftest.py)

FLAGS = {"rw": cl.mem_flags.READ_WRITE, "r": cl.mem_flags.READ_ONLY, "w": cl.mem_flags.WRITE_ONLY}


def simt_context() -> cl.Context:
    return cl.Context([d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt"])


def make_arg(ctx: cl.Context, arg: Arg, keep: list) -> object:
    if arg.kind == "scalar":
        return arg.values
    if arg.kind == "local":
        return cl.LocalMemory(int(arg.values))  # type: ignore[call-overload]
    flags = FLAGS[arg.mode]
    values = arg.values
    if values is None:
        buf = cl.Buffer(ctx, flags, 256)
    else:
        buf = cl.Buffer(ctx, flags | cl.mem_flags.COPY_HOST_PTR, hostbuf=np.asarray(values))
    keep.append(buf)
    return buf


def run_case(case: Case, fixed: bool = False) -> list[Report]:
    """The reports the checker gives for the case's kernel (or its fixed form), alone."""
    ctx = simt_context()
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, case.fixed if fixed else case.source).build(options=case.options)
    keep: list = []
    args = [make_arg(ctx, a, keep) for a in case.args]
    checking.clear()
    program.k(queue, case.global_size, case.local_size, *args)
    queue.finish()
    return checking.reports()


def summary_of(report: Report) -> tuple:
    loc = f"{report.loc.line}:{report.loc.col}" if report.loc else "?"
    return (report.kind, loc, report.message, report.work_item, report.group, report.count)
