"""The simulator's memories: the global arena of buffers, and atomics over byte arrays.

- `GlobalMemory`: the device's one 64-bit global address space. Buffers are
  carved from one NumPy byte arena (`data`), each aligned and followed by a
  red zone; buffer k's addresses start at `GLOBAL_BASE + k * BUFFER_SPACING`,
  never reused, so an address names its buffer even past the end or after a
  free (`owner`). `locate` checks a vector of addresses at once (inside a
  live buffer, not past its end, not a store to a read-only one): each
  address's buffer is its stretch, its bounds from a table per buffer index
  kept until a buffer comes or goes (`by_index`); an address
  that fails maps to the sink (arena bytes no buffer holds), so a checked
  run can go on past a bad access.
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

from .memory_model import BUFFER_ALIGN, BUFFER_SPACING, GLOBAL_BASE, RED_ZONE

SINK_BYTES = 256  # arena bytes at offset 0, in no buffer: where a checked run sends bad accesses


class SimError(Exception):
    """A kernel did something the machine does not allow (a bad access, a deadlock, a trap)."""


@dataclass
class Buffer:
    base: int  # device address
    size: int
    read_only: bool
    alive: bool = True
    name: str = ""
    offset: int = 0  # where its bytes start in the arena
    mode: str = "rw"  # what kernels may do with it, checked only by the checker: "rw", "r" or "w"


class GlobalMemory:
    """Buffers in one arena, each at its own stretch of the address space: buffer k starts at
    `GLOBAL_BASE + k * BUFFER_SPACING` (never reused), so an access that runs off a
    buffer, however far, lands in no buffer and says which one it left."""

    def __init__(self, capacity: int = 1 << 20) -> None:
        self.data = np.zeros(capacity, np.uint8)
        self.defined = np.zeros(capacity, bool)  # per byte: written since allocated (the checker's shadow)
        self.buffers: list[Buffer] = []
        self.top = SINK_BYTES  # arena offset of the next buffer (the sink comes first)
        self._by_index: tuple[np.ndarray, ...] | None = None
        self._modes: Any = None  # modes() cached: None unknown, False all "rw", else the array

    def alloc(self, nbytes: int, read_only: bool = False, name: str = "") -> int:
        """A new zeroed buffer's address."""
        offset = (self.top + BUFFER_ALIGN - 1) // BUFFER_ALIGN * BUFFER_ALIGN
        end = offset + max(nbytes, 1) + RED_ZONE
        if end > len(self.data):
            grown = np.zeros(max(end, 2 * len(self.data)), np.uint8)
            grown[: len(self.data)] = self.data
            self.data = grown
            defined = np.zeros(len(grown), bool)
            defined[: len(self.defined)] = self.defined
            self.defined = defined
        self.data[offset:offset + nbytes] = 0
        self.defined[offset:offset + nbytes] = False
        self.top = end
        base = GLOBAL_BASE + len(self.buffers) * BUFFER_SPACING
        self.buffers.append(Buffer(base, nbytes, read_only, name=name, offset=offset))
        self._by_index = self._modes = None
        return base

    def upload(self, array: np.ndarray | bytes, read_only: bool = False, name: str = "") -> int:
        raw = np.frombuffer(bytes(array) if isinstance(array, bytes) else np.ascontiguousarray(array).tobytes(),
                            np.uint8)
        address = self.alloc(len(raw), read_only, name)
        self.write(address, raw)
        return address

    def buffer_at(self, address: int) -> Buffer:
        index = (address - GLOBAL_BASE) // BUFFER_SPACING
        if 0 <= index < len(self.buffers):
            b = self.buffers[index]
            if b.base <= address < b.base + max(b.size, 1):
                return b
        raise SimError(f"address {address:#x} is in no buffer")

    def free(self, address: int) -> None:
        buffer = self.buffer_at(address)
        if buffer.base != address or not buffer.alive:
            raise SimError(f"free of {address:#x}, which is not a live buffer's start")
        buffer.alive = False
        self._by_index = self._modes = None

    def write(self, address: int, raw: np.ndarray | bytes) -> None:
        raw = np.frombuffer(raw, np.uint8) if isinstance(raw, bytes) else raw.view(np.uint8).ravel()
        offsets, ok = self.locate(np.array([address], np.uint64), len(raw), write=False)
        if not ok[0]:
            raise SimError(self.explain(address, len(raw), write=False))
        self.data[offsets[0]:offsets[0] + len(raw)] = raw
        self.defined[offsets[0]:offsets[0] + len(raw)] = True

    def read(self, address: int, nbytes: int) -> bytes:
        offsets, ok = self.locate(np.array([address], np.uint64), nbytes, write=False)
        if not ok[0]:
            raise SimError(self.explain(address, nbytes, write=False))
        return self.data[offsets[0]:offsets[0] + nbytes].tobytes()

    def download(self, address: int, dtype: Any, count: int) -> np.ndarray:
        dtype = np.dtype(dtype)
        return np.frombuffer(self.read(address, dtype.itemsize * count), dtype).copy()

    def set_mode(self, address: int, mode: str) -> None:
        """What kernels may do with the buffer at `address` ("rw", "r", "w"; the checker checks it)."""
        self.buffer_at(address).mode = mode
        self._modes = None

    def modes(self) -> np.ndarray | None:
        """Each buffer's mode ('' after the last: no buffer), or None when every live one is "rw"."""
        if self._modes is None:
            special = any(b.mode != "rw" for b in self.buffers if b.alive)
            self._modes = np.array([b.mode for b in self.buffers] + [""], object) if special else False
        return None if self._modes is False else self._modes

    def by_index(self) -> tuple[np.ndarray, ...]:
        """Per buffer index, then one more for addresses in no buffer's stretch: base and end
        address (a freed buffer ends at its base: nothing is inside), arena offset, writability.
        Cached until a buffer comes or goes."""
        if self._by_index is None:
            bases = np.array([b.base for b in self.buffers] + [0], np.uint64)
            ends = np.array([b.base + b.size if b.alive else b.base for b in self.buffers] + [0], np.uint64)
            arena = np.array([b.offset for b in self.buffers] + [0], np.int64)
            writable = np.array([not b.read_only for b in self.buffers] + [False], bool)
            self._by_index = (bases, ends, arena, writable)
        return self._by_index

    def locate(self, addresses: np.ndarray, nbytes: int, write: bool) -> tuple[np.ndarray, np.ndarray]:
        """Arena offsets of the addresses, and which lie with all `nbytes` in one live buffer
        (a writable one when `write`). Offsets of the others point at the sink. An address's
        buffer is its stretch of the address space: (address - GLOBAL_BASE) / BUFFER_SPACING."""
        bases, ends, arena, writable = self.by_index()
        addresses = addresses.astype(np.uint64, copy=False)
        stretch = (addresses - np.uint64(GLOBAL_BASE)) // np.uint64(BUFFER_SPACING)  # wraps below the base: huge
        inside = stretch < np.uint64(len(self.buffers))
        which = np.where(inside, stretch, np.uint64(len(self.buffers))).astype(np.int64)  # else the extra row
        ok = inside & (addresses >= bases[which]) & (addresses + np.uint64(nbytes) <= ends[which])
        if write:
            ok &= writable[which]
        offsets = (addresses - bases[which]).astype(np.int64) + arena[which]
        return np.where(ok, offsets, 0), ok

    def owner(self, addresses: np.ndarray) -> np.ndarray:
        """Index in `buffers` of the buffer (live or not) whose stretch holds each address; -1: none."""
        index = (addresses.astype(np.uint64, copy=False).astype(np.int64) - GLOBAL_BASE) // BUFFER_SPACING
        index = np.where(addresses.astype(np.uint64, copy=False) >= np.uint64(GLOBAL_BASE), index, -1)
        return np.where(index < len(self.buffers), index, -1)

    def explain(self, address: int, nbytes: int, write: bool) -> str:
        """Why one access is out of range, in words."""
        (k,) = self.owner(np.array([address], np.uint64))
        if k < 0:
            return f"{nbytes}-byte access at {address:#x} is in no buffer"
        b = self.buffers[int(k)]
        if not b.alive:
            return f"{nbytes}-byte access at {address:#x}: the buffer there was freed"
        if write and b.read_only and address + nbytes <= b.base + b.size:
            return f"{nbytes}-byte store at {address:#x}: the buffer {b.name or hex(b.base)} is read-only"
        end = b.base + b.size
        if address < end:
            return (f"{nbytes}-byte access at {address:#x} runs {address + nbytes - end} bytes past the end of the "
                    f"{b.size}-byte buffer at {b.base:#x}")
        after = self.buffers[int(k) + 1] if int(k) + 1 < len(self.buffers) else None
        if after is not None and after.base - address < address - end:
            return (f"{nbytes}-byte access at {address:#x} is {after.base - address} bytes before the start of the "
                    f"{after.size}-byte buffer at {after.base:#x}")
        return (f"{nbytes}-byte access at {address:#x} is {address - end} bytes past the end of the "
                f"{b.size}-byte buffer at {b.base:#x}")


WORDS = {4: np.dtype("<u4"), 8: np.dtype("<u8")}  # accesses moved as whole words when aligned


def word_aligned(data: np.ndarray, offsets: np.ndarray, nbytes: int) -> bool:
    return nbytes in WORDS and len(data) % nbytes == 0 and not (offsets & (nbytes - 1)).any()


def word_size(data: np.ndarray, offsets: np.ndarray, nbytes: int) -> int:
    """The widest word (8 or 4 bytes) that divides a wide access (b96 and up) and every
    offset, so that it moves as rows of words; 0: none does."""
    for size in (8, 4):
        if nbytes % size == 0 and len(data) % size == 0 and not (offsets & (size - 1)).any():
            return size
    return 0


def gather(data: np.ndarray, offsets: np.ndarray, nbytes: int) -> np.ndarray:
    """Rows of `nbytes` bytes from `data` at each offset (aligned words: one word gather;
    wider accesses: rows of aligned words)."""
    at = offsets.astype(np.int64)
    if word_aligned(data, at, nbytes):
        return data.view(WORDS[nbytes])[at // nbytes].view(np.uint8).reshape(len(at), nbytes)
    size = word_size(data, at, nbytes) if nbytes > 8 else 0
    if size:
        rows = data.view(WORDS[size])[(at // size)[:, None] + np.arange(nbytes // size)]
        return rows.view(np.uint8).reshape(len(at), nbytes)
    return data[at[:, None] + np.arange(nbytes)]


def scatter(data: np.ndarray, offsets: np.ndarray, rows: np.ndarray) -> None:
    """Each row of bytes to `data` at its offset; a later row wins where two overlap."""
    at, nbytes = offsets.astype(np.int64), rows.shape[1]
    if word_aligned(data, at, nbytes):
        data.view(WORDS[nbytes])[at // nbytes] = np.ascontiguousarray(rows).view(WORDS[nbytes]).reshape(-1)
        return
    size = word_size(data, at, nbytes) if nbytes > 8 else 0
    if size:  # rows of aligned words: two rows overlap in whole words, the later one wins as before
        words = np.ascontiguousarray(rows).view(WORDS[size]).reshape(len(at), nbytes // size)
        data.view(WORDS[size])[(at // size)[:, None] + np.arange(nbytes // size)] = words
        return
    data[at[:, None] + np.arange(nbytes)] = rows


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
