"""Definedness of memory bytes for the uninitialised check: loads read it, stores leave it.

Global memory's bits live in `GlobalMemory.defined` (host writes and kernel
stores set them); local and private memory's in the batch's `Shadow`
(`uninit_checks.new_shadow`). Aligned 4-, 8- and 16-byte accesses read and
write the bits as words (a word of bytes all 1 is defined); others byte by
byte. A lane the memory check sent to the sink reads defined bits, so that
one bug gives one report; a store to global memory of a value none of whose
bytes is defined is reported.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..sim_memory import SINK_BYTES
from .check_session import Checker


def byte_bits(s: Any, data: np.ndarray) -> np.ndarray:
    """The defined bits of the bytes of `data` (global memory, or the batch's local or private)."""
    if data is s.local:
        return s.shadow.local
    if data is s.private:
        return s.shadow.private
    return s.memory.defined


WORD_DEFINED = {4: (np.uint32, 0x01010101), 8: (np.uint64, 0x0101010101010101)}


def words_view(bits: np.ndarray, n: int) -> np.ndarray:
    """The bytes' bits as n-byte words (all defined: every byte 1), over the whole n-aligned part."""
    dtype, _ = WORD_DEFINED[n]
    return bits[:len(bits) // n * n].view(dtype)


def aligned(bits: np.ndarray, offsets: np.ndarray, n: int) -> bool:
    """Whether every access is n-aligned (n a word size here) and inside the word view."""
    return n in WORD_DEFINED and not (offsets & (n - 1)).any() and int(offsets.max(initial=0)) + n <= len(bits) // n * n


def as_words64(bits: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray | None:
    """For an 8-aligned access of 8 or 16 bytes: indices of its 8-byte words in the uint64 view."""
    if n not in (8, 16) or not aligned(bits, offsets, 8) or int(offsets.max(initial=0)) + n > len(bits) // 8 * 8:
        return None
    return ((offsets // 8)[:, None] + np.arange(n // 8)).ravel()


def load(s: Any, data: np.ndarray, offsets: np.ndarray, n: int) -> np.ndarray:
    """Per lane of a load, the defined bits of each loaded register word."""
    offsets = offsets.astype(np.int64)
    bits = byte_bits(s, data)
    sink = in_sink(s, data, offsets)
    if n == 4 and aligned(bits, offsets, 4):
        return (words_view(bits, 4)[offsets // 4] == np.uint32(0x01010101))[:, None] | sink[:, None]
    at = as_words64(bits, offsets, n)
    if at is not None:
        words = words_view(bits, 8)[at]
        halves = np.stack([words & np.uint64(0xFFFFFFFF), words >> np.uint64(32)], axis=1).reshape(len(offsets), -1)
        return (halves == np.uint64(0x01010101)) | sink[:, None]
    rows = bits[offsets[:, None] + np.arange(n)] | sink[:, None]
    return rows.reshape(len(rows), max(1, n // 4), -1).all(axis=2)


def in_sink(s: Any, data: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Lanes a checked run sent to the sink (their access was reported already): their values count
    as defined, so that one bug is one report."""
    if data is s.memory.data:
        return offsets < SINK_BYTES
    return offsets >= len(data) - SINK_BYTES


def store(chk: Checker, s: Any, pc: int, data: np.ndarray, offsets: np.ndarray, word_bits: np.ndarray, n: int,
          w: np.ndarray, lane: np.ndarray) -> None:
    """Leave the stored words' bits in memory; a store to global memory of a wholly undefined value is reported."""
    offsets = offsets.astype(np.int64)
    bits = byte_bits(s, data)
    bad: np.ndarray
    at = as_words64(bits, offsets, n)
    if n == 4 and aligned(bits, offsets, 4):
        words_view(bits, 4)[offsets // 4] = np.where(word_bits[:, 0], np.uint32(0x01010101), np.uint32(0))
        bad = np.logical_not(word_bits[:, 0])
    elif at is not None and word_bits.shape[1] == n // 4:
        pairs = word_bits.reshape(len(offsets), n // 8, 2)
        low = np.where(pairs[:, :, 0], np.uint64(0x01010101), np.uint64(0))
        high = np.where(pairs[:, :, 1], np.uint64(0x0101010100000000), np.uint64(0))
        words_view(bits, 8)[at] = (low | high).ravel()
        bad = np.logical_not(word_bits.any(axis=1))
    else:
        per_byte = np.repeat(word_bits, 4, axis=1)[:, :n] if n >= 4 else np.broadcast_to(word_bits[:, :1], (len(w), n))
        bits[offsets[:, None] + np.arange(n)] = per_byte
        bad = np.logical_not(per_byte.any(axis=1))
    if data is s.memory.data:
        if bad.any():
            chk.report("uninitialized", s, pc, "store of an uninitialised value to __global memory", w[bad], lane[bad])
