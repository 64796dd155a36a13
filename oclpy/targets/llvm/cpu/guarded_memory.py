"""Memory of one cpu launch call: `__local` memory and barrier frames, in mappings of their own.

A kernel that writes past its `__local` array (128 work-items storing into a
64-element array) must not corrupt the process's heap, as it did when that
memory was a numpy array among Python's objects (the crash came at exit).
Each region here is an anonymous mapping of its own: the bytes asked for,
rounded up to whole pages, then as many again (at least a page) of slack that
a small overflow lands in harmlessly, then a guard page (PROT_NONE) that stops
a large one with a fault before it reaches anything else; a guard page before
the region does the same for negative indexes. Regions are kept for reuse
(`MAX_KEPT` of each size); a reused one is zeroed up to the size asked for, as
a fresh mapping is (barrier frames rely on starting at zero).

Where mappings cannot be made (no `mmap`), regions are zeroed numpy buffers.
"""

from __future__ import annotations

import ctypes
import mmap
import threading
from typing import Any

import numpy as np

PAGE = mmap.PAGESIZE
PROT_NONE = 0  # (mmap.PROT_NONE only from Python 3.13)
MAX_KEPT = 8  # regions of one size kept for reuse
_lock = threading.Lock()
_free: dict[int, list[Region]] = {}

try:
    _libc = ctypes.CDLL(None, use_errno=True)
    _mmap, _munmap, _mprotect = _libc.mmap, _libc.munmap, _libc.mprotect
    _mmap.restype = ctypes.c_void_p
    _mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                      ctypes.c_long]
    _munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
    _mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    _FLAGS = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
    MAPPED = True
except (AttributeError, OSError):  # no mmap (Windows): plain buffers
    MAPPED = False


class Region:
    """One guarded mapping; `address` is where the usable bytes start."""

    __slots__ = ("base", "total", "size", "address", "_buffer")

    def __init__(self, size: int) -> None:
        self.size = size  # usable bytes, slack included
        self._buffer: Any = None
        if not MAPPED:
            self._buffer = np.zeros(size + 64, np.uint8)
            addr = self._buffer.ctypes.data
            self.base, self.total, self.address = 0, 0, addr + (-addr) % 64
            return
        self.total = size + 2 * PAGE
        base = _mmap(None, self.total, mmap.PROT_READ | mmap.PROT_WRITE, _FLAGS, -1, 0)
        if base is None or base == ctypes.c_void_p(-1).value:
            raise MemoryError(f"cannot map {self.total} bytes for a launch's local memory")
        self.base, self.address = base, base + PAGE
        _mprotect(base, PAGE, PROT_NONE)
        _mprotect(base + PAGE + size, PAGE, PROT_NONE)

    def release(self) -> None:
        if MAPPED and self.base:
            _munmap(self.base, self.total)
            self.base = 0


def _size_class(nbytes: int) -> int:
    pages = -(-nbytes // PAGE)
    return max(2 * pages, pages + 1) * PAGE  # the bytes, then as many again of slack


def acquire(nbytes: int) -> Region | None:
    """A region of at least `nbytes` zeroed bytes (None for 0 bytes)."""
    if nbytes <= 0:
        return None
    size = _size_class(nbytes)
    with _lock:
        kept = _free.get(size)
        region = kept.pop() if kept else None
    if region is None:
        return Region(size)
    ctypes.memset(region.address, 0, nbytes)
    return region


def release(region: Region | None) -> None:
    """Give `region` back for reuse (or unmap it when enough of its size are kept)."""
    if region is None:
        return
    with _lock:
        kept = _free.setdefault(region.size, [])
        if len(kept) < MAX_KEPT:
            kept.append(region)
            return
    region.release()
