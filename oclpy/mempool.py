"""Allocators and the memory pool of `pyopencl.tools`.

`ImmediateAllocator(queue)` / `DeferredAllocator(context)` make Buffers
(None for 0 bytes, as PyOpenCL's do). `MemoryPool(allocator)` keeps freed
blocks in bins and hands them out again: a block's bin is its size's
exponent with the next `leading_bits_in_bin_id` bits (PyOpenCL's and
PyCUDA's scheme), and the pool allocates the largest size of a bin, so any
block of that bin fits any request that maps there. Blocks are
`PooledBuffer`s: a Buffer that goes back to its pool on `release()` or
when collected.
"""

from __future__ import annotations

import threading
from typing import Any

from oclpy import Buffer, LogicError, MemoryError, mem_flags, status_code


def bitlog2(n: int) -> int:
    """floor(log2(n)) for n > 0, and 0 for 0."""
    return max(n.bit_length() - 1, 0)


def _shift(x: int, amount: int) -> int:
    """x << amount, or x >> -amount for a negative amount."""
    return x << amount if amount >= 0 else x >> -amount


class _Allocator:
    def __init__(self, context: Any, flags: int = mem_flags.READ_WRITE) -> None:
        self.context = context
        self.flags = flags

    def __call__(self, size: int) -> Buffer | None:
        if size == 0:
            return None
        return Buffer(self.context, self.flags, size)


class DeferredAllocator(_Allocator):
    """Buffers of a context (memory is made when the Buffer is)."""

    def __init__(self, context: Any, mem_flags: int = mem_flags.READ_WRITE) -> None:
        super().__init__(context, mem_flags)


class ImmediateAllocator(_Allocator):
    """Buffers of a queue's context, allocated at once (allocation errors surface here)."""

    def __init__(self, queue: Any, mem_flags: int = mem_flags.READ_WRITE) -> None:
        super().__init__(queue.context, mem_flags)
        self.queue = queue


class PooledBuffer(Buffer):
    """A Buffer handed out by a MemoryPool; `release()` returns its block to the pool."""

    def __init__(self, pool: MemoryPool, block: Buffer, size: int) -> None:
        super().__init__(block.context, block.flags, size, _parent=block, _origin=0)
        self.parent = None
        self._pool = pool
        self._block = block
        self._returned = False

    def release(self) -> None:
        if self._returned:
            raise LogicError("PooledBuffer.release", status_code.INVALID_MEM_OBJECT, "already released")
        self._returned = True
        super().release()
        self._pool._give_back(self._block)

    def __del__(self) -> None:
        if not self._returned:
            self._returned = True
            self._pool._give_back(self._block)


class MemoryPool:
    """Reuses freed blocks; see the module docstring for the bin scheme."""

    def __init__(self, allocator: Any, leading_bits_in_bin_id: int = 4) -> None:
        self.allocator = allocator
        self.leading_bits_in_bin_id = leading_bits_in_bin_id
        self._bins: dict[int, list[Any]] = {}
        self._lock = threading.Lock()
        self._stop_holding = False
        self.held_blocks = 0
        self.active_blocks = 0
        self.managed_bytes = 0
        self.active_bytes = 0

    # -- bins -------------------------------------------------------------------

    def bin_number(self, size: int) -> int:
        bits = self.leading_bits_in_bin_id
        exponent = bitlog2(size)
        shifted = _shift(size, bits - exponent)
        if size and not shifted & (1 << bits):
            raise RuntimeError("memory_pool::bin_number: bitlog2 fault")
        return exponent << bits | (shifted & ((1 << bits) - 1))

    def alloc_size(self, bin_nr: int) -> int:
        bits = self.leading_bits_in_bin_id
        exponent, mantissa = bin_nr >> bits, bin_nr & ((1 << bits) - 1)
        ones = _shift(1, exponent - bits)
        ones = ones - 1 if ones else 0
        head = _shift((1 << bits) | mantissa, exponent - bits)
        if ones & head:
            raise RuntimeError("memory_pool::alloc_size: bit-counting fault")
        return head | ones

    # -- blocks -----------------------------------------------------------------

    def _take(self, bin_nr: int) -> Any:
        with self._lock:
            blocks = self._bins.get(bin_nr)
            if blocks:
                self.held_blocks -= 1
                return blocks.pop()
        return None

    def _new_block(self, size: int) -> Any:
        try:
            return self.allocator(size)
        except MemoryError:
            self.free_held()
            return self.allocator(size)

    def allocate(self, size: int) -> PooledBuffer | None:
        if size < 0:
            raise LogicError("MemoryPool.allocate", status_code.INVALID_VALUE, "negative size")
        if size == 0:
            return None
        bin_nr = self.bin_number(size)
        block = self._take(bin_nr)
        if block is None:
            alloc = self.alloc_size(bin_nr)
            block = self._new_block(alloc)
            self.managed_bytes += alloc
        self.active_blocks += 1
        self.active_bytes += size
        return PooledBuffer(self, block, size)

    __call__ = allocate

    def _give_back(self, block: Any) -> None:
        with self._lock:
            self.active_blocks -= 1
            if self._stop_holding:
                self.managed_bytes -= block.size
                return
            self._bins.setdefault(self.bin_number(block.size), []).append(block)
            self.held_blocks += 1

    def free_held(self) -> None:
        with self._lock:
            for blocks in self._bins.values():
                for block in blocks:
                    self.managed_bytes -= block.size
                    block.release()
                blocks.clear()
            self.held_blocks = 0

    def stop_holding(self) -> None:
        self._stop_holding = True
        self.free_held()

    def set_trace(self, flag: bool) -> None:
        """PyOpenCL prints each allocation when tracing; oclpy keeps no trace."""


class SizeOnlyMemoryPool(MemoryPool):
    """A MemoryPool over an allocator that hands out plain sizes, no memory: PyOpenCL's
    `_cl._TestMemoryPool`, which its tests use to check the bin arithmetic."""

    def __init__(self, leading_bits_in_bin_id: int = 4) -> None:
        super().__init__(_SizeAllocator(), leading_bits_in_bin_id)

    def allocate(self, size: int) -> Any:  # type: ignore[override]
        bin_nr = self.bin_number(size)
        block = self._take(bin_nr) or _Block(self.alloc_size(bin_nr))
        assert block.size >= size
        return block


class _Block:
    def __init__(self, size: int) -> None:
        self.size = size


class _SizeAllocator:
    def __call__(self, size: int) -> _Block:
        return _Block(size)


__all__ = ["DeferredAllocator", "ImmediateAllocator", "MemoryPool", "PooledBuffer"]
