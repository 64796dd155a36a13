"""Barrier checks: divergence within a wave and between waves, and work-groups that never finish.

- `arrive`, `released`: when a work-group is let go from a barrier, the
  lanes that were on as its waves arrived are the work-items that reached
  it; some but not all is divergence (the others took another path, or
  returned). A wave whose lanes are all off runs a scalar barrier all the
  same: when no work-item of the group reached it, nothing is reported.
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


def arrive(s: Any, sel: np.ndarray) -> None:
    """Waves reaching a barrier: remember which of their work-items' lanes are on."""
    s.arrived[sel] = s.exec[sel] & s.present[sel]


def released(chk: Checker, s: Any, groups: np.ndarray) -> None:
    """Groups let go from a barrier: some but not all of their work-items reached it (the others
    took another path or returned; a wave with no lane on runs a scalar barrier all the same)."""
    wpg = s.waves_per_group
    for g in np.nonzero(groups)[0]:
        waves = np.arange(g * wpg, (g + 1) * wpg)
        reached = ((s.arrived[waves, None] >> s.lane_shift) & np.uint64(1)).astype(bool)
        present = ((s.present[waves, None] >> s.lane_shift) & np.uint64(1)).astype(bool)
        got, of = int(reached.sum()), int(present.sum())
        if got in (0, of):
            continue
        w, lane = np.nonzero(reached)
        message = (f"barrier divergence: {got} of the {of} work-items of work-group {format_id(s.groups[int(g)])} "
                   f"reach this barrier; the others took another path")
        chk.report("barrier-divergence", s, int(s.pc[waves[0]]) - 1, message, waves[w], lane)


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
