"""Programs: OpenCL C source built for a context's devices.

`Program(ctx, src).build(options)` compiles once per (device kind, options,
source) through the driver (`Driver.build` -> `oclpy.compiler.build_program`)
and caches the result for the process. A bad build raises RuntimeError
BUILD_PROGRAM_FAILURE whose message holds the routine, the device, the
clang-style log, the options and where the source was saved, as PyOpenCL's
does. Kernels are reached as attributes (`prg.vadd`, one cached Kernel per
name, created by whichever thread gets there first), by `Kernel(prg, name)`,
or all at once by `all_kernels()`.

`Program(ctx, spirv_bytes)` (or `create_program_with_il`) makes an IL
program: the SPIR-V module goes to the compiler as `compiler.il_text` (its
bytes as Latin-1 text), so the build cache is keyed on the IL bytes and the
program builds through the same pipeline and targets as OpenCL C.
"""

from __future__ import annotations

import os
import tempfile
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Sequence

from ..frontend.dependencies import include_digest
from .constants import build_status, program_build_info, program_info, program_kind
from .device import Device
from .errors import KernelNameError, as_list, make_error, raise_cl, status_code
from .handles import Handle
from .linking import (BINARY_TYPES, EXECUTABLE, OBJECT, ProgramBinary, parse_binary,
                      preprocess_unit, strip_source_options)

BUILD_CACHE_SIZE = 256  # compiled programs kept for the process, least recently used dropped
_cache_lock = threading.Lock()
_build_cache: OrderedDict[tuple[int, str, str], Any] = OrderedDict()
_in_flight: dict[tuple[int, str, str], threading.Event] = {}


class CompilerWarning(UserWarning):
    """A build succeeded but its log is not empty (PyOpenCL's name)."""


@dataclass
class DeviceBuild:
    status: int = build_status.NONE
    log: str = ""
    options: str = ""
    compiled: Any = None  # the target's program (cpu: CpuProgram with .kernels)
    binary_type: str = EXECUTABLE

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
    """(compiled program, log) from the cache or the compiler; raises the compiler's errors.

    Threads building the same (device, options, source) at once share one
    compilation: the first compiles, the others wait for its result.
    """
    key = (id(device.driver), options, source, include_digest(source, options))
    while True:
        with _cache_lock:
            hit = _build_cache.get(key)
            if hit is not None:
                _build_cache.move_to_end(key)
                return hit.program, hit.log
            pending = _in_flight.get(key)
            if pending is None:
                pending = _in_flight[key] = threading.Event()
                break
        pending.wait()
        with _cache_lock:
            if key not in _build_cache:  # the other thread's build failed: report ours
                break
    try:
        result = device.driver.build(source, options)
        with _cache_lock:
            _build_cache[key] = result
            while len(_build_cache) > BUILD_CACHE_SIZE:
                _build_cache.popitem(last=False)
    finally:
        with _cache_lock:
            if _in_flight.get(key) is pending:
                del _in_flight[key]
        pending.set()
    return result.program, result.log


class Program(Handle):
    """`Program(ctx, source)`, or `Program(ctx, devices, binaries)` from earlier builds' binaries."""

    def __init__(self, context: Any, src: Any, binaries: Any = None) -> None:
        self.context = context
        self._builds: dict[Device, DeviceBuild] = {}
        self._kernels: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()
        self._binaries: dict[Device, ProgramBinary] = {}
        self._object: str | None = None  # preprocessed text after compile()
        self._il: bytes | None = None  # the SPIR-V module of an IL program
        self._released = False
        _check_context(context)
        context.own(self, "clCreateProgram")
        if binaries is not None:
            self._binaries = _check_binaries(context, src, binaries)
            first = next(iter(self._binaries.values()))
            self._source = first.text
            if first.type == OBJECT:
                self._object = first.text
            if _is_il_text(first.text):
                self._il = first.text.encode("latin-1")
            return
        if isinstance(src, (bytes, bytearray, memoryview)):
            data = bytes(src)
            if _is_il_text(data):
                self._il = data
            src = _source_from_bytes(data)
        if not isinstance(src, str):
            raise_cl("clCreateProgramWithSource", status_code.INVALID_VALUE,
                     f"program source must be a str, got {type(src).__name__}")
        if self._il is None and _is_il_text(src):  # IL as `compiler.il_text` (a captured call)
            self._il = src.encode("latin-1")
        self._source = src

    # -- building -------------------------------------------------------------------

    def build(self, options: Any = "", devices: Sequence[Device] | None = None,
              cache_dir: Any = None) -> Program:
        opts = normalize_options(options)
        targets = self._check_devices(devices, "clBuildProgram")
        _check_options(opts, "clBuildProgram")
        failed = []
        with self._build_lock:  # threads building one Program take turns (the cache makes it cheap)
            for dev in targets:
                build = self._build_one(dev, self._options_for(dev, opts))
                if build.status != build_status.SUCCESS:
                    failed.append((dev, build))
        if failed:
            raise self._build_failure(failed, opts)
        self._report_warnings(targets)
        return self

    def _check_devices(self, devices: Sequence[Device] | None, routine: str) -> list[Device]:
        if self._released:
            raise_cl(routine, status_code.INVALID_PROGRAM, "the program was released")
        targets = as_list(devices, routine, status_code.INVALID_DEVICE, "devices") \
            if devices is not None else list(self._binaries or self.context.devices)
        for dev in targets:
            if dev not in self.context.devices:
                raise_cl(routine, status_code.INVALID_DEVICE,
                         f"{dev!r} is not a device of the program's context")
            if self._binaries and dev not in self._binaries:
                raise_cl(routine, status_code.INVALID_DEVICE,
                         f"the program has no binary for {dev!r}")
        return targets

    def _options_for(self, dev: Device, opts: str) -> str:
        """A binary rebuilds with the options it was built with (then the ones given now)."""
        binary = self._binaries.get(dev)
        if binary is None:
            return opts
        return " ".join(o for o in (strip_source_options(binary.options), opts) if o)

    def compile(self, options: Any = "", devices: Sequence[Device] | None = None,
                headers: Any = None) -> Program:
        """clCompileProgram: preprocess and parse this unit for a later link_program."""
        from ..diagnostics import CompileError

        opts = normalize_options(options)
        targets = self._check_devices(devices, "clCompileProgram")
        if self._il is not None:
            raise_cl("clCompileProgram", status_code.INVALID_OPERATION,
                     "separate compilation and linking of SPIR-V programs is not supported: "
                     "build() them")
        _check_options(opts, "clCompileProgram")
        try:
            text, log = preprocess_unit(self._source, opts, headers, parse=True)
        except CompileError as exc:
            for dev in targets:
                self._builds[dev] = DeviceBuild(build_status.ERROR, exc.log, opts)
            what = f"clCompileProgram failed: COMPILE_PROGRAM_FAILURE\n\n{exc.log}\n(options: {opts})"
            raise make_error("clCompileProgram", status_code.COMPILE_PROGRAM_FAILURE, what) from None
        self._object = text
        for dev in targets:
            self._builds[dev] = DeviceBuild(build_status.SUCCESS, log, opts, None, OBJECT)
        return self

    def object_text(self) -> str | None:
        """The preprocessed unit after compile() (or from an object binary), for linking."""
        return self._object

    def _build_one(self, dev: Device, opts: str) -> DeviceBuild:
        from ..diagnostics import CompileError
        from ..frontend.options import InvalidBuildOptions

        build = DeviceBuild(build_status.IN_PROGRESS, "", opts)
        with self._lock:
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
        saved = _save_source(self._source) if self._il is None else None
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
            program_info.SOURCE: lambda: "" if self._il is not None else self._source,
            program_info.IL: lambda: self._il if self._il is not None else b"",
            program_info.NUM_KERNELS: lambda: len(self.kernel_names_list()),
            program_info.KERNEL_NAMES: lambda: ";".join(self.kernel_names_list()),
            program_info.BINARIES: lambda: [self.binary(d) for d in self.context.devices],
            program_info.BINARY_SIZES: lambda: [len(self.binary(d)) for d in self.context.devices],
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
                 program_build_info.BINARY_TYPE:
                     BINARY_TYPES[build.binary_type] if build.status == build_status.SUCCESS else 0}
        if param not in table:
            raise_cl("clGetProgramBuildInfo", status_code.INVALID_VALUE)
        return table[param]

    def _get_build_logs(self) -> list[tuple[Device, str]]:
        return [(d, b.log) for d, b in self._builds.items()]

    def binary(self, device: Device) -> bytes:
        """This program's binary for `device` (empty when it was not built there)."""
        build = self._builds.get(device)
        if build is None or build.status != build_status.SUCCESS:
            return b""
        if build.binary_type == OBJECT:
            assert self._object is not None
            return ProgramBinary(OBJECT, device.kind, build.options, self._object).to_bytes()
        binary = self._binaries.get(device)
        if binary is not None and binary.type == EXECUTABLE:
            return binary.to_bytes()
        text = self._source if self._il is not None else preprocess_unit(self._source, build.options)[0]
        return ProgramBinary(EXECUTABLE, device.kind, build.options, text).to_bytes()

    def kind(self) -> int:
        if self._binaries:
            return program_kind.BINARY
        return program_kind.IL if self._il is not None else program_kind.SOURCE

    def release(self) -> None:
        """Drop every kernel and compiled module this program holds.

        A compiled module lives on only while a Kernel the caller still holds
        uses it, or in the process-wide build cache (at most BUILD_CACHE_SIZE
        entries, least recently used dropped first), which makes building the
        same source again cheap, as PyOpenCL's binary cache does.
        """
        with self._lock:
            self._released = True
            self._builds = {}
            self._kernels = {}

    @property
    def source(self) -> str:
        return self._source


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


def _check_options(opts: str, routine: str) -> None:
    """INVALID_BUILD_OPTIONS, raised before any device builds (the frontend never sees them)."""
    from ..frontend.options import InvalidBuildOptions, parse_build_options

    try:
        parse_build_options(opts)
    except InvalidBuildOptions as exc:
        raise_cl(routine, status_code.INVALID_BUILD_OPTIONS, str(exc))


SPIRV_MAGIC = (b"\x03\x02\x23\x07", b"\x07\x23\x02\x03")


def _is_il_text(data: bytes | str) -> bool:
    head = data[:4].encode("latin-1", errors="replace") if isinstance(data, str) else data[:4]
    return head in SPIRV_MAGIC


def _source_from_bytes(data: bytes) -> str:
    """PyOpenCL reads bytes as an IL (SPIR-V) module when they start with its magic
    number (carried on as `compiler.il_text`), else as UTF-8 OpenCL C text."""
    if data[:4] in SPIRV_MAGIC:
        from ..compiler.build import il_text

        return il_text(data)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise_cl("clCreateProgramWithSource", status_code.INVALID_VALUE,
                 f"program source bytes are not UTF-8 text: {exc}")


def _check_context(context: Any) -> None:
    from .context import Context

    if not isinstance(context, Context):
        raise_cl("clCreateProgram", status_code.INVALID_CONTEXT,
                 f"expected a Context, got {type(context).__name__}")


def _check_binaries(context: Any, devices: Any, binaries: Any) -> dict[Device, ProgramBinary]:
    routine = "clCreateProgramWithBinary"
    devs = as_list(devices, routine, status_code.INVALID_VALUE, "devices")
    bins = as_list(binaries, routine, status_code.INVALID_VALUE, "binaries")
    if not devs or len(devs) != len(bins):
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"{len(devs)} devices and {len(bins)} binaries: one binary per device is needed")
    result = {}
    for dev, data in zip(devs, bins):
        if dev not in context.devices:
            raise_cl(routine, status_code.INVALID_DEVICE, f"{dev!r} is not a device of the context")
        binary = parse_binary(data, routine)
        if binary.device != dev.kind:
            raise_cl(routine, status_code.INVALID_BINARY,
                     f"the binary was built for a '{binary.device}' device, not {dev!r}")
        result[dev] = binary
    if len({b.text for b in result.values()}) > 1:
        raise_cl(routine, status_code.INVALID_BINARY, "the binaries hold different programs")
    return result


def _save_source(source: str) -> str | None:
    try:
        with tempfile.NamedTemporaryFile("w", suffix=".cl", prefix="oclpy-", delete=False) as f:
            f.write(source)
            return f.name
    except OSError:
        return None


def create_program_with_il(context: Any, il: Any) -> Program:
    """clCreateProgramWithIL: a program from a SPIR-V module (bytes)."""
    try:
        data = bytes(memoryview(il))
    except TypeError:
        raise_cl("clCreateProgramWithIL", status_code.INVALID_VALUE,
                 f"the IL must be bytes, got {type(il).__name__}")
    if not _is_il_text(data):
        raise_cl("clCreateProgramWithIL", status_code.INVALID_VALUE,
                 "the IL is not a SPIR-V module (no SPIR-V magic number)")
    return Program(context, data)


def create_program_with_built_in_kernels(context: Any, devices: Any, kernel_names: Any) -> Program:
    raise_cl("clCreateProgramWithBuiltInKernels", status_code.INVALID_VALUE,
             "oclpy devices have no built-in kernels")


def link_program(context: Any, programs: Sequence[Program], options: Any = "",
                 devices: Sequence[Device] | None = None) -> Program:
    from .linking import link_programs

    return link_programs(context, programs, options, devices)


def unload_platform_compiler(platform: Any) -> None:
    """clUnloadPlatformCompiler: a hint that oclpy's in-process compiler has no use for."""
