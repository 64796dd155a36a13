"""The compiler's door: `build(source or SPIR-V bytes, options, Target) -> CompiledProgram`.

`build` resolves the Target's optimisation level (the Target's own, else the
build options': `-cl-opt-disable`/`-O0` 0, `-O1` 1, else 2), keys the build
cache on the source's bytes, the options, the included headers, the Target
and the compiler version (`cache.program_key`), and answers from the cache
(this process's memory, then the disk), else compiles
(`toolchain.compile_program`: frontend -> one pipeline -> the target's code
generator) and keeps the result. Each target's programs go to and from the
disk through its `RECORDS` row (JSON data plus object code, PTX or simt
machine code).

Each build gets a program of its own where it must: a program with writable
program-scope storage (OpenCL C 2.0 `global int g;`, `static global` locals)
gives each program object its own variables, starting from their initializers,
so `build` hands out the target's `INSTANCES` copy of the cached program (cpu:
its own native module, loaded from the cached program's object code; cuda: its
own CUDA module; simt: its own data blocks). Every other program is the cached
one itself: no copy, compile or load.

This module and what it imports are cheap: importing oclpy, and a build the
cache answers, load no frontend, pass or code generator. The toolchain is
loaded by name at the first build that compiles (`load_toolchain()`, as
the runtime loads its drivers from a table).

Errors: `CompileError` (its `.log` holds clang-style diagnostics) for bad
source, `InvalidBuildOptions` for bad options, ValueError for a Target no
target serves.
"""

from __future__ import annotations

import functools
import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Any, Callable

from ..frontend.dependencies import include_digest
from ..targets.llvm import binding
from ..targets.llvm.cpu import compiled as cpu_compiled
from ..targets.llvm.nvptx import ptx_program as nvptx_compiled
from ..targets.llvm.nvptx import ptx_codegen
from ..targets.simt import simt_program
from ..targets.simt.device_config import SimtMachine
from ..targets.target import KINDS, Target
from . import cache
from .units import opt_level, source_unit

DEVICE_KINDS = KINDS
TOOLCHAIN = "oclpy.compiler.toolchain"  # frontend, pipeline, code generators: loaded at first need

# kind -> (program -> (JSON data, bytes), (JSON data, bytes) -> program): the build cache's form
RECORDS: dict[str, tuple[Callable[[Any], tuple[Any, bytes]], Callable[[Any, bytes], Any]]] = {
    "cpu": (cpu_compiled.program_entry, cpu_compiled.program_from_record),
    "cuda": (nvptx_compiled.ptx_record, nvptx_compiled.ptx_from_record),
    "simt": (simt_program.program_record, simt_program.program_from_record),
}

# kind -> (cached program -> one build's own): the program itself, or a copy with
# program-scope variables of its own
INSTANCES: dict[str, Callable[[Any], Any]] = {
    "cpu": cpu_compiled.program_instance,
    "cuda": nvptx_compiled.program_instance,
    "simt": simt_program.program_instance,
}


@dataclass(frozen=True)
class CompiledProgram:
    """A build's result: the target's program (`cpu`: CpuProgram, `cuda`: PtxProgram,
    `simt`: SimtProgram, each with `.kernels`), the build log (warnings) and the Target it is for."""

    program: Any
    log: str
    target: Target

    @property
    def kernels(self) -> dict[str, Any]:
        return self.program.kernels


def load_toolchain() -> ModuleType:
    """The compiling part of the compiler (`toolchain.py`), imported at its first use."""
    return importlib.import_module(TOOLCHAIN)


def host_target() -> Target:
    """The cpu Target of this machine's CPU (LLVM's name and features for it)."""
    cpu, features = binding.host_cpu()
    return Target("cpu", cpu, features)


CUDA_MAX_ARGUMENT_BYTES = ptx_codegen.MAX_ARGUMENT_BYTES  # a cuda kernel's arguments, in all


def cuda_target(arch: str = ptx_codegen.DEFAULT_ARCH) -> Target:
    """The cuda Target of a GPU of architecture `arch` (`sm_90`)."""
    return Target("cuda", arch, ptx_codegen.PTX_FEATURES)


def simt_target(machine: SimtMachine | None = None) -> Target:
    """The simt Target of a device of `machine`'s wave width and register files (default: 32
    lanes, 128 scalar and 256 vector registers)."""
    return (machine or SimtMachine()).target()


def resolve(target: Target | None, options: str) -> Target:
    """`target` (default: the host CPU) with its level decided; ValueError for an unknown kind."""
    return _resolved(target or host_target(), options)


@functools.lru_cache(maxsize=256)
def _resolved(target: Target, options: str) -> Target:
    if target.kind not in RECORDS:
        raise ValueError(f"no compiler target for device '{target.kind}' "
                         f"(known: {', '.join(RECORDS)})")
    return target if target.opt_level is not None else target.with_opt_level(opt_level(options))


def build(source: str | bytes, options: str = "", target: Target | None = None,
          filename: str = "<kernel>") -> CompiledProgram:
    """The program of `source` (OpenCL C text, or SPIR-V bytes) built with `options` for
    `target` (default: the host CPU): from the build cache, else compiled and kept there.

    Threads building the same thing at once share one compilation. Each call's program
    has program-scope variables of its own (`INSTANCES`); programs without any are
    shared."""
    target = resolve(target, options)
    unit = source_unit(source, filename)
    headers = include_digest(unit, options) if isinstance(unit, str) else ""
    built = cache.remembered((unit, options, headers, target),
                             lambda: _load_or_compile(unit, options, headers, target, filename))
    sources = getattr(built.program, "sources", None)  # a program that keeps its text (simt, for check reports)
    if isinstance(sources, dict) and isinstance(unit, str):
        sources.setdefault(filename, unit)
    own = INSTANCES[target.kind](built.program)
    return built if own is built.program else CompiledProgram(own, built.log, target)


def _load_or_compile(unit: str | bytes, options: str, headers: str, target: Target,
                     filename: str) -> CompiledProgram:
    key = cache.program_key(unit, options, headers, target)
    record, from_record = RECORDS[target.kind]
    found = cache.load_program(key, from_record)
    if found is not None:
        if hasattr(found[0], "when_compiled"):  # code it compiles later joins the entry
            cache.store_program(key, found[0], found[1], record)
        return CompiledProgram(found[0], found[1], target)
    built = load_toolchain().compile_program(unit, options, target, filename)
    cache.store_program(key, built.program, built.log, record)
    return built


def preprocess_unit(source: str, options: str, headers: dict[str, str] | None = None,
                    parse: bool = False, filename: str = "<kernel>") -> tuple[str, str]:
    """(preprocessed text, log) of one unit, for `Program.compile` and program binaries
    (`toolchain.preprocess_unit` says more)."""
    return load_toolchain().preprocess_unit(source, options, headers, parse, filename)
