"""Data races: two work-items touching the same bytes, at least one writing, unordered.

Shadow state per byte records the last writer and the last reader(s): the
work-item (a linear global id; -1 none, -2 several readers), the instruction
(pc) and an ordering key `(group << 32) | epoch`, where a work-group's epoch
counts the barriers it has passed. An access by work-item `i` with key `k`
conflicts with an earlier one by `j != i` with key `k'` unless both are in
one work-group and a barrier lies between (`k'` of the same group with a
smaller epoch). So local memory races are found within a work-group between
two barriers, and global memory races within a group between barriers and
across groups at any time (a launch offers no order between groups).
Atomics neither check nor leave a trace. Two lanes of one instruction on the
same bytes race too. Both sides are reported: the access found here, and a
note at the earlier one.

Global shadow state covers the whole arena (`Shadow`, dense, kept from one
launch to the next and reset) up to `DENSE_LIMIT` bytes, else the pages the
launch touches (made on first touch); local shadow state covers one batch's
local memory. Everything is NumPy over the lanes' bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .check_session import Checker

PAGE = 4096
NONE, SEVERAL = -1, -2


@dataclass
class Shadow:
    """Last writer and reader per byte, for the pages touched (`slot` maps page -> place);
    the arrays grow by doubling."""

    pages: int
    dense: bool = False  # every byte has its place (offset = index): no pages to look up
    slot: np.ndarray = field(init=False)
    used: int = 0  # pages placed
    w_item: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    w_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    w_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    r_item: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    r_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    r_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __post_init__(self) -> None:
        self.slot = np.full(self.pages + 1, -1, np.int64)
        if self.dense:
            self.slot[:] = np.arange(len(self.slot))
            self.used = 0
            self.make(np.zeros(0, np.int64), len(self.slot))

    def reset(self) -> None:
        """Forget every access (a new launch): only the items say whether the rest means anything."""
        self.w_item.fill(NONE)
        self.r_item.fill(NONE)

    def places(self, offsets: np.ndarray) -> np.ndarray:
        """Shadow indices of arena offsets, making the pages not touched before."""
        if self.dense:
            return offsets
        page = offsets >> 12
        if page.size and page.max() >= len(self.slot):
            grown = np.full(int(page.max()) + 1, -1, np.int64)
            grown[:len(self.slot)] = self.slot
            self.slot = grown
        slots = self.slot[page]
        if (slots < 0).any():
            self.make(np.unique(page[slots < 0]))
            slots = self.slot[page]
        return (slots << 12) | (offsets & (PAGE - 1))

    def make(self, missing: np.ndarray, count: int = 0) -> None:
        self.slot[missing] = np.arange(self.used, self.used + len(missing))
        self.used += len(missing) + count
        need = self.used * PAGE
        if need > len(self.w_item):
            size = max(need, 2 * len(self.w_item))
            for name, fill in (("w_item", NONE), ("r_item", NONE), ("w_pc", 0), ("r_pc", 0), ("w_key", 0),
                               ("r_key", 0)):
                old = getattr(self, name)
                new = np.full(size, fill, old.dtype)
                new[:len(old)] = old
                setattr(self, name, new)


def unordered(before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Whether accesses with keys `before` and `now` have no barrier between them."""
    same_group = (before >> 32) == (now >> 32)
    return ~(same_group & ((before & 0xFFFFFFFF) < (now & 0xFFFFFFFF)))


DENSE_LIMIT = 1 << 25  # arenas up to this many bytes get a dense shadow, larger ones pages


def shadow_for(chk: Checker, s: Any, space: str, data: np.ndarray) -> Shadow:
    """The launch's global shadow (kept between launches while the arena keeps its size), or the
    batch's local one (made on first use)."""
    key = ("races", space)
    found = chk.state.get(key)
    if found is not None and (space == "global" or found[0] is s):
        return found[1]
    if space == "local":
        shadow = Shadow(len(data) // PAGE + 1, dense=True)
    else:
        kept = chk.kept.get(key)
        if kept is not None and kept[0] == len(data):
            shadow = kept[1]
            shadow.reset()
        else:
            shadow = Shadow(len(data) // PAGE + 1, dense=len(data) <= DENSE_LIMIT)
            if shadow.dense:
                chk.kept[key] = (len(data), shadow)
    chk.state[key] = (s, shadow)
    return shadow


def access(chk: Checker, s: Any, pc: int, space: str, data: np.ndarray, offsets: np.ndarray, ok: np.ndarray,
           w: np.ndarray, lane: np.ndarray, n: int, write: bool) -> None:
    """Check and record the bytes `[offsets, offsets + n)` the lanes (w, lane) access.

    An access whose every lane is aligned to its size (n >= 4) is checked at its first byte
    only, and its record copied to the other bytes: NumPy work per lane, not per byte (a
    narrower access to those other bytes alone, by another work-item, can go unseen)."""
    lanes = np.nonzero(ok)[0]
    if not len(lanes):
        return
    shadow = shadow_for(chk, s, space, data)
    base = offsets[lanes].astype(np.int64)
    item = s.item_ids[w[lanes], lane[lanes]]
    key = s.order_key[w[lanes]]
    aligned = n >= 4 and shadow.dense and not (base & (n - 1)).any()
    if aligned:
        probe, owner = base, lanes
    else:
        probe = (base[:, None] + np.arange(n)).ravel()
        item, key, owner = np.repeat(item, n), np.repeat(key, n), np.repeat(lanes, n)
    at = shadow.places(probe)
    prior_w = shadow.w_item[at]
    clash_w = (prior_w >= 0) & (prior_w != item) & unordered(shadow.w_key[at], key)
    report(chk, s, pc, space, clash_w, owner, w, lane, write, prior_w, shadow.w_pc[at], True)
    if write:
        prior_r = shadow.r_item[at]
        clash_r = (prior_r != NONE) & (prior_r != item) & unordered(shadow.r_key[at], key)
        report(chk, s, pc, space, clash_r & ~clash_w, owner, w, lane, write, prior_r, shadow.r_pc[at], False)
    record(chk, s, pc, space, shadow, at, item, key, owner, w, lane, write)
    if aligned:
        rest = (at[:, None] + np.arange(1, n)).ravel()
        arrays = (shadow.w_item, shadow.w_key, shadow.w_pc, shadow.r_item) if write else \
            (shadow.r_item, shadow.r_key, shadow.r_pc)
        for array in arrays:
            array[rest] = np.repeat(array[at], n - 1)


def record(chk: Checker, s: Any, pc: int, space: str, shadow: Shadow, at: np.ndarray, item: np.ndarray,
           key: np.ndarray, owner: np.ndarray, w: np.ndarray, lane: np.ndarray, write: bool) -> None:
    """Leave this access in the shadow. Lanes of one instruction on the same bytes: reading the
    item back shows where another lane's landed (a write: a race; reads: several readers)."""
    if write:
        shadow.w_item[at], shadow.w_key[at], shadow.w_pc[at] = item, key, pc
        shadow.r_item[at] = NONE
        landed = shadow.w_item[at]
        clash = landed != item
        if clash.any():
            report(chk, s, pc, space, clash, owner, w, lane, True, landed, np.full(len(at), pc, np.int32), True)
        return
    prior = shadow.r_item[at]
    keep = (prior == NONE) | (prior == item) | ~unordered(shadow.r_key[at], key)
    shadow.r_item[at] = np.where(keep, item, SEVERAL)
    shadow.r_key[at], shadow.r_pc[at] = key, pc
    landed = shadow.r_item[at]
    several = (landed != item) & (landed != SEVERAL)
    if several.any():
        shadow.r_item[at[several]] = SEVERAL


SPACE_NAMES = {"local": "__local", "global": "__global"}


def report(chk: Checker, s: Any, pc: int, space: str, clash: np.ndarray, owner: np.ndarray, w: np.ndarray,
           lane: np.ndarray, write: bool, other_item: np.ndarray, other_pc: np.ndarray, other_write: bool) -> None:
    if not clash.any():
        return
    rows = np.nonzero(clash)[0]
    lanes = np.unique(owner[rows])
    first = rows[0]
    them = int(other_item[first])
    who = "several work-items" if them == SEVERAL else f"work-item {format_item(s, them)}"
    this = "write" if write else "read"
    that = "write" if other_write else "read"
    message = (f"data race on {SPACE_NAMES[space]} memory: this {this} and a {that} by {who} "
               f"are not ordered by a barrier")
    chk.report("data-race", s, pc, message, w[lanes], lane[lanes], other_pc=int(other_pc[first]),
               other=f"the other access, a {that}")


def format_item(s: Any, linear: int) -> str:
    """A work-item's global id from its linear id in the NDRange."""
    gx, gy, _ = s.global_size
    ox, oy, oz = s.global_offset
    return f"({linear % gx + ox},{linear // gx % gy + oy},{linear // (gx * gy) + oz})"
