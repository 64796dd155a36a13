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

Global shadow state covers the pages of the arena the launch touches
(`Shadow`, pages of `PAGE` bytes made on first touch); local shadow state
covers one batch's local memory. Everything is NumPy over the lanes' bytes.
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
    """Last writer and reader per byte, for the pages touched (`slot` maps page -> place)."""

    pages: int
    slot: np.ndarray = field(init=False)
    w_item: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    w_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    w_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    r_item: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    r_pc: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    r_key: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    def __post_init__(self) -> None:
        self.slot = np.full(self.pages + 1, -1, np.int64)

    def places(self, offsets: np.ndarray) -> np.ndarray:
        """Shadow indices of arena offsets, making the pages not touched before."""
        page = offsets >> 12
        missing = np.unique(page[self.slot[page] < 0])
        if len(missing):
            if missing[-1] >= len(self.slot):
                grown = np.full(int(missing[-1]) + 1, -1, np.int64)
                grown[:len(self.slot)] = self.slot
                self.slot = grown
            start = len(self.w_item) // PAGE
            self.slot[missing] = np.arange(start, start + len(missing))
            extra = len(missing) * PAGE
            self.w_item = np.concatenate([self.w_item, np.full(extra, NONE, np.int64)])
            self.r_item = np.concatenate([self.r_item, np.full(extra, NONE, np.int64)])
            self.w_pc = np.concatenate([self.w_pc, np.zeros(extra, np.int32)])
            self.r_pc = np.concatenate([self.r_pc, np.zeros(extra, np.int32)])
            self.w_key = np.concatenate([self.w_key, np.zeros(extra, np.int64)])
            self.r_key = np.concatenate([self.r_key, np.zeros(extra, np.int64)])
        return (self.slot[page] << 12) | (offsets & (PAGE - 1))


def unordered(before: np.ndarray, now: np.ndarray) -> np.ndarray:
    """Whether accesses with keys `before` and `now` have no barrier between them."""
    same_group = (before >> 32) == (now >> 32)
    return ~(same_group & ((before & 0xFFFFFFFF) < (now & 0xFFFFFFFF)))


def shadow_for(chk: Checker, s: Any, space: str, data: np.ndarray) -> Shadow:
    """The launch's global shadow, or the batch's local one (made on first use)."""
    key = ("races", space)
    found = chk.state.get(key)
    if space == "local" and found is not None and found[0] is not s:
        found = None
    if found is None:
        found = (s, Shadow(len(data) // PAGE + 1))
        chk.state[key] = found
    return found[1]


def access(chk: Checker, s: Any, pc: int, space: str, data: np.ndarray, offsets: np.ndarray, ok: np.ndarray,
           w: np.ndarray, lane: np.ndarray, n: int, write: bool) -> None:
    """Check and record the bytes `[offsets, offsets + n)` the lanes (w, lane) access."""
    lanes = np.nonzero(ok)[0]
    if not len(lanes):
        return
    shadow = shadow_for(chk, s, space, data)
    item = np.repeat(s.item_ids[w[lanes], lane[lanes]], n)
    key = np.repeat(s.order_key[w[lanes]], n)
    byte = (offsets[lanes].astype(np.int64)[:, None] + np.arange(n)).ravel()
    at = shadow.places(byte)
    owner = np.repeat(lanes, n)
    prior_w = shadow.w_item[at]
    clash_w = (prior_w >= 0) & (prior_w != item) & unordered(shadow.w_key[at], key)
    report(chk, s, pc, space, clash_w, owner, w, lane, write, prior_w, shadow.w_pc[at], True)
    if write:
        prior_r = shadow.r_item[at]
        clash_r = (prior_r != NONE) & (prior_r != item) & unordered(shadow.r_key[at], key)
        report(chk, s, pc, space, clash_r & ~clash_w, owner, w, lane, write, prior_r, shadow.r_pc[at], False)
    same_instruction(chk, s, pc, space, byte, item, owner, w, lane, write)
    record(shadow, at, item, key, pc, write)


def same_instruction(chk: Checker, s: Any, pc: int, space: str, byte: np.ndarray, item: np.ndarray,
                     owner: np.ndarray, w: np.ndarray, lane: np.ndarray, write: bool) -> None:
    """Lanes of one store writing the same bytes."""
    if not write or len(byte) < 2:
        return
    order = np.argsort(byte, kind="stable")
    b, i = byte[order], item[order]
    clash = np.zeros(len(b), bool)
    clash[1:] = (b[1:] == b[:-1]) & (i[1:] != i[:-1])
    if clash.any():
        first = np.zeros(len(b), np.int64)
        first[1:] = i[:-1]
        report(chk, s, pc, space, clash, owner[order], w, lane, True, first, np.full(len(b), pc, np.int32), True)


def record(shadow: Shadow, at: np.ndarray, item: np.ndarray, key: np.ndarray, pc: int, write: bool) -> None:
    if write:
        shadow.w_item[at], shadow.w_key[at], shadow.w_pc[at] = item, key, pc
        shadow.r_item[at] = NONE
        return
    prior = shadow.r_item[at]
    keep = (prior == NONE) | (prior == item) | ~unordered(shadow.r_key[at], key)
    reader = np.where(keep, item, SEVERAL)
    order = np.argsort(at, kind="stable")
    dup = np.zeros(len(at), bool)
    dup[1:] = (at[order][1:] == at[order][:-1]) & (item[order][1:] != item[order][:-1])
    reader[order[dup]] = SEVERAL
    shadow.r_item[at], shadow.r_key[at], shadow.r_pc[at] = reader, key, pc
    shadow.r_item[at[order[dup]]] = SEVERAL


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
    gx, gy, _ = s.global_size
    return f"({linear % gx},{linear // gx % gy},{linear // (gx * gy)})"
