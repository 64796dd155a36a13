"""The OpenCL implementations under test, driven through one PyOpenCL-style API.

On the cpu: oclpy's cpu device, PoCL and Intel's CPU runtime (both through
PyOpenCL); on an NVIDIA GPU: oclpy's cuda device and NVIDIA's OpenCL. Each
runs a `RealCase` the same way: build its source with its options, fill its
buffers, run its launch sequence, read its outputs back. A GPU implementation
profiles its queue, and a run's time is then the sum of its kernels' device
times, measured with the GPU busy: a spin kernel runs first, long enough for the
whole sequence to be enqueued behind it, so no kernel's time includes the wait
for its launch to arrive at an idle GPU (8 to 12 us each on the H200).
`pyopencl_impls` lists the peers present, with the reason for each one missing.
"""

from __future__ import annotations

import importlib
import time
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import numpy as np

from .case import Local, RealCase, Vec


# One work-item's dependent integer chain: a kernel that keeps the GPU busy for a time.
SPIN = """__kernel void spin(__global int *out, int steps) {
    uint x = 1;
    for (int i = 0; i < steps; ++i) x = x * 1664525u + 1013904223u;
    if (x == 42u) out[0] = (int)x;
}"""
SPIN_BASE_S, SPIN_PER_LAUNCH_S = 200e-6, 60e-6  # the host enqueues a launch in 10 to 30 us


@dataclass
class Prepared:
    """A case made ready on one implementation: its kernels with arguments set."""

    steps: list[tuple[Any, tuple[int, ...], tuple[int, ...] | None]]
    buffers: dict[str, Any] = field(default_factory=dict)
    build_s: float = 0.0


class Impl:
    def __init__(self, name: str, cl: ModuleType, device: Any) -> None:
        self.name, self.cl, self.device = name, cl, device
        self.ctx = cl.Context([device])
        self.profiling = bool(device.type & cl.device_type.GPU)
        props = cl.command_queue_properties.PROFILING_ENABLE if self.profiling else 0
        self.queue = cl.CommandQueue(self.ctx, properties=props)
        self.spin_s_per_step = 0.0
        if self.profiling:
            self.spin = cl.Program(self.ctx, SPIN).build().spin
            self.spin_out = cl.Buffer(self.ctx, cl.mem_flags.READ_WRITE, 4)
            self.spin_s_per_step = self._spin(1 << 20) / (1 << 20)

    def _spin(self, steps: int) -> float:
        """Run the spin kernel for `steps` steps; its device seconds."""
        evt = self.spin(self.queue, (1,), (1,), self.spin_out, np.int32(steps))
        evt.wait()
        return (evt.profile.end - evt.profile.start) * 1e-9

    def build(self, source: str, options: str) -> tuple[Any, float]:
        t0 = time.perf_counter()
        prg = self.cl.Program(self.ctx, source).build(options=options)
        return prg, time.perf_counter() - t0

    def prepare(self, case: RealCase, source: str) -> Prepared:
        prg, build_s = self.build(source, case.options)
        mf = self.cl.mem_flags
        buffers = {name: self.cl.Buffer(self.ctx, mf.READ_WRITE | mf.COPY_HOST_PTR,
                                        hostbuf=np.ascontiguousarray(host))
                   for name, host in case.buffers.items()}
        steps = []
        for launch in case.launches:
            # one kernel object per launch: a sequence may call one kernel with other arguments
            kernel = self.cl.Kernel(prg, launch.kernel)
            kernel.set_args(*[self._arg(a, buffers) for a in launch.args])
            steps.append((kernel, tuple(launch.global_size),
                          tuple(launch.local_size) if launch.local_size else None))
        return Prepared(steps, buffers, build_s)

    def _arg(self, a: object, buffers: dict[str, Any]) -> Any:
        if isinstance(a, str):
            return buffers[a]
        if isinstance(a, Local):
            return self.cl.LocalMemory(a.nbytes)
        if isinstance(a, Vec):
            cltypes = importlib.import_module(f"{self.cl.__name__}.cltypes")
            return getattr(cltypes, f"make_{a.type}")(*a.values)
        return a

    def run(self, p: Prepared) -> float | None:
        """Run the launch sequence; on a profiled queue, the kernels' summed device seconds."""
        if self.profiling:  # keep the GPU busy while the sequence is enqueued
            busy_s = SPIN_BASE_S + SPIN_PER_LAUNCH_S * len(p.steps)
            self.spin(self.queue, (1,), (1,), self.spin_out, np.int32(busy_s / self.spin_s_per_step))
        events = [self.cl.enqueue_nd_range_kernel(self.queue, kernel, g, l) for kernel, g, l in p.steps]
        self.queue.finish()
        if not self.profiling:
            return None
        return sum(e.profile.end - e.profile.start for e in events) * 1e-9

    def restore(self, case: RealCase, p: Prepared) -> None:
        """Refill the buffers the sequence changes in place (untimed)."""
        for name in case.restore:
            self.cl.enqueue_copy(self.queue, p.buffers[name], np.ascontiguousarray(case.buffers[name]))
        self.queue.finish()

    def outputs(self, case: RealCase, p: Prepared) -> dict[str, np.ndarray]:
        out = {}
        for name in case.outputs:
            host = np.empty_like(np.asarray(case.buffers[name]))
            self.cl.enqueue_copy(self.queue, host, p.buffers[name])
            out[name] = host
        self.queue.finish()
        return out

    def versions(self) -> dict[str, str]:
        d = self.device
        return {"device": d.name.strip(), "platform": d.platform.name, "platform_version": d.platform.version,
                "driver_version": d.driver_version, "compute_units": str(d.max_compute_units),
                "package_version": getattr(self.cl, "VERSION_TEXT", getattr(self.cl, "__version__", ""))}


def oclpy_impl(device: str = "cpu") -> Impl:
    """oclpy's `device` ("cpu" or "cuda")."""
    import oclpy

    want = oclpy.device_type.GPU if device == "cuda" else oclpy.device_type.CPU
    dev = next((d for p in oclpy.get_platforms() for d in p.get_devices() if d.type & want), None)
    if dev is None:
        raise SystemExit(f"oclpy has no {device} device here")
    return Impl("oclpy", oclpy, dev)


# peer -> (platform name prefix, label, device kind)
PEERS = {"pocl": ("portable computing language", "PoCL", "cpu"),
         "intel": ("intel(r) opencl", "Intel's CPU runtime", "cpu"),
         "nvidia": ("nvidia cuda", "NVIDIA's OpenCL", "cuda")}


def pyopencl_impls(wanted: list[str]) -> tuple[list[Impl], dict[str, str]]:
    """PyOpenCL's devices of the `wanted` peers, and why each missing one is missing."""
    missing: dict[str, str] = {}
    try:
        import pyopencl as cl
    except ImportError:
        return [], {w: "PyOpenCL is not installed (pip install 'oclpy[bench]')" for w in wanted}
    try:
        platforms = cl.get_platforms()
    except cl.Error as exc:
        return [], {w: f"no OpenCL platform: {exc}" for w in wanted}
    found = []
    for key in wanted:
        match, label, kind = PEERS[key]
        want = cl.device_type.GPU if kind == "cuda" else cl.device_type.CPU
        plat = next((p for p in platforms if p.name.lower().startswith(match)), None)
        devs = [d for d in plat.get_devices() if d.type & want] if plat else []
        if devs:
            found.append(Impl(key, cl, devs[0]))
        else:
            missing[key] = f"{label} not found among {[p.name for p in platforms]}"
    return found, missing
