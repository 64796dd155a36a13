"""A stand-in for `cuda.bindings.driver` that runs on the host: device memory is
host memory (ctypes buffers), copies are memmoves, launches are recorded.
It lets CI test the cuda driver's logic without a GPU."""

from __future__ import annotations

import ctypes
import threading
import types
from typing import Any

import numpy as np


class _Names:
    """Enum-like namespace: any attribute is its own name."""

    def __getattr__(self, name: str) -> str:
        return name


ATTRIBUTES = {
    "COMPUTE_CAPABILITY_MAJOR": 9, "COMPUTE_CAPABILITY_MINOR": 0, "MULTIPROCESSOR_COUNT": 132,
    "CLOCK_RATE": 1980000, "MAX_THREADS_PER_BLOCK": 1024, "MAX_BLOCK_DIM_X": 1024,
    "MAX_BLOCK_DIM_Y": 1024, "MAX_BLOCK_DIM_Z": 64, "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN": 232448,
    "TOTAL_CONSTANT_MEMORY": 65536, "L2_CACHE_SIZE": 62914560,
    "MAX_GRID_DIM_X": 2**31 - 1, "MAX_GRID_DIM_Y": 65535, "MAX_GRID_DIM_Z": 65535,
}


def make_fake(devices: int = 1, fail: dict[str, int] | None = None) -> types.ModuleType:
    """A fresh fake driver module; `fail` maps a function name to the status it returns."""
    drv = types.ModuleType("cuda.bindings.driver")
    memory: dict[int, Any] = {}
    drv.memory = memory
    drv.launches = []
    drv.calls = []
    drv.param_count = 0
    drv.pinned = {}
    drv.current = None  # the context cuCtxSetCurrent made current last
    drv.peer_copies = []
    fail = fail or {}

    def api(fn):  # type: ignore[no-untyped-def]
        def wrapper(*args):  # type: ignore[no-untyped-def]
            drv.calls.append(fn.__name__)
            if fn.__name__ in fail:
                return (fail[fn.__name__], None)
            out = fn(*args)
            return (0, *out) if isinstance(out, tuple) else (0, out)
        wrapper.__name__ = fn.__name__
        setattr(drv, fn.__name__, wrapper)
        return wrapper

    for enum in ("CUstream_flags", "CUevent_flags", "CUdevice_attribute",
                 "CUfunction_attribute", "CUjitInputType"):
        setattr(drv, enum, _Names())

    @api
    def cuInit(flags): return ()
    @api
    def cuDeviceGetCount(): return devices
    @api
    def cuDeviceGet(i): return f"dev{i}"
    @api
    def cuDevicePrimaryCtxRetain(dev): return f"ctx-{dev}"
    @api
    def cuCtxSetCurrent(ctx): drv.current = ctx; return ()
    @api
    def cuCtxSynchronize(): return ()
    @api
    def cuDriverGetVersion(): return 13000
    @api
    def cuDeviceGetAttribute(attr, dev): return ATTRIBUTES[attr.removeprefix("CU_DEVICE_ATTRIBUTE_")]
    @api
    def cuDeviceGetName(n, dev): return b"Fake H200\0\0"
    @api
    def cuDeviceTotalMem(dev): return 141 << 30
    @api
    def cuStreamCreate(flags): return f"stream{len(drv.calls)}"
    @api
    def cuStreamSynchronize(stream): return ()
    @api
    def cuMemAlloc(n):
        buf = ctypes.create_string_buffer(n)
        memory[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)
    @api
    def cuMemFree(ptr): memory.pop(int(ptr)); return ()
    @api
    def cuMemcpyHtoDAsync(dst, src, n, stream): ctypes.memmove(dst, src, n); return ()
    @api
    def cuMemcpyDtoHAsync(dst, src, n, stream): ctypes.memmove(dst, src, n); return ()
    @api
    def cuMemcpyDtoDAsync(dst, src, n, stream): ctypes.memmove(dst, src, n); return ()
    @api
    def cuMemcpyPeerAsync(dst, dst_ctx, src, src_ctx, n, stream):
        drv.peer_copies.append((dst_ctx, src_ctx, n)); ctypes.memmove(dst, src, n); return ()

    def _memset(dtype):  # type: ignore[no-untyped-def]
        def fill(dst, value, count, stream):  # type: ignore[no-untyped-def]
            ctype = np.ctypeslib.as_ctypes_type(dtype) * count
            np.ctypeslib.as_array(ctype.from_address(dst))[...] = value
            return ()
        return fill

    for bits, dtype in ((8, np.uint8), (16, np.uint16), (32, np.uint32)):
        f = _memset(dtype)
        f.__name__ = f"cuMemsetD{bits}Async"
        api(f)

    @api
    def cuMemHostAlloc(n, flags):
        buf = ctypes.create_string_buffer(n)
        drv.pinned[ctypes.addressof(buf)] = buf
        return ctypes.addressof(buf)
    @api
    def cuMemFreeHost(ptr): drv.pinned.pop(int(ptr)); return ()
    drv.not_ready = set()  # events not done yet: queries say so, synchronising blocks
    drv.ready = threading.Condition()
    drv.stream_waits = []  # (stream, event) of each cuStreamWaitEvent
    drv.destroyed = []

    def release_all():  # type: ignore[no-untyped-def]
        with drv.ready:
            drv.not_ready.clear()
            drv.ready.notify_all()
    drv.release_all = release_all

    @api
    def cuEventSynchronize(event):
        with drv.ready:
            drv.ready.wait_for(lambda: event not in drv.not_ready, timeout=5)
        return ()

    def cuEventQuery(event):  # type: ignore[no-untyped-def]
        drv.calls.append("cuEventQuery")
        return (600,) if event in drv.not_ready else (0,)
    drv.cuEventQuery = cuEventQuery
    @api
    def cuStreamWaitEvent(stream, event, flags): drv.stream_waits.append((stream, event)); return ()
    @api
    def cuEventDestroy(event): drv.destroyed.append(event); return ()
    @api
    def cuLinkCreate(n, opts, vals): return "link"
    @api
    def cuLinkAddData(state, kind, data, size, name, n, opts, vals):
        drv.linked = bytes(data)
        return ()
    @api
    def cuLinkComplete(state):
        drv.cubin = ctypes.create_string_buffer(b"CUBIN:" + drv.linked)
        return ctypes.addressof(drv.cubin), len(drv.cubin.raw) - 1
    @api
    def cuLinkDestroy(state): return ()
    @api
    def cuModuleLoadData(image): return ("module", bytes(image))
    @api
    def cuModuleGetFunction(module, name): return name.decode()
    @api
    def cuFuncSetAttribute(fn, attr, value): return ()
    @api
    def cuLaunchKernel(fn, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        pointers = (ctypes.c_void_p * drv.param_count).from_address(params)
        values = [ctypes.string_at(p, 8) for p in pointers]
        drv.launches.append({"fn": fn, "grid": (gx, gy, gz), "block": (bx, by, bz),
                             "shared": shared, "stream": stream, "params": values})
        return ()
    @api
    def cuEventCreate(flags): return f"event{len(drv.calls)}"
    @api
    def cuEventRecord(event, stream): return ()
    drv.elapsed = {}  # (start, end) -> milliseconds; 0.25 when not set

    @api
    def cuEventElapsedTime(a, b): return drv.elapsed.get((a, b), 0.25)
    @api
    def cuGetErrorName(code): return b"CUDA_ERROR_FAKE"
    @api
    def cuGetErrorString(code): return b"a fake failure"
    return drv


def install(monkeypatch, drv: types.ModuleType) -> None:
    """Make `from cuda.bindings import driver` give `drv`."""
    cuda = types.ModuleType("cuda")
    bindings = types.ModuleType("cuda.bindings")
    bindings.driver = drv
    cuda.bindings = bindings
    monkeypatch.setitem(__import__("sys").modules, "cuda", cuda)
    monkeypatch.setitem(__import__("sys").modules, "cuda.bindings", bindings)
    monkeypatch.setitem(__import__("sys").modules, "cuda.bindings.driver", drv)


def use_fake(monkeypatch, cache_dir, devices: int = 1,  # type: ignore[no-untyped-def]
             fail: dict[str, int] | None = None) -> types.ModuleType:
    """Set the cuda driver up on `make_fake(devices, fail)`: the bindings, a libcuda
    found, the build cache in `cache_dir`, and OCLPY_CUDA_ASYNC and
    OCLPY_CUDA_DEVICE at their defaults (unset). Returns the fake module."""
    from oclpy.runtime.drivers import cuda_api

    monkeypatch.setenv("OCLPY_CACHE_DIR", str(cache_dir))
    monkeypatch.delenv("OCLPY_CUDA_ASYNC", raising=False)
    monkeypatch.delenv("OCLPY_CUDA_DEVICE", raising=False)
    drv = make_fake(devices, fail)
    install(monkeypatch, drv)
    monkeypatch.setattr(cuda_api.ctypes.util, "find_library", lambda name: "libcuda.so.1")
    return drv
