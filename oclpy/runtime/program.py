"""Programs: OpenCL C source (or a SPIR-V module) built for a context's devices.

`Program(ctx, src).build(options)` builds for each device through the
compiler's one door, `oclpy.compiler.build(source, options, driver.target)`,
whose build cache (in memory, then on disk) makes building the same source
again cheap. A bad build raises RuntimeError BUILD_PROGRAM_FAILURE whose
message holds the routine, the device, the clang-style log and the options,
as PyOpenCL's does (a failed build writes no file). Kernels are reached as
attributes (`prg.vadd`, one cached Kernel per name, created by whichever
thread gets there first), by `Kernel(prg, name)`, or all at once by
`all_kernels()`.

`Program(ctx, spirv_bytes)` (or `create_program_with_il`) makes an IL
program: the SPIR-V module goes to the compiler as bytes (told by its magic
number), so the build cache is keyed on those bytes and the program builds
through the same pipeline and targets as OpenCL C.
"""

from __future__ import annotations

import os
import threading
import warnings
from dataclasses import dataclass
from typing import Any, Sequence

from ..compiler import door, units
from ..diagnostics import CompileError
from .constants import build_status, program_build_info, program_info, program_kind
from .context import Context
from .device import Device
from .errors import KernelNameError, LogicError, as_list, make_error, raise_cl, status_code
from .handles import Handle
from .kernel import Kernel
from .linking import (BINARY_TYPES, EXECUTABLE, OBJECT, ProgramBinary, check_text, header_sources,
                      parse_binary)


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
        self._source = ""  # OpenCL C text ("" for an IL program)
        if binaries is not None:
            self._binaries = _check_binaries(context, src, binaries)
            first = next(iter(self._binaries.values()))
            if first.il is not None:
                self._il = first.il
            else:
                self._source = first.text
            if first.type == OBJECT:
                self._object = first.text
            return
        if isinstance(src, (bytes, bytearray, memoryview)):
            data = bytes(src)
            if units.is_spirv(data):
                self._il = data
                return
            src = _source_from_bytes(data)
        if not isinstance(src, str):
            raise_cl("clCreateProgramWithSource", status_code.INVALID_VALUE,
                     f"program source must be a str, got {type(src).__name__}")
        check_text(src, "clCreateProgramWithSource", "program source")
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
        return " ".join(o for o in (units.strip_source_options(binary.options), opts) if o)

    def compile(self, options: Any = "", devices: Sequence[Device] | None = None,
                headers: Any = None) -> Program:
        """clCompileProgram: preprocess and parse this unit for a later link_program."""
        opts = normalize_options(options)
        targets = self._check_devices(devices, "clCompileProgram")
        if self._il is not None:
            raise_cl("clCompileProgram", status_code.INVALID_OPERATION,
                     "separate compilation and linking of SPIR-V programs is not supported: "
                     "build() them")
        _check_options(opts, "clCompileProgram")
        named = header_sources(headers)
        try:
            text, log = door.preprocess_unit(self._source, opts, named, parse=True)
        except ValueError as exc:  # a header name that is not an include name
            raise_cl("clCompileProgram", status_code.INVALID_VALUE, str(exc))
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
        build = DeviceBuild(build_status.IN_PROGRESS, "", opts)
        with self._lock:
            self._builds[dev] = build
        unit = self._il if self._il is not None else self._source
        try:
            result = door.build(unit, opts, dev.driver.target)
            build.compiled, build.log = result.program, result.log
            build.status = build_status.SUCCESS
        except units.InvalidBuildOptions as exc:
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
            return ProgramBinary(OBJECT, device.kind, build.options, self._object.encode("utf-8")).to_bytes()
        binary = self._binaries.get(device)
        if binary is not None and binary.type == EXECUTABLE:
            return binary.to_bytes()
        if self._il is not None:
            return ProgramBinary(EXECUTABLE, device.kind, build.options, self._il).to_bytes()
        text = door.preprocess_unit(self._source, build.options)[0]
        return ProgramBinary(EXECUTABLE, device.kind, build.options, text.encode("utf-8")).to_bytes()

    def kind(self) -> int:
        if self._binaries:
            return program_kind.BINARY
        return program_kind.IL if self._il is not None else program_kind.SOURCE

    def release(self) -> None:
        """Drop every kernel and compiled module this program holds.

        A compiled module lives on only while a Kernel the caller still holds
        uses it, or in the compiler's build cache (`compiler/cache.py`: a bounded
        number in memory, least recently used dropped first, and on disk),
        which makes building the same source again cheap, as PyOpenCL's binary
        cache does.
        """
        with self._lock:
            self._released = True
            self._builds = {}
            self._kernels = {}

    @property
    def source(self) -> str | bytes:
        """The OpenCL C text, or the SPIR-V module (bytes) of an IL program."""
        return self._il if self._il is not None else self._source


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
        """A program info (`prg.kernel_names`) or a kernel (`prg.scale`, `prg._helper_knl`).
        Python's own `__names__`, and anything asked before `__init__` ran, are not kernels."""
        if name.startswith("__") or "_lock" not in self.__dict__:
            raise AttributeError(name)
        if name.startswith("_"):
            try:
                return self._kernel(name)
            except LogicError as exc:  # not built: not a kernel either, for getattr(prg, "_x", None)
                raise AttributeError(f"'Program' object has no attribute '{name}'") from exc
        info = getattr(program_info, name.upper(), None)
        if name.islower() and info is not None:
            return self.get_info(info)
        return self._kernel(name)

    def __repr__(self) -> str:
        return f"<oclpy.Program on {self.context!r}>"


def _check_options(opts: str, routine: str) -> None:
    """INVALID_BUILD_OPTIONS, raised before any device builds (the frontend never sees them)."""
    try:
        units.check_options(opts)
    except units.InvalidBuildOptions as exc:
        raise_cl(routine, status_code.INVALID_BUILD_OPTIONS, str(exc))


def _source_from_bytes(data: bytes) -> str:
    """Bytes that are not a SPIR-V module are UTF-8 OpenCL C text."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise_cl("clCreateProgramWithSource", status_code.INVALID_VALUE,
                 f"program source bytes are not UTF-8 text: {exc}")


def _check_context(context: Any) -> None:
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
    if len({b.body for b in result.values()}) > 1:
        raise_cl(routine, status_code.INVALID_BINARY, "the binaries hold different programs")
    return result


def create_program_with_il(context: Any, il: Any) -> Program:
    """clCreateProgramWithIL: a program from a SPIR-V module (bytes)."""
    try:
        data = bytes(memoryview(il))
    except TypeError:
        raise_cl("clCreateProgramWithIL", status_code.INVALID_VALUE,
                 f"the IL must be bytes, got {type(il).__name__}")
    if not units.is_spirv(data):
        raise_cl("clCreateProgramWithIL", status_code.INVALID_VALUE,
                 "the IL is not a SPIR-V module (no SPIR-V magic number)")
    return Program(context, data)


def create_program_with_built_in_kernels(context: Any, devices: Any, kernel_names: Any) -> Program:
    raise_cl("clCreateProgramWithBuiltInKernels", status_code.INVALID_VALUE,
             "oclpy devices have no built-in kernels")


def link_program(context: Any, programs: Sequence[Program], options: Any = "",
                 devices: Sequence[Device] | None = None) -> Program:
    """clLinkProgram: one executable Program from compiled ones (linking.py says how)."""
    routine = "clLinkProgram"
    units = as_list(programs, routine, status_code.INVALID_VALUE, "programs")
    if not units:
        raise_cl(routine, status_code.INVALID_VALUE, "no programs to link")
    texts = []
    for unit in units:
        if not isinstance(unit, Program) or unit.context is not context:
            raise_cl(routine, status_code.INVALID_PROGRAM,
                     f"{unit!r} is not a Program of this context")
        text = unit.object_text()
        if text is None:
            raise_cl(routine, status_code.INVALID_PROGRAM,
                     f"{unit!r} was not compiled (call .compile() first) nor made from a "
                     f"compiled-object binary")
        texts.append(text)
    linked = Program(context, "\n".join(texts))
    try:
        return linked.build(normalize_options(options), devices)
    except Exception as exc:
        if getattr(exc, "code", None) == status_code.BUILD_PROGRAM_FAILURE:
            what = str(exc.what).replace("clBuildProgram", routine).replace(  # type: ignore[attr-defined]
                "BUILD_PROGRAM_FAILURE", "LINK_PROGRAM_FAILURE")
            raise make_error(routine, status_code.LINK_PROGRAM_FAILURE, what) from None
        raise


def unload_platform_compiler(platform: Any) -> None:
    """clUnloadPlatformCompiler: a hint that oclpy's in-process compiler has no use for."""
