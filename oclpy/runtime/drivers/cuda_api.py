"""A thin, checked layer over NVIDIA's `cuda-bindings` driver API (`cuda.bindings.driver`).

`call(fn, *args)` runs one driver function and raises `CudaError` (with the
function's name and CUDA's own error name and text) when it fails; it returns
the results without the status. `why_unavailable()` says, before anything
is built, what keeps the cuda device from working here: no `cuda-bindings`,
no `libcuda.so` (no NVIDIA driver), or no GPU.

Module loading (`load_module`): the driver JIT-compiles PTX into a cubin once
(`cuLinkCreate` / `cuLinkAddData` / `cuLinkComplete`); the cubin is kept in
the compiler's build cache (`compiler.cache`, folder CUBINS: checked, signed
entries), keyed by the PTX, the architecture and the driver version, and
later loads skip the JIT.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

from ...compiler import cache


class CudaError(RuntimeError):
    """A CUDA driver call failed."""


def _driver() -> Any:
    from cuda.bindings import driver  # type: ignore[import-not-found]

    return driver


def error_text(code: Any) -> str:
    drv = _driver()
    name = drv.cuGetErrorName(code)[1]
    text = drv.cuGetErrorString(code)[1]
    decode = (lambda b: b.decode() if isinstance(b, bytes) else str(b))
    return f"{decode(name)}: {decode(text)}"


def call(fn: Any, *args: Any) -> Any:
    """Run driver function `fn`; the value(s) it returns, or CudaError."""
    out = fn(*args)
    status, rest = (out[0], out[1:]) if isinstance(out, tuple) else (out, ())
    if int(status) != 0:
        raise CudaError(f"{fn.__name__} failed: {error_text(status)}")
    if not rest:
        return None
    return rest[0] if len(rest) == 1 else rest


def check(status: Any, name: str) -> None:
    """CudaError unless `status` (the first value a driver function returns) is success:
    `call` without its unpacking, for the host path's hottest calls."""
    if int(status):
        raise CudaError(f"{name} failed: {error_text(status)}")


def device_count() -> int:
    """How many GPUs the CUDA driver sees."""
    drv = _driver()
    call(drv.cuInit, 0)
    return int(call(drv.cuDeviceGetCount))


def why_unavailable() -> str | None:
    """None when a CUDA GPU can be used here, else what is missing."""
    try:
        drv = _driver()
    except ImportError:
        return ("the 'cuda' device needs NVIDIA's Python bindings: pip install oclpy[cuda] "
                "(package cuda-bindings)")
    if not (ctypes.util.find_library("cuda") or _can_load("libcuda.so.1")):
        return "no CUDA driver (libcuda.so) found: the 'cuda' device needs an NVIDIA GPU driver"
    try:
        call(drv.cuInit, 0)
        count = call(drv.cuDeviceGetCount)
    except CudaError as exc:
        return f"the CUDA driver did not start: {exc}"
    except Exception as exc:  # a broken installation: report it, never a traceback
        return f"the CUDA driver could not be used: {type(exc).__name__}: {exc}"
    if not count:
        return "the CUDA driver found no GPU"
    return None


def _can_load(name: str) -> bool:
    try:
        ctypes.CDLL(name)
    except OSError:
        return False
    return True


def attribute(device: Any, name: str) -> int:
    drv = _driver()
    attr = getattr(drv.CUdevice_attribute, f"CU_DEVICE_ATTRIBUTE_{name}")
    return int(call(drv.cuDeviceGetAttribute, attr, device))


def arch_of(device: Any) -> str:
    """The device's compute capability as an LLVM/PTX architecture name (`sm_90`)."""
    major = attribute(device, "COMPUTE_CAPABILITY_MAJOR")
    minor = attribute(device, "COMPUTE_CAPABILITY_MINOR")
    return f"sm_{major}{minor}"


def _jit_cubin(ptx: bytes) -> bytes:
    """PTX -> cubin through the driver's own JIT linker."""
    drv = _driver()
    state = call(drv.cuLinkCreate, 0, [], [])
    try:
        call(drv.cuLinkAddData, state, drv.CUjitInputType.CU_JIT_INPUT_PTX, ptx, len(ptx),
             b"oclpy.ptx", 0, [], [])
        cubin_ptr, size = call(drv.cuLinkComplete, state)
        return ctypes.string_at(int(cubin_ptr), int(size))
    finally:
        drv.cuLinkDestroy(state)


def load_module(ptx: str, key: str, driver_version: int) -> Any:
    """A CUmodule for `ptx` in the current context, from the cubin cache if present."""
    drv = _driver()
    cubin_key = cache.entry_key("cubin", key, str(driver_version))
    found = cache.load_entry(cache.CUBINS, cubin_key)
    cubin = found[1] if found is not None else None
    if cubin is None:
        data = ptx.encode() + b"\0"
        try:
            cubin = _jit_cubin(data)
        except CudaError as exc:
            raise CudaError(f"the CUDA driver rejected the PTX: {exc}") from None
        cache.store_entry(cache.CUBINS, cubin_key, {"ptx": key}, cubin)
    return call(drv.cuModuleLoadData, cubin)
