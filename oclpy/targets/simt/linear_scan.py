"""Assignment: linear scan over live intervals, one register file at a time.

The allocator's second phase (`regalloc.py` drives them all). Its output is
data, an `Assignment`: each virtual register's physical register, or the
list of virtual registers that are spilled (they get no register at all;
`spilling.py` gives them frame slots and the reserved pool).

The scan (Poletto and Sarkar's, with Wimmer's register hints): intervals in
order of their start; at each one the intervals that ended are expired and
their registers freed, then the interval takes
1. the place a `p_copy`, `p_join` or `p_split` hints at, when it is free
   (the pseudo is then no move);
2. else the first free *position*: an index aligned for its width (1 for 32
   bits, 2 for a pair, 4 for 128 bits and up) whose units are all
   allocatable (not the ABI's fixed `s30..s34`, not the spill pool), held by
   no active interval and by no physical register's live segment in the
   interval's span. A call writes every caller-saved unit, so an interval
   that lives across a call finds only callee-saved positions. In a `func`,
   caller-saved positions come first (a callee-saved one costs a save and a
   restore); in a kernel, the lowest index;
3. else a spill: among the positions with no physical conflict, the one
   whose active intervals weigh least is emptied (those intervals are
   spilled, whole) if they weigh less than this interval; otherwise this
   interval is spilled. An interval spilled keeps nothing: its earlier part
   held its register only in the past of the scan, where no one else takes
   it.

Why linear scan (docs/simt.md, "Register allocation", has the measures):
the intervals are hulls without holes (see `live_intervals.py`), which make
an interval graph, and on an interval graph this greedy order is optimal (it
uses as many registers as the most values live at one point) so graph
colouring has nothing to win; and it runs in a single pass in Python.

Requires: `live_intervals.compute_liveness`. Invalidates: nothing (data out).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from .calling_convention import allocatable, callee_saved
from .live_intervals import Interval, LiveIntervals
from .machine import PReg, VReg


class AllocError(Exception):
    """A function that cannot be allocated (files too small for the ABI, an instruction that
    needs more reserved registers than the pool has, malformed input)."""


@dataclass
class Assignment:
    """The output of the scan: a register per virtual register, or spilled."""

    registers: dict[VReg, PReg] = field(default_factory=dict)
    spilled: list[VReg] = field(default_factory=list)


def alignment(width: int) -> int:
    return 1 if width <= 32 else 2 if width == 64 else 4


@lru_cache(maxsize=None)
def positions(file: str, size: int, width: int, kind: str) -> tuple[int, ...]:
    """The start indices a value of `width` bits may take, in order of preference."""
    usable = set(allocatable(file, size))
    count, align = width // 32, alignment(width)
    starts = [r for r in range(0, size, align) if all(u in usable for u in range(r, r + count))]
    if kind == "func":
        saved = set(callee_saved(file, size))
        starts.sort(key=lambda r: any(u in saved for u in range(r, r + count)))
    return tuple(starts)


@dataclass
class FileScan:
    """The state of the scan of one file."""

    file: str
    size: int
    live: LiveIntervals
    kind: str
    owner: dict[int, Interval] = field(default_factory=dict)  # unit -> active interval
    result: Assignment = field(default_factory=Assignment)

    def fixed_conflict(self, start: int, count: int, iv: Interval) -> bool:
        return any(self.live.fixed_overlap((self.file, u), iv.start, iv.end) for u in range(start, start + count))

    def free(self, start: int, count: int, iv: Interval) -> bool:
        return (all(u not in self.owner for u in range(start, start + count))
                and not self.fixed_conflict(start, count, iv))

    def expire(self, point: int) -> None:
        for unit in [u for u, iv in self.owner.items() if iv.end < point]:
            del self.owner[unit]

    def take(self, iv: Interval, start: int) -> None:
        reg = PReg(self.file, start, iv.reg.width)
        self.result.registers[iv.reg] = reg
        for u in reg.units():
            self.owner[u] = iv

    def spill(self, iv: Interval) -> None:
        self.result.registers.pop(iv.reg, None)
        self.result.spilled.append(iv.reg)
        for u in [u for u, other in self.owner.items() if other is iv]:
            del self.owner[u]

    def hinted(self, iv: Interval) -> int | None:
        for hint, offset in iv.hints:
            reg = hint if isinstance(hint, PReg) else self.result.registers.get(hint)
            if reg is None or reg.file != self.file:
                continue
            start = reg.index + offset
            if start in self.choices(iv.reg.width) and self.free(start, iv.reg.width // 32, iv):
                return start
        return None

    def choices(self, width: int) -> tuple[int, ...]:
        return positions(self.file, self.size, width, self.kind)

    def allocate(self, iv: Interval) -> None:
        self.expire(iv.start)
        count = iv.reg.width // 32
        start = self.hinted(iv)
        if start is None:
            start = next((r for r in self.choices(iv.reg.width) if self.free(r, count, iv)), None)
        if start is None:
            start = self.evict_for(iv)
        if start is None:
            self.spill(iv)
        else:
            self.take(iv, start)

    def evict_for(self, iv: Interval) -> int | None:
        """Empty the cheapest position whose active intervals weigh less than `iv`; None: spill `iv`."""
        count = iv.reg.width // 32
        best: tuple[float, int, list[Interval]] | None = None
        for r in self.choices(iv.reg.width):
            if self.fixed_conflict(r, count, iv):
                continue
            victims = list({id(o): o for u in range(r, r + count) if (o := self.owner.get(u))}.values())
            cost = sum(v.weight for v in victims)
            if best is None or cost < best[0]:
                best = (cost, r, victims)
        if best is None or best[0] >= iv.weight:
            return None
        for victim in best[2]:
            self.spill(victim)
        return best[1]


def scan(live: LiveIntervals, files: dict[str, int], kind: str) -> Assignment:
    """Assign every interval of both files (see the module docstring)."""
    out = Assignment()
    for file in ("s", "v"):
        state = FileScan(file, files[file], live, kind)
        for iv in sorted((iv for iv in live.intervals.values() if iv.reg.file == file),
                         key=lambda iv: (iv.start, -iv.reg.width, iv.reg.id)):
            state.allocate(iv)
        out.registers.update(state.result.registers)
        out.spilled += state.result.spilled
    return out
