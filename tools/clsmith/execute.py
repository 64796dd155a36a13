"""Build and launch one CLSmith kernel on one implementation, as cl_launcher does.

An implementation is "oclpy" (oclpy's cpu device, through `import oclpy as
cl`), "oclpy-O0" (the same at -cl-opt-disable), "pocl" (PoCL through
PyOpenCL) or "pocl-O0". A run builds with `-w -I <CLSmith's headers>`,
launches `entry` with the launch of the kernel's first line
(`generate.parse_launch`) and returns the `result` buffer, or the failure:
"build" (the build log), "crash" (a Python exception escaping oclpy: an
internal error), "launch" (an error while enqueueing or reading back).
This module runs inside a worker process (`workers.py`), so a native crash
or a hang costs only the worker.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from tools.progen.execute import Result

from .generate import parse_launch

IMPLS = ("oclpy", "oclpy-O0", "pocl", "pocl-O0")


@dataclass
class Run(Result):
    """progen's Result (status, detail, outputs = (digest,)) with the time taken
    and the result buffer (one ulong per work-item)."""

    seconds: float = 0.0        # build and launch
    values: bytes = b""
    build_seconds: float = 0.0


_CONTEXTS: dict[str, tuple[Any, Any, Any]] = {}


def _open(family: str) -> tuple[Any, Any, Any]:
    """(module, context, queue) of "oclpy" or "pocl", made once per process."""
    if family not in _CONTEXTS:
        if family == "pocl":
            from tools import pocl_fix

            os.environ.setdefault("POCL_KERNEL_CACHE", "0")
            pocl_fix.apply()
            import warnings

            warnings.filterwarnings("ignore", module="pyopencl")
            import pyopencl as cl
        else:
            import oclpy as cl  # type: ignore[no-redef]
        devices = [d for p in cl.get_platforms() for d in p.get_devices()]
        dev = next((d for d in devices if d.type & cl.device_type.CPU), devices[0])
        ctx = cl.Context([dev])
        _CONTEXTS[family] = (cl, ctx, cl.CommandQueue(ctx))
    return _CONTEXTS[family]


def build_options(include_dir: str, impl: str) -> str:
    """cl_launcher's options: `-w -I<dir>`, and -cl-opt-disable for the -O0 implementations."""
    opts = f"-w -I {shlex.quote(include_dir)}"
    return opts + " -cl-opt-disable" if impl.endswith("-O0") else opts


def _launch(cl: Any, ctx: Any, queue: Any, kernel: Any, source: str) -> np.ndarray:
    launch = parse_launch(source)
    mf = cl.mem_flags
    result = np.zeros(launch.total, np.uint64)
    hosts = [result, *launch.buffers()]
    bufs = [cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=h) for h in hosts]
    kernel(queue, launch.global_size, launch.local_size, *bufs)
    cl.enqueue_copy(queue, result, bufs[0])
    queue.finish()
    return result


def digest(values: bytes) -> str:
    """What two runs compare: a hash of the result buffer."""
    return hashlib.sha1(values).hexdigest()[:16]


def run(source: str, impl: str, include_dir: str, on_built: Callable[[float], None] | None = None) -> Run:
    """Build `source` on `impl` and launch it; a `Run` either way. `on_built` hears the
    build's seconds once the build has succeeded, before the launch."""
    start = time.monotonic()
    cl, ctx, queue = _open(impl.split("-")[0])
    try:
        program = cl.Program(ctx, source).build(options=build_options(include_dir, impl))
    except (cl.RuntimeError, cl.LogicError) as exc:
        return Run("build", str(exc), seconds=time.monotonic() - start)
    except Exception:  # noqa: BLE001 - an escaping exception is what we look for
        return Run("crash", traceback.format_exc(), seconds=time.monotonic() - start)
    built = time.monotonic() - start
    if on_built is not None:
        on_built(built)
    try:
        values = _launch(cl, ctx, queue, program.entry, source)
    except Exception:  # noqa: BLE001
        return Run("launch", traceback.format_exc(), seconds=time.monotonic() - start, build_seconds=built)
    data = values.tobytes()
    return Run("ok", "", (digest(data),), seconds=time.monotonic() - start, values=data, build_seconds=built)
