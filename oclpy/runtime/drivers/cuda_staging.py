"""Large host -> device copies through pinned (page-locked) staging buffers.

A copy from pageable memory cannot be DMA'd directly: the CUDA driver stages
it itself. `Staging` does the staging with two pinned chunks of its own, so
that the host-side copy of one chunk overlaps the DMA of the other: chunk i
is copied into pinned slot i % 2 (after that slot's previous DMA finished),
then its DMA starts.

Only writes are staged, because only they gain, and only large ones. Measured
on an H200 (256 MiB, best of 3, two runs): host -> device 8.0-9.0 GB/s staged
vs 6.9-8.3 GB/s through the driver (NVIDIA's OpenCL: 6.4-8.5); device -> host
8.1 GB/s staged vs 15.2 GB/s through the driver, whose own staging of reads
is faster. `python -m benchmarks.copy_bandwidth --device cuda`
(benchmarks/results/copies-cuda-h200-20261201-1915.json, best of 5): 16 MiB
writes 6.5 GB/s staged vs 10.7 through the driver (NVIDIA 11.0), 256 MiB
8.0 staged vs 7.0 (NVIDIA 8.3): staging starts at 64 MiB.

One `Staging` per thread (its stream's copies are ordered); the pinned memory
(2 x CHUNK bytes) is allocated on first use and kept for the thread's life.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from . import cuda_api as api

CHUNK = 8 << 20
THRESHOLD = 64 << 20  # copies of at least this many bytes are staged here


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
