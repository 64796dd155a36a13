"""Large host<->device copies through pinned (page-locked) staging buffers.

A copy from or to pageable memory cannot be DMA'd directly: the CUDA driver
stages it itself. `Staging` does the staging with two pinned chunks of its
own so that the host-side copy of one chunk overlaps the DMA of the other:

- host -> device: copy chunk i into pinned slot i % 2 (after that slot's
  previous DMA finished), then start its DMA;
- device -> host: start the DMA of chunk i + 1, then wait for chunk i and copy
  it out of its slot.

One `Staging` per thread (its stream's copies are ordered); the pinned memory
(2 x CHUNK bytes) is allocated on first use and kept for the thread's life.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import cuda_api as api

CHUNK = 8 << 20
THRESHOLD = 4 << 20  # copies of at least this many bytes are staged here


class Staging:
    def __init__(self, drv: Any) -> None:
        self.drv = drv
        self.addresses = [int(api.call(drv.cuMemHostAlloc, CHUNK, 0)) for _ in range(2)]
        self.slots = [np.ctypeslib.as_array((ctypes.c_uint8 * CHUNK).from_address(a))
                      for a in self.addresses]
        flags = drv.CUevent_flags.CU_EVENT_DISABLE_TIMING
        self.events = [api.call(drv.cuEventCreate, flags) for _ in range(2)]

    def write(self, device_address: int, host: np.ndarray, stream: Any) -> None:
        """Copy all of `host` (uint8) to `device_address`; returns when it is there."""
        pending = [False, False]
        for i, start in enumerate(range(0, host.nbytes, CHUNK)):
            slot, n = i % 2, min(CHUNK, host.nbytes - start)
            if pending[slot]:
                api.call(self.drv.cuEventSynchronize, self.events[slot])
            self.slots[slot][:n] = host[start:start + n]
            api.call(self.drv.cuMemcpyHtoDAsync, device_address + start, self.addresses[slot],
                     n, stream)
            api.call(self.drv.cuEventRecord, self.events[slot], stream)
            pending[slot] = True
        api.call(self.drv.cuStreamSynchronize, stream)

    def read(self, device_address: int, host: np.ndarray, stream: Any) -> None:
        """Fill all of `host` (uint8) from `device_address`."""
        starts = list(range(0, host.nbytes, CHUNK))
        self._fetch(device_address, host, starts, 0, stream)
        for i, start in enumerate(starts):
            if i + 1 < len(starts):
                self._fetch(device_address, host, starts, i + 1, stream)
            slot, n = i % 2, min(CHUNK, host.nbytes - start)
            api.call(self.drv.cuEventSynchronize, self.events[slot])
            host[start:start + n] = self.slots[slot][:n]

    def _fetch(self, device_address: int, host: np.ndarray, starts: list[int], i: int,
               stream: Any) -> None:
        slot, start = i % 2, starts[i]
        n = min(CHUNK, host.nbytes - start)
        api.call(self.drv.cuMemcpyDtoHAsync, self.addresses[slot], device_address + start, n,
                 stream)
        api.call(self.drv.cuEventRecord, self.events[slot], stream)
