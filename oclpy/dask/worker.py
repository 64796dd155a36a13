"""What one Dask worker process keeps: a context and queue per device, and built programs.

A worker process (or a plain process: the threaded scheduler, a test) makes
its devices once, at its first chunk: every `cuda` device when it has any
(one context and one in-order queue each), else the `cpu` device
(`pick_devices`; `OCLPY_DASK_DEVICE=cpu|cuda|simt` asks for one kind). A
chunk takes the next device in turn (`next_slot`), so a worker with several
GPUs spreads its chunks over them.

Programs travel as their source text (with the build options) inside each
task, never as a binary: `program(slot, key, make)` builds one the first time
a (device, key) pair is asked for on this worker and keeps it, counting each
build in `stats()["builds"]`; every later chunk reuses it (a generator's
ElementwiseKernel or ReductionKernel is kept the same way, and compiles its
kernels once, at its first call). A lock makes two threads of one worker
asking for the same program at once build it once. `stats()["chunks"]` counts
the tasks the worker ran (chunks, and folds of a reduction's partial values).
"""

from __future__ import annotations

import itertools
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Hashable, Sequence

import oclpy as cl

PREFERRED_KINDS = ("cuda", "cpu")  # GPUs when the worker has any, else the cpu device


@dataclass
class Slot:
    """One device of this worker: its context and in-order queue."""

    device: Any
    context: Any
    queue: Any
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass
class WorkerState:
    slots: list[Slot]
    programs: dict[tuple[int, Hashable], Any] = field(default_factory=dict)
    builds: int = 0
    chunks: int = 0
    turn: Any = field(default_factory=itertools.count)
    lock: threading.Lock = field(default_factory=threading.Lock)


_state: WorkerState | None = None
_state_lock = threading.Lock()


def pick_devices(devices: Sequence[Any], wanted: str | None = None) -> list[Any]:
    """The devices a worker computes on: all of kind `wanted` when given, else every
    GPU (`cuda`) when there is one, else the cpu device."""
    kinds = (wanted,) if wanted else PREFERRED_KINDS
    for kind in kinds:
        found = [d for d in devices if d.kind == kind]
        if found:
            return found
    have = ", ".join(sorted({d.kind for d in devices})) or "none"
    raise cl.RuntimeError("oclpy.dask", cl.status_code.DEVICE_NOT_FOUND,
                          f"no '{'|'.join(kinds)}' device on this worker (devices here: {have})")


def state() -> WorkerState:
    """This process's devices and programs, made at the first call."""
    global _state
    with _state_lock:
        if _state is None:
            wanted = os.environ.get("OCLPY_DASK_DEVICE", "").strip().lower() or None
            devices = pick_devices(cl.get_platforms()[0].get_devices(), wanted)
            slots = []
            for dev in devices:
                ctx = cl.Context([dev])
                slots.append(Slot(dev, ctx, cl.CommandQueue(ctx, dev)))
            _state = WorkerState(slots)
        return _state


def next_slot() -> Slot:
    """The device the next chunk runs on (in turn over this worker's devices)."""
    st = state()
    with st.lock:
        st.chunks += 1
        index = next(st.turn) % len(st.slots)
    return st.slots[index]


def program(slot: Slot, key: Hashable, make: Callable[[Any], Any]) -> Any:
    """What `make(context)` built for `key` on `slot`'s device: built on the first ask,
    then kept for every later chunk."""
    st = state()
    entry = (id(slot), key)
    found = st.programs.get(entry)
    if found is not None:
        return found
    with slot.lock:  # one build per (device, key), however many threads ask at once
        found = st.programs.get(entry)
        if found is None:
            found = make(slot.context)
            with st.lock:
                st.programs[entry] = found
                st.builds += 1
    return found


def stats() -> dict[str, Any]:
    """For `client.run(oclpy.dask.worker_stats)`: this worker's pid, devices, programs
    built and chunks run."""
    st = state()
    return {"pid": os.getpid(), "devices": [s.device.name for s in st.slots],
            "kinds": [s.device.kind for s in st.slots], "builds": st.builds, "chunks": st.chunks}
