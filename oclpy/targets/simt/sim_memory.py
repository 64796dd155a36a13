"""The simulator's memories: the global arena of buffers, and atomics over byte arrays.

- `GlobalMemory`: the device's one 64-bit global address space. Buffers are
  carved from one NumPy byte arena (`data`) from `memory_model.GLOBAL_BASE`
  up, each aligned and followed by a red zone, so an address maps to an arena
  offset by one subtraction; `locate` checks a vector of addresses at once
  (inside a live buffer, not past its end, not a store to a read-only one).
- `gather`, `scatter`: bytes at a vector of offsets, as rows.
- `atomic_rmw`: one atomic instruction's lanes applied in lane order, each
  getting the value before its own update, vectorised over distinct
  addresses (a segmented scan for the associative operations, rounds by rank
  for `fadd` and `cmpswap`).

Local and private memories are plain byte arrays the simulator owns (one
segment per work-group, one per lane).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .memory_model import BUFFER_ALIGN, GLOBAL_BASE, RED_ZONE


class SimError(Exception):
    """A kernel did something the machine does not allow (a bad access, a deadlock, a trap)."""


@dataclass
class Buffer:
    base: int  # device address
    size: int
    read_only: bool
    alive: bool = True
    name: str = ""


class GlobalMemory:
    """Buffers in one arena; addresses are `GLOBAL_BASE` + arena offset."""

    def __init__(self, capacity: int = 1 << 20) -> None:
        self.data = np.zeros(capacity, np.uint8)
        self.buffers: list[Buffer] = []
        self.top = 0  # arena offset of the next buffer

    def alloc(self, nbytes: int, read_only: bool = False, name: str = "") -> int:
        """A new zeroed buffer's address."""
        offset = (self.top + BUFFER_ALIGN - 1) // BUFFER_ALIGN * BUFFER_ALIGN
        end = offset + max(nbytes, 1) + RED_ZONE
        if end > len(self.data):
            grown = np.zeros(max(end, 2 * len(self.data)), np.uint8)
            grown[: len(self.data)] = self.data
            self.data = grown
        self.data[offset:offset + nbytes] = 0
        self.top = end
        self.buffers.append(Buffer(GLOBAL_BASE + offset, nbytes, read_only, name=name))
        return GLOBAL_BASE + offset

    def upload(self, array: np.ndarray | bytes, read_only: bool = False, name: str = "") -> int:
        raw = np.frombuffer(bytes(array) if isinstance(array, bytes) else np.ascontiguousarray(array).tobytes(),
                            np.uint8)
        address = self.alloc(len(raw), read_only, name)
        self.write(address, raw)
        return address

    def buffer_at(self, address: int) -> Buffer:
        for b in self.buffers:
            if b.base <= address < b.base + max(b.size, 1):
                return b
        raise SimError(f"address {address:#x} is in no buffer")

    def free(self, address: int) -> None:
        buffer = self.buffer_at(address)
        if buffer.base != address or not buffer.alive:
            raise SimError(f"free of {address:#x}, which is not a live buffer's start")
        buffer.alive = False

    def write(self, address: int, raw: np.ndarray | bytes) -> None:
        raw = np.frombuffer(raw, np.uint8) if isinstance(raw, bytes) else raw.view(np.uint8).ravel()
        offsets, ok = self.locate(np.array([address], np.uint64), len(raw), write=False)
        if not ok[0]:
            raise SimError(self.explain(address, len(raw), write=False))
        self.data[offsets[0]:offsets[0] + len(raw)] = raw

    def read(self, address: int, nbytes: int) -> bytes:
        offsets, ok = self.locate(np.array([address], np.uint64), nbytes, write=False)
        if not ok[0]:
            raise SimError(self.explain(address, nbytes, write=False))
        return self.data[offsets[0]:offsets[0] + nbytes].tobytes()

    def download(self, address: int, dtype: Any, count: int) -> np.ndarray:
        dtype = np.dtype(dtype)
        return np.frombuffer(self.read(address, dtype.itemsize * count), dtype).copy()

    def table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Starts (arena offsets), ends, and writability of the live buffers, sorted."""
        live = [b for b in self.buffers if b.alive]
        starts = np.array([b.base - GLOBAL_BASE for b in live], np.int64)
        ends = starts + np.array([b.size for b in live], np.int64)
        writable = np.array([not b.read_only for b in live], bool)
        return starts, ends, writable

    def locate(self, addresses: np.ndarray, nbytes: int, write: bool) -> tuple[np.ndarray, np.ndarray]:
        """Arena offsets of the addresses, and which lie with all `nbytes` in one live buffer
        (a writable one when `write`)."""
        starts, ends, writable = self.table()
        offsets = addresses.astype(np.uint64) - np.uint64(GLOBAL_BASE)
        offsets = np.where(addresses >= GLOBAL_BASE, offsets, np.uint64(1 << 62)).astype(np.int64)
        if not len(starts):
            return offsets, np.zeros(len(offsets), bool)
        which = np.searchsorted(starts, offsets, side="right") - 1
        clipped = np.maximum(which, 0)
        ok = (which >= 0) & (offsets + nbytes <= ends[clipped])
        if write:
            ok &= writable[clipped]
        return offsets, ok

    def explain(self, address: int, nbytes: int, write: bool) -> str:
        """Why one access is out of range, in words."""
        for b in self.buffers:
            if b.base <= address < b.base + b.size:
                if not b.alive:
                    return f"{nbytes}-byte access at {address:#x}: the buffer there was freed"
                if write and b.read_only:
                    return f"{nbytes}-byte store at {address:#x}: the buffer {b.name or hex(b.base)} is read-only"
                over = address + nbytes - (b.base + b.size)
                return (f"{nbytes}-byte access at {address:#x} runs {over} bytes past the end of the "
                        f"{b.size}-byte buffer at {b.base:#x}")
        near = [b for b in self.buffers if b.base + b.size <= address]
        if near:
            b = max(near, key=lambda b: b.base)
            return (f"{nbytes}-byte access at {address:#x} is {address - b.base - b.size} bytes past the end of the "
                    f"{b.size}-byte buffer at {b.base:#x}")
        return f"{nbytes}-byte access at {address:#x} is in no buffer"


def gather(data: np.ndarray, offsets: np.ndarray, nbytes: int) -> np.ndarray:
    """Rows of `nbytes` bytes from `data` at each offset."""
    return data[offsets.astype(np.int64)[:, None] + np.arange(nbytes)]


def scatter(data: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> None:
    """Each row of bytes to `data` at its offset; a later row wins where two overlap."""
    data[offsets.astype(np.int64)[:, None] + np.arange(rows.shape[1])] = rows


# atomic operation -> (how values combine, how the combination applies to memory)
SCANNED = {
    "add": (np.add, np.add), "sub": (np.add, np.subtract), "and": (np.bitwise_and, np.bitwise_and),
    "or": (np.bitwise_or, np.bitwise_or), "xor": (np.bitwise_xor, np.bitwise_xor),
    "smin": (np.minimum, np.minimum), "smax": (np.maximum, np.maximum),
    "umin": (np.minimum, np.minimum), "umax": (np.maximum, np.maximum),
    "swap": (lambda a, b: b, lambda m, acc: acc),
}


def segmented_inclusive_scan(values: np.ndarray, segment: np.ndarray, combine: Any) -> np.ndarray:
    """Inclusive scan of `values` within runs of equal `segment` (Hillis-Steele doubling)."""
    out = values.copy()
    step = 1
    while step < len(out):
        same = segment[step:] == segment[:-step]
        out[step:] = np.where(same, combine(out[:-step], out[step:]), out[step:])
        step *= 2
    return out


def atomic_rmw(words: np.ndarray, index: np.ndarray, op: str, value: np.ndarray,
               compare: np.ndarray | None = None) -> np.ndarray:
    """Apply lanes' atomics in order to `words` (a typed view of memory) at `index`;
    returns each lane's old value."""
    order = np.argsort(index, kind="stable")
    idx, val = index[order], value[order]
    first = np.ones(len(idx), bool)
    first[1:] = idx[1:] != idx[:-1]
    initial = words[idx]
    if op in SCANNED:
        combine, apply = SCANNED[op]
        acc = segmented_inclusive_scan(val, idx, combine)
        before = np.where(first, initial, apply(initial, np.roll(acc, 1)).astype(words.dtype))
        last = np.ones(len(idx), bool)
        last[:-1] = idx[1:] != idx[:-1]
        words[idx[last]] = apply(initial[last], acc[last]).astype(words.dtype)
    else:
        before = by_rank(words, idx, first, op, val, None if compare is None else compare[order])
    old = np.empty_like(before)
    old[order] = before
    return old


def by_rank(words: np.ndarray, idx: np.ndarray, first: np.ndarray, op: str, val: np.ndarray,
            compare: np.ndarray | None) -> np.ndarray:
    """Rounds over each lane's rank among the lanes of its address: every round's addresses differ."""
    starts = np.maximum.accumulate(np.where(first, np.arange(len(idx)), 0))
    rank = np.arange(len(idx)) - starts
    before = np.empty(len(idx), words.dtype)
    for r in range(int(rank.max(initial=-1)) + 1):
        now = rank == r
        at = idx[now]
        old = words[at]
        before[now] = old
        if op == "fadd":
            words[at] = old + val[now]
        else:  # cmpswap
            words[at] = np.where(old == compare[now], val[now], old)
    return before
