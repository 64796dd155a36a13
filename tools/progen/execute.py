"""Run one generated program on one implementation and return what it computed.

An implementation is oclpy's cpu device at a level ("O0": -cl-opt-disable,
"O2": the default), oclpy's simt device ("simt": its register files are
the worker's `OCLPY_SIMT_SGPRS`/`OCLPY_SIMT_VGPRS`) or PoCL through PyOpenCL
("pocl"). A run builds the
program, launches `entry` at each of `SHAPES`, and returns the hashes and
global counters per shape, or the failure: "build" (the build log),
"crash" (a Python exception that escaped: always a bug in oclpy), "launch".
This module runs inside a worker process (`workers.py`), so a native crash
or a hang costs only the worker.
"""

from __future__ import annotations

import hashlib
import importlib
import os
import traceback
from dataclasses import dataclass
from typing import Any

import numpy as np

from .program import INPUT_LEN, KERNEL, KLONG, KSHORT, KVEC, SCRATCH_PER_ITEM
from .stmts import ATOMIC_INIT

# (global size, local size): 1-D and 2-D, groups of 1 to 64 work-items
SHAPES: list[tuple[tuple[int, ...], tuple[int, ...]]] = [
    ((1,), (1,)), ((24,), (8,)), ((64,), (16,)), ((8, 4), (4, 2)),
]
IMPLS = ("O0", "O2", "pocl")
OPTIONS = {"O0": "-cl-opt-disable", "O2": "", "pocl": "", "simt": ""}


@dataclass
class Result:
    """What one implementation made of one program."""

    status: str                 # "ok" | "build" | "crash" | "launch"
    detail: str = ""            # the build log or traceback
    outputs: tuple[str, ...] = ()  # one digest of out, gcnt and scratch per shape

    def same(self, other: "Result") -> bool:
        return self.status == other.status == "ok" and self.outputs == other.outputs


_IMPL_CACHE: dict[str, Any] = {}


def _cl(impl: str) -> tuple[Any, Any, Any]:
    """(module, context, queue) for an implementation, made once per process."""
    if impl not in _IMPL_CACHE:
        if impl == "pocl":
            from tools import pocl_fix

            os.environ.setdefault("POCL_KERNEL_CACHE", "0")
            pocl_fix.apply()
            import warnings

            warnings.filterwarnings("ignore", module="pyopencl")
            import pyopencl as cl

            dev = next(d for p in cl.get_platforms() for d in p.get_devices())
        else:
            os.environ.setdefault("OCLPY_NO_CACHE", "1")
            import oclpy as cl

            kind = "simt" if impl == "simt" else "cpu"
            dev = next(d for p in cl.get_platforms() for d in p.get_devices() if d.kind == kind)
        ctx = cl.Context([dev])
        _IMPL_CACHE[impl] = (cl, ctx, cl.CommandQueue(ctx))
    return _IMPL_CACHE[impl]


def inputs() -> np.ndarray:
    rng = np.random.default_rng(12345)
    return rng.integers(-2**31, 2**31, INPUT_LEN, dtype=np.int64).astype(np.int32)


def _launch(cl: Any, ctx: Any, queue: Any, kernel: Any, shape: tuple) -> str:
    gsize, lsize = shape
    n = int(np.prod(gsize))
    mf = cl.mem_flags
    out = np.zeros(n, np.uint64)
    gcnt = np.array([int(v.rstrip("u"), 0) for v in ATOMIC_INIT], np.uint32)
    scratch = np.zeros(n * SCRATCH_PER_ITEM, np.int32)
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=a)
            for a in (out, gcnt, scratch, inputs())]
    kvec = np.array(KVEC, np.uint8).view(importlib.import_module(cl.__name__ + ".cltypes").uchar8)[0]
    kernel(queue, gsize, lsize, *bufs, np.uint16(KSHORT), np.int64(KLONG), kvec)
    for host, buf in zip((out, gcnt, scratch), bufs):
        cl.enqueue_copy(queue, host, buf)
    queue.finish()
    return hashlib.sha1(out.tobytes() + gcnt.tobytes() + scratch.tobytes()).hexdigest()[:16]


def run(source: str, impl: str, shapes: list | None = None) -> Result:
    """Build `source` on `impl` and launch it at `shapes` (default `SHAPES`)."""
    cl, ctx, queue = _cl(impl)
    try:
        program = cl.Program(ctx, source).build(options=OPTIONS[impl])
    except cl.RuntimeError as exc:
        return Result("build", str(exc))
    except cl.LogicError as exc:
        return Result("build", str(exc))
    except Exception:  # noqa: BLE001 - an escaping exception is what we look for
        return Result("crash", traceback.format_exc())
    try:
        kernel = getattr(program, KERNEL)
        return Result("ok", "", tuple(_launch(cl, ctx, queue, kernel, s) for s in shapes or SHAPES))
    except Exception:  # noqa: BLE001
        return Result("launch", traceback.format_exc())

