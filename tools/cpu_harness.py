"""Helpers for cpu target tests and benchmarks: compile IR text, pack argument blobs, launch on the calling thread."""

from __future__ import annotations

import numpy as np

from oclpy.compiler import frontend_for
from oclpy.ir.parser import parse_module
from oclpy.ir.verifier import verify_module
from oclpy.passes.manager import PIPELINES, run_pipeline
from oclpy.targets.llvm.cpu.cpu_target import PIPELINE, CompiledKernel, CpuProgram, compile_cpu


def compile_text(text: str) -> CpuProgram:
    """IR text -> the cpu target, with the one target pass it needs (form-workgroups)."""
    module = parse_module(text)
    verify_module(module)
    run_pipeline(module, "form-workgroups")
    return compile_cpu(module)


def compile_without(source: str, passes: tuple[str, ...]) -> CpuProgram:
    """OpenCL C -> the cpu target at -O2, the target's passes named in `passes` left out
    (a build to compare a pass against)."""
    module = frontend_for(source, "").module
    target = ",".join(p for p in PIPELINE.split(",") if p.split("{")[0] not in passes)
    run_pipeline(module, PIPELINES["O2"] + "," + target, verify_each=True)
    return compile_cpu(module)


def pack(kernel: CompiledKernel, *values: object) -> bytes:
    """The argument blob: arrays by address, ints for local sizes, numpy scalars or bytes."""
    blob = bytearray(kernel.blob_size)
    assert len(values) == len(kernel.args)
    for arg, value in zip(kernel.args, values):
        if arg.kind in ("global", "constant"):
            raw = np.uint64(0 if value is None else value.ctypes.data).tobytes()  # type: ignore[union-attr]
        elif arg.kind == "local":
            raw = np.uint64(value).tobytes()
        else:
            raw = value if isinstance(value, bytes) else np.asarray(value).tobytes()
        assert len(raw) <= arg.size, (arg, raw)
        blob[arg.offset:arg.offset + len(raw)] = raw
    return bytes(blob)


def pad3(t: tuple[int, ...], fill: int) -> tuple[int, int, int]:
    return tuple(list(t) + [fill] * (3 - len(t)))  # type: ignore[return-value]


def run(kernel: CompiledKernel, args: list[object], global_size: tuple[int, ...],
        local_size: tuple[int, ...], offset: tuple[int, ...] = ()) -> None:
    gs, ls = pad3(global_size, 1), pad3(local_size, 1)
    groups = int(np.prod([g // l for g, l in zip(gs, ls)]))
    kernel.launch(pack(kernel, *args), len(global_size), gs, ls, pad3(offset, 0), 0, groups)
