"""Data races: two work-items touching the same bytes, at least one writing, unordered.

Shadow state per byte records the last writer and the last reader(s) as a tag
and the instruction (pc) that made it. A tag is `(epoch << 32) | item + 1`
(0: none), the work-item's linear global id and the barriers its work-group
had passed (its epoch); a reader's tag has `SEVERAL` set when more than one
work-item read the byte since it was last written (the item is then the last
reader). An access by work-item `i` conflicts with an earlier one by `j != i`
unless both are in one work-group (the group is `j`'s, from its id) and a
barrier lies between (`j`'s epoch smaller). So local memory races are found
within a work-group between two barriers, and global memory races within a
group between barriers and across groups at any time (a launch offers no
order between groups). Atomics neither check nor leave a trace. Two lanes of
one instruction on the same bytes race too. Both sides are reported: the
access found here, and a note at the earlier one.

The order is only worked out for the lanes whose earlier access is another
work-item's (bytes one work-item alone touches cost two compares), the
work-group only for global memory (local memory's bytes are one group's),
and the pc only for a lane that clashes.

Units: a dense shadow keeps one record per 4-byte word while every access of
the launch to that space has been whole aligned words (each word's bytes
would hold the same record); the first access that is not (a `char`, a
misaligned `int`) turns it into one record per byte, copying each word's
record to its bytes over the words touched. An access whose lanes are all
aligned to its size (4, 8 or 16 bytes) is checked at its first unit and
recorded on all its units at once through a rows view of the shadow; others
unit by unit.

Global shadow state covers the whole arena (`Shadow`, dense, made per launch
with zeroed arrays the system maps as they are touched) up to `DENSE_LIMIT`
bytes, else the pages the launch touches (made on first touch); local shadow
state covers one batch's local memory. Everything is NumPy over the lanes' bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..sim_memory import SimError
from .check_session import Checker

PAGE = 4096
ITEM = np.int64(0x7FFFFFFF)  # a tag's item + 1
SEVERAL = np.int64(1 << 31)  # a reader's tag: more than one work-item read the byte
WHO = ITEM | SEVERAL
ARRAYS = ("w_tag", "w_pc", "r_tag", "r_pc")


@dataclass
class Shadow:
    """Last writer and reader per unit of memory (tags, pcs). Dense: a place per unit, `unit`
    bytes (4, words, while every access has been whole aligned words: each word's bytes then
    share one record; 1 from the first access that is not); else per byte, for the pages
    touched (`slot` maps page -> place; the arrays grow by doubling)."""

    size: int  # bytes covered
    dense: bool = False
    unit: int = 1
    slot: np.ndarray = field(init=False)
    used: int = 0  # pages placed
    lo: int = 0  # the units touched so far (word units only): [lo, hi)
    hi: int = 0
    w_tag: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    w_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    r_tag: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    r_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))

    def __post_init__(self) -> None:
        pages = self.size // PAGE + 1
        self.slot = np.full(pages if not self.dense else 0, -1, np.int64)
        if self.dense:
            self.unit = 4
            self.lo, self.hi = pages * PAGE // 4, 0
            for name in ARRAYS:
                setattr(self, name, np.zeros(pages * PAGE // 4, getattr(self, name).dtype))

    def to_bytes(self) -> None:
        """Word records to byte records (the first access that is not whole aligned words):
        each word's record copied to its four bytes, over the words touched."""
        lo, hi = self.lo, max(self.lo, self.hi)
        for name in ARRAYS:
            old = getattr(self, name)
            new = np.zeros(4 * len(old), old.dtype)
            new[4 * lo:4 * hi] = np.repeat(old[lo:hi], 4)
            setattr(self, name, new)
        self.unit = 1

    def places(self, units: np.ndarray) -> np.ndarray:
        """Shadow indices of units (arena offsets / unit), making the pages not touched before."""
        if self.dense:
            return units
        page = units >> 12
        if page.size and page.max() >= len(self.slot):
            grown = np.full(int(page.max()) + 1, -1, np.int64)
            grown[:len(self.slot)] = self.slot
            self.slot = grown
        slots = self.slot[page]
        if (slots < 0).any():
            self.make(np.unique(page[slots < 0]))
            slots = self.slot[page]
        return (slots << 12) | (units & (PAGE - 1))

    def make(self, missing: np.ndarray) -> None:
        self.slot[missing] = np.arange(self.used, self.used + len(missing))
        self.used += len(missing)
        need = self.used * PAGE
        if need > len(self.w_tag):
            size = max(need, 2 * len(self.w_tag))
            for name in ARRAYS:
                old = getattr(self, name)
                new = np.zeros(size, old.dtype)
                new[:len(old)] = old
                setattr(self, name, new)

    def rows(self, k: int) -> tuple[np.ndarray, ...]:
        """The four arrays as rows of k units (k divides 4; dense shadows only, whose length
        is a whole number of pages)."""
        return tuple(getattr(self, name).reshape(-1, k) for name in ARRAYS)


DENSE_LIMIT = 1 << 25  # arenas up to this many bytes get a dense shadow, larger ones pages


def shadow_for(chk: Checker, s: Any, space: str, data: np.ndarray) -> Shadow:
    """The launch's global shadow, or the batch's local one (made on first use: zeroed arrays
    whose pages the system gives as they are first touched, so that a launch pays for the
    bytes it touches, not for the arena)."""
    key = ("races", space)
    found = chk.state.get(key)
    if found is not None and (space == "global" or found[0] is s):
        return found[1]
    items = int(np.prod(s.global_size, dtype=np.int64))
    if items >= ITEM:
        raise SimError(f"the race check tells at most {int(ITEM) - 1} work-items apart; this launch has {items}")
    shadow = Shadow(len(data), dense=space == "local" or len(data) <= DENSE_LIMIT)
    chk.state[key] = (s, shadow)
    return shadow


def group_of(s: Any, items: np.ndarray) -> np.ndarray:
    """The linear work-group id (`Batch.group_linear`'s numbering) of work-items by linear id."""
    gx, gy, _ = s.global_size
    lx, ly, lz = s.local_size
    nx, ny = gx // lx, gy // ly
    return (items % gx) // lx + nx * ((items // gx % gy) // ly + ny * ((items // (gx * gy)) // lz))


def clashes(s: Any, prior: np.ndarray, tag: np.ndarray, group: np.ndarray, mask: np.int64,
            local: bool) -> np.ndarray:
    """Where the earlier access (tag `prior`, 0 none) is another work-item's (`mask` picks what
    makes it another: the item, and for readers the several flag) with no barrier between.
    Local memory's bytes are one work-group's: no group to compare."""
    other = (prior != 0) & ((prior & mask) != (tag & ITEM))
    rows = np.nonzero(other)[0]
    if len(rows):
        p = prior[rows]
        ordered = (p >> 32) < (tag[rows] >> 32)  # a barrier between, if one group
        if not local and ordered.any():
            ordered &= group_of(s, (p & ITEM) - 1) == group[rows]
        other[rows[ordered]] = False
    return other


def access(chk: Checker, s: Any, pc: int, space: str, data: np.ndarray, offsets: np.ndarray, ok: np.ndarray,
           w: np.ndarray, lane: np.ndarray, n: int, write: bool) -> None:
    """Check and record the bytes `[offsets, offsets + n)` the lanes (w, lane) access.

    An access whose every lane is aligned to its size, 4, 8 or 16 bytes, is checked at its
    first unit only, and recorded on all (a narrower access to the other units alone, by
    another work-item, can go unseen)."""
    if not ok.all():
        lanes = np.nonzero(ok)[0]
        if not len(lanes):
            return
        offsets, w, lane = offsets[lanes], w[lanes], lane[lanes]
    shadow = shadow_for(chk, s, space, data)
    base = offsets.astype(np.int64)
    if shadow.unit == 4 and (n & 3 or (base & 3).any()):
        shadow.to_bytes()
    unit = shadow.unit
    k = n // unit  # units per lane
    first = base >> 2 if unit == 4 else base
    if unit == 4:
        shadow.lo, shadow.hi = min(shadow.lo, int(first.min())), max(shadow.hi, int(first.max()) + k)
    gw = s.group[w]
    item = s.item_ids.ravel() if w is s.all_waves and lane is s.all_lanes else s.item_ids[w, lane]
    group = s.group_linear[gw]
    tag = (s.epoch[gw] << 32) | (item + 1)
    aligned = shadow.dense and n in (4, 8, 16) and not (first & (k - 1)).any()
    if aligned:
        at, owner = first, np.arange(len(first))
    else:
        probe = (first[:, None] + np.arange(k)).ravel()
        tag, group, owner = np.repeat(tag, k), np.repeat(group, k), np.repeat(np.arange(len(first)), k)
        at = shadow.places(probe)
    local = space == "local"
    clash_w = clashes(s, shadow.w_tag[at], tag, group, ITEM, local)
    if clash_w.any():
        report(chk, s, pc, space, clash_w, owner, w, lane, write, shadow.w_tag, shadow.w_pc, at, True)
    if write:
        clash_r = clashes(s, shadow.r_tag[at], tag, group, WHO, local) & ~clash_w
        if clash_r.any():
            report(chk, s, pc, space, clash_r, owner, w, lane, write, shadow.r_tag, shadow.r_pc, at, False)
    if aligned and k > 1:
        record_rows(chk, s, pc, space, shadow, at, tag, group, w, lane, k, write)
    else:
        record(chk, s, pc, space, shadow, at, tag, group, owner, w, lane, write)


def record(chk: Checker, s: Any, pc: int, space: str, shadow: Shadow, at: np.ndarray, tag: np.ndarray,
           group: np.ndarray, owner: np.ndarray, w: np.ndarray, lane: np.ndarray, write: bool) -> None:
    """Leave this access in the shadow, unit by unit. Lanes of one instruction on the same units:
    reading the tags back shows where another lane's landed (a write: a race; reads: several
    readers)."""
    if write:
        shadow.w_tag[at], shadow.w_pc[at], shadow.r_tag[at] = tag, pc, 0
        landed = shadow.w_tag[at]
        clash = landed != tag
        if clash.any():
            report(chk, s, pc, space, clash, owner, w, lane, True, shadow.w_tag, shadow.w_pc, at, True)
        return
    new = reader_tags(s, shadow.r_tag[at], tag, group, space == "local")
    shadow.r_tag[at], shadow.r_pc[at] = new, pc
    landed = shadow.r_tag[at]
    several = landed != new
    if several.any():
        shadow.r_tag[at[several]] = landed[several] | SEVERAL


def record_rows(chk: Checker, s: Any, pc: int, space: str, shadow: Shadow, at: np.ndarray, tag: np.ndarray,
                group: np.ndarray, w: np.ndarray, lane: np.ndarray, k: int, write: bool) -> None:
    """`record` for an aligned access: each lane's k units as one row of the shadow."""
    w_tag, w_pc, r_tag, r_pc = shadow.rows(k)
    row = at // k
    if write:
        w_tag[row], w_pc[row], r_tag[row] = tag[:, None], pc, 0
        landed = shadow.w_tag[at]
        clash = landed != tag
        if clash.any():
            report(chk, s, pc, space, clash, np.arange(len(at)), w, lane, True, shadow.w_tag, shadow.w_pc, at,
                   True)
        return
    new = reader_tags(s, shadow.r_tag[at], tag, group, space == "local")
    r_tag[row], r_pc[row] = new[:, None], pc
    landed = shadow.r_tag[at]
    several = landed != new
    if several.any():
        r_tag[row[several]] = (landed[several] | SEVERAL)[:, None]


def reader_tags(s: Any, prior: np.ndarray, tag: np.ndarray, group: np.ndarray, local: bool) -> np.ndarray:
    """The readers' tags after this read: this one alone, unless another work-item read the
    byte too with no barrier between (then several)."""
    return np.where(clashes(s, prior, tag, group, WHO, local), tag | SEVERAL, tag)


SPACE_NAMES = {"local": "__local", "global": "__global"}


def report(chk: Checker, s: Any, pc: int, space: str, clash: np.ndarray, owner: np.ndarray, w: np.ndarray,
           lane: np.ndarray, write: bool, other_tags: np.ndarray, other_pcs: np.ndarray, at: np.ndarray,
           other_write: bool) -> None:
    """Report the clashing lanes, naming the other side of the first (its tag and pc from the
    shadow arrays at `at`; within one instruction, the tags read back)."""
    rows = np.nonzero(clash)[0]
    lanes = np.unique(owner[rows])
    first = int(rows[0])
    other = int(other_tags[at[first]])
    them = (other & int(ITEM)) - 1
    several = not other_write and bool(other & int(SEVERAL))
    who = "several work-items" if several else f"work-item {format_item(s, them)}"
    this = "write" if write else "read"
    that = "write" if other_write else "read"
    message = (f"data race on {SPACE_NAMES[space]} memory: this {this} and a {that} by {who} "
               f"are not ordered by a barrier")
    chk.report("data-race", s, pc, message, w[lanes], lane[lanes], other_pc=int(other_pcs[at[first]]),
               other=f"the other access, a {that}")


def format_item(s: Any, linear: int) -> str:
    """A work-item's global id from its linear id in the NDRange."""
    gx, gy, _ = s.global_size
    ox, oy, oz = s.global_offset
    return f"({linear % gx + ox},{linear // gx % gy + oy},{linear // (gx * gy) + oz})"
