"""The checker of one simulator run: what the check functions share.

`Checker` holds the report log (`report.ReportLog`), which checks run
(`checks`, names of `CHECKS`), the launch being checked (`Launch`: the
kernel, its pc -> source table, which buffer is which argument) and the
per-launch state of the checks that keep some (`races`, `shadow`). The
simulator calls the check modules with it; `report` turns offending lanes
into one `Report` with the first work-item and group and the count.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ....diagnostics import SourceLocation
from ..sim_memory import GlobalMemory
from ..simt_program import SimtKernel
from .check_report import Report, ReportLog

CHECKS = ("memory", "division", "casts", "barriers", "races", "uninitialized")


@dataclass(frozen=True)
class ArgBuffer:
    """A buffer a kernel argument points at: its index (clSetKernelArg's), name, space."""

    index: int
    name: str
    space: str  # "__global" or "__constant"


@dataclass
class Launch:
    kernel: str
    locs: list[SourceLocation | None]
    buffers: dict[int, ArgBuffer] = field(default_factory=dict)  # GlobalMemory buffer index -> argument
    kernarg: int = -1  # the kernarg segment's buffer index
    sources: dict[str, str] = field(default_factory=dict)  # the program's file name -> text


@dataclass
class Checker:
    log: ReportLog = field(default_factory=ReportLog)
    checks: frozenset[str] = frozenset(CHECKS)
    launch: Launch | None = None
    state: dict[Any, Any] = field(default_factory=dict)  # per-launch state of the checks

    def start(self, launch: Launch) -> None:
        self.launch = launch
        self.state.clear()

    def on(self, family: str) -> bool:
        return family in self.checks

    def report(self, kind: str, s: Any, pc: int, message: str, w: np.ndarray, lane: np.ndarray,
               other_pc: int | None = None, other: str = "") -> None:
        """Report `kind` at instruction `pc`, found by lanes (w, lane) of batch `s` (first first)."""
        assert self.launch is not None
        ids, first, group = work_items(s, np.asarray(w), np.asarray(lane))
        locs = self.launch.locs
        report = Report(kind, self.launch.kernel, locs[pc], message, first, group,
                        other_loc=None if other_pc is None else locs[other_pc], other=other,
                        sources=self.launch.sources)
        self.log.add(report, ids.tolist())


def arg_buffers(kernel: SimtKernel, explicit: bytes, memory: GlobalMemory) -> dict[int, ArgBuffer]:
    """Which buffer each `__global`/`__constant` argument of a launch points into (the first
    argument wins when two share one)."""
    out: dict[int, ArgBuffer] = {}
    for index, arg in enumerate(kernel.args):
        if arg.kind not in ("global", "constant"):
            continue
        (address,) = struct.unpack_from("<Q", explicit, arg.offset)
        (k,) = memory.owner(np.array([address], np.uint64)).tolist()
        if k >= 0 and k not in out:
            out[k] = ArgBuffer(index, arg.name, f"__{arg.kind}")
    return out


def work_items(s: Any, w: np.ndarray, lane: np.ndarray) -> tuple[np.ndarray, tuple[int, int, int],
                                                                   tuple[int, int, int]]:
    """Linear ids of the lanes in the NDRange (from 0, without the global offset), and the first
    lane's global id and work-group id."""
    lx, ly, lz = s.local_size
    gx, gy, _ = s.global_size
    linear = (w % s.waves_per_group) * s.width + lane
    local = np.stack([linear % lx, linear // lx % ly, linear // (lx * ly)])
    groups = np.array(s.groups, np.int64)[s.group[w]].T.reshape(3, -1)
    index = groups * np.array([lx, ly, lz])[:, None] + local  # in the NDRange, from 0
    ids = index[0] + gx * (index[1] + gy * index[2])
    gid = index + np.array(s.global_offset)[:, None]
    first = tuple(int(v) for v in gid[:, 0])
    group = tuple(int(v) for v in groups[:, 0])
    return ids, first, group  # type: ignore[return-value]
