"""Helpers for the simt tests: assemble machine code text, fill buffers, launch, read back."""

from __future__ import annotations

import struct
from typing import Any, Sequence

import numpy as np

from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.sim_memory import GlobalMemory
from oclpy.targets.simt.simulator import RunStats, SimConfig, run_kernel


class Launch:
    """A memory with buffers and a kernarg blob built argument by argument."""

    def __init__(self) -> None:
        self.memory = GlobalMemory()
        self.args = b""

    def arg(self, fmt: str, *values: Any) -> None:
        """Append one argument at its natural alignment (`struct` format: Q, I, i, f, d, ...)."""
        size = struct.calcsize("<" + fmt)
        align = min(size, 8)
        self.args += b"\0" * (-len(self.args) % align) + struct.pack("<" + fmt, *values)

    def buffer(self, array: np.ndarray, read_only: bool = False) -> int:
        """Upload `array` and pass its address."""
        address = self.memory.upload(array, read_only=read_only)
        self.arg("Q", address)
        return address

    def output(self, dtype: Any, count: int) -> int:
        address = self.memory.alloc(np.dtype(dtype).itemsize * count)
        self.arg("Q", address)
        return address

    def read(self, address: int, dtype: Any, count: int) -> np.ndarray:
        return self.memory.download(address, dtype, count)

    def run(self, source: str, kernel: str, global_size: Sequence[int], local_size: Sequence[int],
            config: SimConfig | None = None, **options: Any) -> RunStats:
        return run_kernel(parse_asm(source), kernel, self.memory, global_size=global_size,
                          local_size=local_size, args=self.args, config=config or SimConfig(), **options)
