"""The checks every transfer command (copy, fill, map, rectangular copy) makes before anything runs:
the queue is a CommandQueue of the buffer's context, the buffer is alive, a range fits, and the
host-access flags a buffer was created with."""

from __future__ import annotations

from typing import Any

from .constants import mem_flags
from .errors import raise_cl, status_code
from .memory import Buffer
from .queue import CommandQueue

HOST_NO_WRITE = mem_flags.HOST_READ_ONLY | mem_flags.HOST_NO_ACCESS
HOST_NO_READ = mem_flags.HOST_WRITE_ONLY | mem_flags.HOST_NO_ACCESS


def check_queue_and_buffer(queue: Any, buf: Buffer, routine: str) -> None:
    if not isinstance(queue, CommandQueue):
        raise_cl(routine, status_code.INVALID_COMMAND_QUEUE,
                 f"expected a CommandQueue, got {type(queue).__name__}")
    buf.check_alive(routine)
    if buf.context is not queue.context:
        raise_cl(routine, status_code.INVALID_CONTEXT, "the buffer belongs to another context")


def check_range(routine: str, verb: str, offset: int, nbytes: int, size: int) -> None:
    if offset + nbytes > size:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"{verb} {nbytes} bytes at offset {offset} overruns the buffer's {size} bytes")
