"""Programs: OpenCL C source built for a context's devices.

`Program(ctx, src).build(options)` compiles once per (device kind, options,
source) through the driver (`Driver.build` -> `oclpy.compiler.build_program`)
and caches the result for the process. A bad build raises RuntimeError
BUILD_PROGRAM_FAILURE whose message holds the routine, the device, the
clang-style log, the options and where the source was saved, as PyOpenCL's
does. Kernels are reached as attributes (`prg.vadd`, one cached Kernel per
name, created by whichever thread gets there first), by `Kernel(prg, name)`,
or all at once by `all_kernels()`.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from .constants import build_status, program_build_info, program_info, program_kind
from .device import Device
from .errors import KernelNameError, as_list, make_error, raise_cl, status_code

BUILD_CACHE_SIZE = 256  # compiled programs kept for the process, least recently used dropped
_cache_lock = threading.Lock()
_build_cache: OrderedDict[tuple[int, str, str], Any] = OrderedDict()


class CompilerWarning(UserWarning):
    """A build succeeded but its log is not empty (PyOpenCL's name)."""


@dataclass
class DeviceBuild:
    status: int = build_status.NONE
    log: str = ""
    options: str = ""
    compiled: Any = None  # the target's program (cpu: CpuProgram with .kernels)

    @property
    def kernels(self) -> dict[str, Any]:
        return dict(getattr(self.compiled, "kernels", {}) or {})


def normalize_options(options: Any) -> str:
    """PyOpenCL accepts a str, bytes, or a sequence of them."""
    if options is None:
        return ""
    if isinstance(options, bytes):
        return options.decode(errors="replace")
    if isinstance(options, str):
        return options
    words = as_list(options, "clBuildProgram", status_code.INVALID_BUILD_OPTIONS, "build options")
    return " ".join(o.decode(errors="replace") if isinstance(o, bytes) else str(o) for o in words)


def _compile(device: Device, source: str, options: str) -> tuple[Any, str]:
    """(compiled program, log) from the cache or the compiler; raises the compiler's errors."""
    key = (id(device.driver), options, source)
    with _cache_lock:
        hit = _build_cache.get(key)
        if hit is not None:
            _build_cache.move_to_end(key)
    if hit is None:
        result = device.driver.build(source, options)
        with _cache_lock:
            hit = _build_cache.setdefault(key, result)
            while len(_build_cache) > BUILD_CACHE_SIZE:
                _build_cache.popitem(last=False)
    return hit.program, hit.log


class Program:
    def __init__(self, context: Any, src: Any, binaries: Any = None) -> None:
        if binaries is not None:
            raise_cl("clCreateProgramWithBinary", status_code.INVALID_BINARY,
                     "oclpy builds programs from OpenCL C source only")
        if isinstance(src, bytes):
            src = src.decode()
        if not isinstance(src, str):
            raise_cl("clCreateProgramWithSource", status_code.INVALID_VALUE,
                     f"program source must be a str, got {type(src).__name__}")
        self.context = context
        self._source = src
        self._builds: dict[Device, DeviceBuild] = {}
        self._kernels: dict[str, Any] = {}
        self._lock = threading.Lock()

    # -- building -------------------------------------------------------------------

    def build(self, options: Any = "", devices: Sequence[Device] | None = None,
              cache_dir: Any = None) -> Program:
        opts = normalize_options(options)
        targets = self._check_devices(devices)
        _check_options(opts)
        failed = []
        for dev in targets:
            build = self._build_one(dev, opts)
            if build.status != build_status.SUCCESS:
                failed.append((dev, build))
        if failed:
            raise self._build_failure(failed, opts)
        self._report_warnings(targets)
        return self

    def _check_devices(self, devices: Sequence[Device] | None) -> list[Device]:
        targets = as_list(devices, "clBuildProgram", status_code.INVALID_DEVICE, "devices") \
            if devices is not None else list(self.context.devices)
        for dev in targets:
            if dev not in self.context.devices:
                raise_cl("clBuildProgram", status_code.INVALID_DEVICE,
                         f"{dev!r} is not a device of the program's context")
        return targets

    def _build_one(self, dev: Device, opts: str) -> DeviceBuild:
        from ..diagnostics import CompileError
        from ..frontend.options import InvalidBuildOptions

        build = DeviceBuild(build_status.IN_PROGRESS, "", opts)
        self._builds[dev] = build
        try:
            build.compiled, build.log = _compile(dev, self._source, opts)
            build.status = build_status.SUCCESS
        except InvalidBuildOptions as exc:
            build.status, build.log = build_status.ERROR, f"error: {exc}\n"
            raise_cl("clBuildProgram", status_code.INVALID_BUILD_OPTIONS, str(exc))
        except CompileError as exc:
            build.status, build.log = build_status.ERROR, exc.log
        except ValueError as exc:  # the compiler has no target for this device kind
            build.status, build.log = build_status.ERROR, f"error: {exc}\n"
            raise_cl("clBuildProgram", status_code.COMPILER_NOT_AVAILABLE, str(exc))
        except Exception as exc:  # a compiler bug: reported, never a traceback
            build.status = build_status.ERROR
            build.log = f"error: internal compiler error: {type(exc).__name__}: {exc}\n"
        return build

    def _build_failure(self, failed: list[tuple[Device, DeviceBuild]], opts: str) -> Exception:
        head = "clBuildProgram failed: BUILD_PROGRAM_FAILURE"
        logs = (75 * "=" + "\n").join(f"Build on {dev!r}:\n\n{b.log}" for dev, b in failed)
        what = f"{head} - {head}\n\n{logs}\n(options: {opts})"
        saved = _save_source(self._source)
        if saved:
            what += f"\n(source saved as {saved})"
        return make_error("clBuildProgram", status_code.BUILD_PROGRAM_FAILURE, what)

    def _report_warnings(self, devices: list[Device]) -> None:
        logs = [(d, self._builds[d].log) for d in devices if self._builds[d].log.strip()]
        if not logs:
            return
        if os.environ.get("PYOPENCL_COMPILER_OUTPUT") == "1" or os.environ.get("OCLPY_COMPILER_OUTPUT") == "1":
            text = (75 * "=" + "\n").join(f"Build on {d!r} succeeded, but said:\n\n{log}"
                                        for d, log in logs)
            warnings.warn(f"From-source build succeeded, but resulted in non-empty logs:\n{text}",
                          CompilerWarning, stacklevel=3)
        else:
            warnings.warn("Non-empty compiler output encountered. Set the environment variable "
                          "PYOPENCL_COMPILER_OUTPUT=1 to see more.", CompilerWarning, stacklevel=3)

    # -- info -----------------------------------------------------------------------

    def _built(self, routine: str) -> dict[Device, DeviceBuild]:
        done = {d: b for d, b in self._builds.items() if b.status == build_status.SUCCESS}
        if not done:
            raise_cl(routine, status_code.INVALID_PROGRAM_EXECUTABLE,
                     "the program has not been built successfully (call .build() first)")
        return done

    def kernel_names_list(self) -> list[str]:
        names: dict[str, None] = {}
        for build in self._built("clGetProgramInfo").values():
            names.update(dict.fromkeys(build.kernels))
        return list(names)

    def get_info(self, param: int) -> Any:
        table = {
            program_info.REFERENCE_COUNT: lambda: 1,
            program_info.CONTEXT: lambda: self.context,
            program_info.NUM_DEVICES: lambda: len(self.context.devices),
            program_info.DEVICES: lambda: list(self.context.devices),
            program_info.SOURCE: lambda: self._source,
            program_info.NUM_KERNELS: lambda: len(self.kernel_names_list()),
            program_info.KERNEL_NAMES: lambda: ";".join(self.kernel_names_list()),
        }
        if param not in table:
            raise_cl("clGetProgramInfo", status_code.INVALID_VALUE)
        return table[param]()

    def get_build_info(self, device: Device, param: int) -> Any:
        if device not in self.context.devices:
            raise_cl("clGetProgramBuildInfo", status_code.INVALID_DEVICE)
        build = self._builds.get(device, DeviceBuild())
        table = {program_build_info.STATUS: build.status, program_build_info.LOG: build.log,
                 program_build_info.OPTIONS: build.options,
                 program_build_info.BINARY_TYPE: 4 if build.status == build_status.SUCCESS else 0}
        if param not in table:
            raise_cl("clGetProgramBuildInfo", status_code.INVALID_VALUE)
        return table[param]

    def _get_build_logs(self) -> list[tuple[Device, str]]:
        return [(d, b.log) for d, b in self._builds.items()]

    def kind(self) -> int:
        return program_kind.SOURCE

    @property
    def source(self) -> str:
        return self._source

    @property
    def int_ptr(self) -> int:
        return id(self)

    # -- kernels --------------------------------------------------------------------

    def compiled_kernels(self, name: str) -> dict[Device, Any]:
        """{device: CompiledKernel} for `name`; INVALID_KERNEL_NAME when no device has it."""
        built = self._built("clCreateKernel")
        found = {d: b.kernels[name] for d, b in built.items() if name in b.kernels}
        if not found:
            known = ", ".join(self.kernel_names_list()) or "none"
            raise make_error("clCreateKernel", status_code.INVALID_KERNEL_NAME,
                             f"no kernel named '{name}' in the program (kernels: {known})",
                             KernelNameError)
        return found

    def _kernel(self, name: str) -> Any:
        from .kernel import Kernel

        with self._lock:
            knl = self._kernels.get(name)
        if knl is None:
            made = Kernel(self, name)
            with self._lock:
                knl = self._kernels.setdefault(name, made)
        return knl

    def all_kernels(self) -> list[Any]:
        return [self._kernel(name) for name in self.kernel_names_list()]

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        info = getattr(program_info, name.upper(), None)
        if name.islower() and info is not None:
            return self.get_info(info)
        return self._kernel(name)

    def __repr__(self) -> str:
        return f"<oclpy.Program on {self.context!r}>"


def _check_options(opts: str) -> None:
    """clBuildProgram's INVALID_BUILD_OPTIONS, raised before any device builds."""
    from ..frontend.options import InvalidBuildOptions, parse_build_options

    try:
        parse_build_options(opts)
    except InvalidBuildOptions as exc:
        raise_cl("clBuildProgram", status_code.INVALID_BUILD_OPTIONS, str(exc))


def _save_source(source: str) -> str | None:
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".cl", prefix="oclpy-", delete=False) as f:
            f.write(source)
            return f.name
    except OSError:
        return None


def create_program_with_built_in_kernels(context: Any, devices: Any, kernel_names: Any) -> Program:
    raise_cl("clCreateProgramWithBuiltInKernels", status_code.INVALID_VALUE,
             "oclpy devices have no built-in kernels")
