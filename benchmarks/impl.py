"""One OpenCL implementation under test: oclpy's cpu device or PyOpenCL on PoCL.

Both speak PyOpenCL's API, so `Impl` drives either through the same calls:
build a case's program, make its buffers, launch, read outputs back.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from .case import Case


@dataclass
class Prepared:
    """A case made ready on one implementation: kernel with arguments set."""

    kernel: Any
    args: list[Any]
    buffers: dict[str, Any] = field(default_factory=dict)
    build_s: float = 0.0


class Impl:
    def __init__(self, name: str, cl: ModuleType, device: Any) -> None:
        self.name, self.cl, self.device = name, cl, device
        self.ctx = cl.Context([device])
        self.queue = cl.CommandQueue(self.ctx)

    def build(self, source: str) -> tuple[Any, float]:
        t0 = time.perf_counter()
        prg = self.cl.Program(self.ctx, source).build()
        return prg, time.perf_counter() - t0

    def prepare(self, case: Case, source: str | None = None) -> Prepared:
        prg, build_s = self.build(source or case.source)
        kernel = getattr(prg, case.kernel)
        mf = self.cl.mem_flags
        args, buffers = [], {}
        for a in case.args:
            if a.kind == "scalar":
                args.append(a.value)
            elif a.kind == "local":
                args.append(self.cl.LocalMemory(int(a.value)))
            else:
                host = np.ascontiguousarray(a.value)
                buf = self.cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=host)
                buffers[a.name] = buf
                args.append(buf)
        kernel.set_args(*args)
        return Prepared(kernel, args, buffers, build_s)

    def launch(self, case: Case, p: Prepared, global_size: tuple[int, ...] | None = None) -> None:
        self.cl.enqueue_nd_range_kernel(self.queue, p.kernel, global_size or case.global_size,
                                        case.local_size)

    def call(self, case: Case, p: Prepared, global_size: tuple[int, ...]) -> None:
        """A launch the way a Python user writes it: `kernel(queue, g, l, *args)`."""
        p.kernel(self.queue, global_size, case.local_size, *p.args)

    def finish(self) -> None:
        self.queue.finish()

    def outputs(self, case: Case, p: Prepared) -> dict[str, np.ndarray]:
        out = {}
        for a in case.args:
            if a.kind == "out":
                host = np.empty_like(np.asarray(a.value))
                self.cl.enqueue_copy(self.queue, host, p.buffers[a.name])
                out[a.name] = host
        self.queue.finish()
        return out


def oclpy_impl() -> Impl:
    import oclpy

    dev = next(d for p in oclpy.get_platforms() for d in p.get_devices()
               if d.type & oclpy.device_type.CPU)
    return Impl("oclpy", oclpy, dev)


POCL_MISSING = ("PoCL not found: install PyOpenCL and PoCL to compare "
                "(pip install 'oclpy[bench]', i.e. pyopencl pocl-binary-distribution); "
                "running oclpy alone")


def pocl_impl() -> tuple[Impl | None, str]:
    """PyOpenCL's PoCL cpu device, or None and why not."""
    try:
        import pyopencl as cl
    except ImportError:
        return None, POCL_MISSING
    try:
        for plat in cl.get_platforms():
            if "portable computing language" in plat.name.lower() or "pocl" in plat.version.lower():
                devs = plat.get_devices()
                if devs:
                    return Impl("pocl", cl, devs[0]), ""
    except cl.Error as exc:
        return None, f"{POCL_MISSING} ({exc})"
    return None, POCL_MISSING


def oclpy_device(kind: str) -> tuple[Impl | None, str]:
    """oclpy's first device of `kind` ("simt", "cpu", ...), or None and why not."""
    import oclpy

    devs = [dv for p in oclpy.get_platforms() for dv in p.get_devices() if dv.kind == kind]
    return (Impl(kind, oclpy, devs[0]), "") if devs else (None, f"oclpy has no {kind} device here")


def timed(impl: Impl, case: Case, p: Prepared) -> float:
    """Seconds for one launch of a prepared case, to its end."""
    t0 = time.perf_counter()
    impl.launch(case, p)
    impl.finish()
    return time.perf_counter() - t0


def versions(impl: Impl) -> dict[str, str]:
    info = {"device": impl.device.name, "platform": impl.device.platform.name,
            "platform_version": impl.device.platform.version,
            "compute_units": str(impl.device.max_compute_units)}
    info["package_version"] = getattr(impl.cl, "VERSION_TEXT", getattr(impl.cl, "__version__", ""))
    return info
