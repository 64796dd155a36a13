"""Memory checks: out-of-bounds accesses per address space, access modes, released buffers.

The simulator calls these with the lanes of one memory instruction (waves
`w`, lanes `lane`, in order) when a checker runs; the lanes that fail are
reported and the simulator sends them to a sink instead of raising.

- `global_access`: global and constant memory (and the kernarg segment,
  read by scalar loads): an address in no live buffer, or running past the
  end of the buffer whose stretch of the address space it is in (buffers
  never share a stretch: `sim_memory.GlobalMemory`), a released buffer, a
  store to a read-only buffer, a read of a write-only one.
- `segment_access`: local memory (outside the work-group's allocation) and
  private memory (outside the work-item's frame).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..sim_memory import GlobalMemory
from .check_session import Checker


def verb(write: bool) -> str:
    return "write to" if write else "read from"


def buffer_name(chk: Checker, memory: GlobalMemory, k: int) -> str:
    """'__global buffer 'out' (argument 2)', or what the buffer is when no argument names it."""
    assert chk.launch is not None
    if k == chk.launch.kernarg:
        return "the kernel arguments"
    arg = chk.launch.buffers.get(k)
    if arg is not None:
        return f"{arg.space} buffer '{arg.name}' (argument {arg.index})"
    return f"__global buffer at {memory.buffers[k].base:#x}"


def nearest(memory: GlobalMemory, address: int, k: int) -> int:
    """The buffer an address past buffer k's end most likely meant: k, or the next one when the
    address is nearer its start (a negative index)."""
    b = memory.buffers[k]
    if k + 1 < len(memory.buffers) and memory.buffers[k + 1].base - address < address - (b.base + b.size):
        return k + 1
    return k


def global_access(chk: Checker, s: Any, pc: int, w: np.ndarray, lane: np.ndarray | None, address: np.ndarray,
                  n: int, write: bool, ok: np.ndarray) -> np.ndarray:
    """Report the lanes of a global access that fail; returns the lanes that may go on."""
    memory: GlobalMemory = s.memory
    modes = memory.modes()
    if modes is None and ok.all():
        return ok
    lane = np.zeros(len(w), np.int64) if lane is None else lane
    owner = memory.owner(address)
    bad = ~ok
    if bad.any():
        alive = np.array([b.alive for b in memory.buffers] + [False], bool)[owner]
        ends = np.array([b.base + b.size for b in memory.buffers] + [0], np.uint64)[owner]
        within = address.astype(np.uint64) + np.uint64(n) <= ends
        released = bad & (owner >= 0) & ~alive & within
        inside = bad & alive & within if write else np.zeros(len(w), bool)
        report_each(chk, s, pc, w, lane, address, n, write, released, "released-buffer", memory)
        report_each(chk, s, pc, w, lane, address, n, write, inside, "access-mode", memory)
        report_each(chk, s, pc, w, lane, address, n, write, bad & ~released & ~inside, "out-of-bounds", memory)
    if modes is not None:
        wrong = ok & (modes[owner] == ("r" if write else "w"))
        report_each(chk, s, pc, w, lane, address, n, write, wrong, "access-mode", memory)
        ok = ok & ~wrong
    return ok


def report_each(chk: Checker, s: Any, pc: int, w: np.ndarray, lane: np.ndarray, address: np.ndarray, n: int,
                write: bool, which: np.ndarray, kind: str, memory: GlobalMemory) -> None:
    if not which.any():
        return
    rows = np.nonzero(which)[0]
    first = int(address[rows[0]])
    chk.report(kind, s, pc, global_message(chk, memory, kind, first, n, write), w[rows], lane[rows])


def global_message(chk: Checker, memory: GlobalMemory, kind: str, address: int, n: int, write: bool) -> str:
    (k,) = memory.owner(np.array([address], np.uint64)).tolist()
    if k < 0:
        return f"out-of-bounds {n}-byte {verb(write)} __global memory at {address:#x}, in no buffer"
    if kind == "released-buffer":
        return f"{n}-byte {verb(write)} {buffer_name(chk, memory, k)}, which was released"
    if kind == "access-mode":
        what = "read-only" if write else "write-only"
        action = "write to" if write else "read of"
        return f"{action} {what} {buffer_name(chk, memory, k)}"
    k = nearest(memory, address, k)
    b = memory.buffers[k]
    return (f"out-of-bounds {verb(write)} {buffer_name(chk, memory, k)}: offset {address - b.base}, "
            f"size {b.size}")


SEGMENTS = {"local": ("__local memory", "the work-group's"), "private": ("__private memory", "the work-item's")}


def segment_access(chk: Checker, s: Any, pc: int, space: str, w: np.ndarray, lane: np.ndarray,
                   offset: np.ndarray, n: int, write: bool, limit: int) -> np.ndarray:
    """Report the lanes whose local or private access leaves the segment; returns the good lanes."""
    bad = (offset < 0) | (offset + n > limit)
    if bad.any():
        rows = np.nonzero(bad)[0]
        name, whose = SEGMENTS[space]
        message = (f"out-of-bounds {n}-byte {verb(write)} {name}: offset {int(offset[rows[0]])}, "
                   f"{whose} size {limit}")
        chk.report("out-of-bounds", s, pc, message, w[rows], lane[rows])
    return ~bad
