"""Barrier checks: divergence within a wave and between waves, and work-groups that never finish.

- `partial_waves`: a wave reaching `s_barrier` with lanes off that hold
  work-items (they took another path, or returned): the work-group's
  work-items do not all reach this barrier. (A wave whose lanes are all off
  may still run a scalar barrier: then all its work-items missed it.)
- `divergent_groups`: waves of one work-group waiting at different barriers,
  or waiting while others have ended. The group is stopped there; the other
  groups go on.
- `out_of_steps`: the launch ran out of steps (a spin-wait on something no
  work-item will ever do): reported as a deadlock where the waves stand.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .check_session import Checker


def partial_waves(chk: Checker, s: Any, pc: int, sel: np.ndarray) -> None:
    """Waves at a barrier with some of their work-items' lanes off: each one's a report (the
    lanes that reached it; when none did, as a wave with no lane on runs a scalar barrier,
    the lanes that did not)."""
    for wave in np.nonzero(sel & (s.exec != s.present))[0]:
        reached = s.lanes[wave]
        present = ((s.present[wave] >> s.lane_shift) & np.uint64(1)).astype(bool)
        lanes = np.nonzero(reached if reached.any() else present)[0]
        group = format_id(s.groups[int(s.group[wave])])
        message = (f"barrier divergence: {int(reached.sum())} of the {int(present.sum())} work-items of wave "
                   f"{int(wave) % s.waves_per_group} of work-group {group} reach this barrier; the others "
                   f"took another path")
        chk.report("barrier-divergence", s, pc, message, np.full(len(lanes), wave), lanes)


def divergent_groups(chk: Checker, s: Any, split: np.ndarray, stuck: np.ndarray) -> None:
    wpg = s.waves_per_group
    for g in np.nonzero(split | stuck)[0]:
        waves = np.arange(g * wpg, (g + 1) * wpg)
        waiting = waves[s.status[waves] == 1]  # AT_BARRIER
        here = int(s.pc[waiting[0]]) - 1
        present_w, present_lane = np.nonzero(s.lanes[waiting])
        group = format_id(s.groups[int(g)])
        if split[g]:
            other = int(next(p for p in s.pc[waiting] if int(p) - 1 != here)) - 1
            message = f"barrier divergence: the work-items of work-group {group} wait at different barriers"
            chk.report("barrier-divergence", s, here, message, waiting[present_w], present_lane,
                       other_pc=other, other="the other barrier")
        else:
            message = (f"barrier divergence: work-items of work-group {group} wait at this barrier, "
                       f"which others of the group have finished without reaching")
            chk.report("barrier-divergence", s, here, message, waiting[present_w], present_lane)


def out_of_steps(chk: Checker, s: Any, pc: int, sel: np.ndarray, steps: int) -> None:
    w, lane = np.nonzero(s.lanes & sel[:, None])
    if not len(w):
        w, lane = np.nonzero(sel)[0][:1], np.zeros(1, np.int64)
    message = (f"deadlock: the work-items here did not finish within {steps} steps "
               f"(waiting for something no work-item does?)")
    chk.report("deadlock", s, pc, message, w, lane)


def format_id(group: tuple[int, int, int]) -> str:
    return "(" + ",".join(str(int(v)) for v in group) + ")"
