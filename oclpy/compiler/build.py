"""The compiler driver: "build this source for this device".

This is the one door between the runtime (and the CLI) and the compiler:
OpenCL C source (or a SPIR-V module) -> frontend -> target-independent
pipeline -> target. A SPIR-V module travels as bytes, or as text holding
those bytes decoded as Latin-1 (`il_text`), so the runtime's and the
targets' text-keyed caches carry it unchanged; `build_program` tells the
two by the SPIR-V magic number. It
knows which pipeline each optimisation level means and which target serves
each device kind.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TextIO

from ..diagnostics import CompileError
from ..frontend.driver import FrontendResult, compile_to_ir
from ..frontend.options import parse_build_options
from ..ir.values import Module
from ..passes.manager import PIPELINES, run_pipeline

DEVICE_KINDS = ("cpu", "cuda")

# What each device's target runs after the level's target-independent pipeline
# (`passes.manager.PIPELINES`): the cpu target forms work-groups last; on cuda
# the GPU runs work-items as threads, so barriers stay barriers.
TARGET_PIPELINES = {"cpu": "inline,scalarize-vectors,step-divergent-loops,form-workgroups",
                    "cuda": "inline"}


@dataclass
class BuildResult:
    program: Any  # the target's compiled program (cpu: targets.llvm.cpu.CpuProgram)
    log: str
    module: Module
    stages: dict[str, str] = field(default_factory=dict)


def opt_level(options: str) -> int:
    """The pipeline level the build options ask for: -cl-opt-disable or -O0 give 0,
    -O1 gives 1, anything else 2 (the highest we have)."""
    parsed = parse_build_options(options)
    return 0 if parsed.opt_disable else min(parsed.opt_level, 2)


def pipeline_for(level: int) -> str:
    return PIPELINES[f"O{level}"]


def optimize(module: Module, level: int, device_kind: str = "cpu", *, verify_each: bool = False,
             print_after_all: TextIO | None = None) -> Module:
    """Run the level's pipeline, then the target's own passes, in place."""
    pipeline = ",".join(p for p in (pipeline_for(level), TARGET_PIPELINES[device_kind]) if p)
    run_pipeline(module, pipeline, verify_each=verify_each, print_after_all=print_after_all)
    return module


def _targets() -> dict[str, Callable[[Module, str], Any]]:
    """device kind -> compile(module, build options)."""
    from ..targets.llvm.cpu.cpu_target import compile_cpu
    from ..targets.llvm.nvptx.nvptx_target import compile_nvptx

    return {"cpu": lambda module, options: compile_cpu(module),
            "cuda": lambda module, options: compile_nvptx(module, options=options)}


def il_text(il: bytes) -> str:
    """A SPIR-V module as text (each byte one Latin-1 character): what the runtime passes
    to `Driver.build`, so caches keyed on source text need no change."""
    return bytes(il).decode("latin-1")


def frontend_for(source: str | bytes, options: str, filename: str) -> FrontendResult:
    """The IR module of OpenCL C text or of a SPIR-V module (bytes or `il_text`)."""
    from ..frontend.spirv import compile_spirv, is_spirv

    if is_spirv(source):
        data = source.encode("latin-1") if isinstance(source, str) else bytes(source)
        return compile_spirv(data, options, filename if filename != "<kernel>" else "<spirv>")
    if isinstance(source, bytes):
        source = source.decode("utf-8")
    return compile_to_ir(source, options, filename=filename)


def build_program(source: str | bytes, options: str = "", device_kind: str = "cpu",
                  filename: str = "<kernel>", level: int | None = None) -> BuildResult:
    """Compile `source` (OpenCL C, or a SPIR-V module: see `il_text`) for `device_kind`.

    Raises `CompileError` (its `.log` holds clang-style diagnostics) on bad
    source and `InvalidBuildOptions` on bad options.
    """
    if device_kind not in DEVICE_KINDS:
        raise ValueError(f"no compiler target for device '{device_kind}' "
                         f"(known: {', '.join(DEVICE_KINDS)})")
    front = frontend_for(source, options, filename)
    if level is None:
        level = opt_level(options)
    try:
        optimize(front.module, level, device_kind)
        program = _targets()[device_kind](front.module, options)
    except CompileError:
        raise
    except Exception as exc:  # a bug in a pass or target: report it, never a traceback
        log = front.log + f"{filename}: error: internal compiler error: {type(exc).__name__}: {exc}\n"
        raise CompileError(log) from exc
    return BuildResult(program, front.log, front.module)
