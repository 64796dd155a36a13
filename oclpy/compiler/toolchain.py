"""The compiling part of the compiler: source -> frontend -> one pipeline -> target.

`compile_program(source, options, target)` runs the frontend (OpenCL C text,
or a SPIR-V module told by its magic number) with the target's DataLayout (so
`sizeof` of a pointer and the layout of structs are the target's), then one pipeline: the level's
target-independent passes followed by the target's own (`BACKENDS`: the cpu
target forms work-groups last; on cuda and simt barriers stay barriers), run once by
the pass manager, then the target's code generator with the Target value.
It does not use the build cache: `door.build` does, and calls it on a miss.
Builds run with Python's cyclic garbage collector paused (`gc_pause.py`).
`preprocess_unit` preprocesses (and parses) one unit for `Program.compile`;
`ast_text` prints a unit's checked AST (`oclpy build --emit ast`).

An exception from a pass or a target is reported as an internal compiler
error inside a CompileError, never a traceback.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from typing import Any, Callable, TextIO

from ..diagnostics import CompileError, DiagnosticEngine
from ..frontend.c.ast_printer import dump
from ..frontend.c.c_parser import parse as parse_text
from ..frontend.c.preprocess import preprocess
from ..frontend.c.extension_pragmas import extension_pragmas
from ..frontend.c.sema.analyzer import analyze
from ..frontend.driver import FrontendResult, compile_to_ir, version_type_names
from ..frontend.options import parse_build_options
from ..frontend.spirv.spirv_driver import compile_spirv
from ..ir.datalayout import CPU_LAYOUT, DataLayout
from ..ir.values import Module
from ..passes.manager import PIPELINES, run_pipeline
from ..targets.llvm.cpu import cpu_target
from ..targets.llvm.nvptx import nvptx_target
from ..targets.simt import simt_target
from ..targets.target import Target
from .door import CompiledProgram, resolve
from .gc_pause import paused_gc
from .units import check_header_name, source_unit


@dataclass(frozen=True)
class Backend:
    """What the compiler runs for one kind of Target: its DataLayout (which the frontend
    lays types out with), its own passes (after the level's pipeline) and its code
    generator (module, Target, build options) -> program."""

    layout: DataLayout
    pipeline: str
    compile: Callable[[Module, Target, str], Any]


BACKENDS: dict[str, Backend] = {
    "cpu": Backend(CPU_LAYOUT, cpu_target.PIPELINE,
                   lambda module, target, options: cpu_target.compile_cpu(module, target)),
    "cuda": Backend(nvptx_target.NVPTX_LAYOUT, nvptx_target.PIPELINE, nvptx_target.compile_nvptx),
    "simt": Backend(simt_target.SIMT_LAYOUT, simt_target.PIPELINE, simt_target.compile_for),
}
TARGET_PIPELINES = {kind: backend.pipeline for kind, backend in BACKENDS.items()}


def pipeline_for(level: int) -> str:
    return PIPELINES[f"O{level}"]


def optimize(module: Module, level: int, target: Target | str = "cpu", *, verify_each: bool = False,
             print_after_all: TextIO | None = None) -> Module:
    """Run the level's pipeline, then the target's own passes, in place (one pipeline)."""
    kind = target if isinstance(target, str) else target.kind
    backend = BACKENDS[kind]
    pipeline = ",".join(p for p in (pipeline_for(level), backend.pipeline) if p)
    run_pipeline(module, pipeline, verify_each=verify_each, print_after_all=print_after_all,
                 layout=backend.layout)
    return module


def frontend_for(source: str | bytes, options: str, filename: str = "<kernel>",
                 layout: DataLayout = CPU_LAYOUT) -> FrontendResult:
    """The IR module of OpenCL C (text, or UTF-8 bytes) or of a SPIR-V module (bytes), for a
    target of DataLayout `layout`."""
    unit = source_unit(source, filename)
    with paused_gc():
        if isinstance(unit, bytes):
            return compile_spirv(unit, options, filename if filename != "<kernel>" else "<spirv>", layout)
        return compile_to_ir(unit, options, filename=filename, layout=layout)


def compile_program(source: str | bytes, options: str = "", target: Target | None = None,
                    filename: str = "<kernel>") -> CompiledProgram:
    """Compile `source` for `target` (default: the host CPU), without the build cache."""
    target = resolve(target, options)
    with paused_gc():
        backend = BACKENDS[target.kind]
        front = frontend_for(source, options, filename, backend.layout)
        try:
            optimize(front.module, target.opt_level or 0, target.kind)
            program = backend.compile(front.module, target, options)
        except CompileError:
            raise
        except Exception as exc:  # a bug in a pass or target: report it, never a traceback
            log = front.log + f"{filename}: error: internal compiler error: {type(exc).__name__}: {exc}\n"
            raise CompileError(log) from exc
    return CompiledProgram(program, front.log, target)


def _write_headers(headers: dict[str, str], folder: str) -> None:
    for name, text in headers.items():
        path = os.path.realpath(os.path.join(folder, check_header_name(name)))
        if os.path.commonpath([folder, path]) != folder:
            raise ValueError(f"header name {name!r} leaves its folder")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "x", encoding="utf-8") as f:
            f.write(text)


def preprocess_unit(source: str, options: str, headers: dict[str, str] | None = None,
                    parse: bool = False, filename: str = "<kernel>") -> tuple[str, str]:
    """(preprocessed text, log) of one unit; `headers` (include name -> text) are found by
    `#include "name"`. Raises CompileError with the log on errors, ValueError for a
    header name that is not an include name (units.check_header_name)."""
    for name in headers or {}:
        check_header_name(name)
    opts = parse_build_options(options)
    with tempfile.TemporaryDirectory(prefix="oclpy-headers-") as folder:
        folder = os.path.realpath(folder)
        if headers:
            _write_headers(headers, folder)
            opts.include_dirs.insert(0, folder)
        diags = DiagnosticEngine({filename: source})
        text = preprocess(source, filename, opts, diags)
        if parse and not diags.has_errors:
            parse_text(text, filename, diags, version_type_names(opts), opts.opencl_c_version)
    if diags.has_errors:
        raise CompileError(diags.render())
    return text, diags.render()


def ast_text(source: str | bytes, options: str, filename: str = "<kernel>") -> str:
    """The AST of OpenCL C `source` after semantic checks, printed; CompileError on errors."""
    unit = source_unit(source, filename)
    if isinstance(unit, bytes):
        raise CompileError(f"{filename}: error: a SPIR-V module has no OpenCL C AST\n")
    opts = parse_build_options(options)
    diags = DiagnosticEngine({filename: unit})
    text = preprocess(unit, filename, opts, diags)
    tu = parse_text(text, filename, diags, version_type_names(opts), opts.opencl_c_version)
    if not diags.has_errors:
        analyze(tu, opts, diags, extension_pragmas(text, filename))
    if diags.has_errors:
        raise CompileError(diags.render())
    return dump(tu)
