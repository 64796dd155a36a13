"""oclpy's own compile path run stage by stage, for measuring it and for comparing its outputs.

A `Kernel` is a program source with its build options, in a named set.
`run_stages(kernel, texts)` runs what `compiler.compile_program` runs for the cpu
device, minus LLVM's own work (native code is made at the first launch): the
frontend, the level's pipeline (what `oclpy build --emit ir` prints), the cpu
target's passes, and the cpu target's emission of LLVM IR (what `--emit llvm`
prints), and the collection of the build's objects when the pause of the cyclic
collector ends (`gc`), with the CPU seconds of each stage (every thread of the process, so the
frontend's worker thread counts). With `texts`, it keeps each stage's output:
the printed IR after the level's pipeline and the LLVM IR, or the build log of a
kernel that does not compile. `corpus_kernels` is the set of the fetched corpus
(`tools/corpus`); benchmarks/compile_stages.py adds the benchmarks' own sets.
Used by tools/ir_identity.py and benchmarks/compile_cpu.py.
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass, field

from oclpy import compiler
from oclpy.compiler.gc_pause import paused_gc
from oclpy.diagnostics import CompileError
from oclpy.ir.printer import print_module
from oclpy.passes.manager import run_pipeline
from oclpy.targets.llvm.cpu import cpu_target

CORPUS_EVERY = 6


@dataclass(frozen=True)
class Kernel:
    set: str
    id: str
    source: str
    options: str


@dataclass
class StageResult:
    status: str  # "ok" or "error" (the kernel does not compile: the log is its output)
    seconds: dict[str, float] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)


def corpus_kernels(every: int = CORPUS_EVERY) -> list[Kernel]:
    """Every `every`-th case of the fetched corpus (none when it is not fetched)."""
    from tools.corpus import manifest
    from tools.corpus.build import build_options

    out = []
    for case in manifest.cases()[::every]:
        job = {"options": case.options, "directory": str(case.directory), "std": case.std}
        out.append(Kernel("corpus", case.id, case.text, " ".join(build_options(job))))
    return out


def run_stages(kernel: Kernel, texts: bool = False) -> StageResult:
    """The cpu device's compile path for `kernel`, timed stage by stage (see above)."""
    result = StageResult("ok")
    clock = [time.process_time()]

    def lap(stage: str) -> None:
        now = time.process_time()
        result.seconds[stage] = now - clock[0]
        clock[0] = now

    try:
        with paused_gc():  # as `compile_program` runs them
            target = compiler.resolve(None, kernel.options)
            front = compiler.frontend_for(kernel.source, kernel.options, "<kernel>")
            lap("frontend")
            run_pipeline(front.module, compiler.pipeline_for(target.opt_level or 0))
            lap("passes")
            if texts:
                result.texts["ir"] = print_module(front.module)
                clock[0] = time.process_time()
            run_pipeline(front.module, compiler.TARGET_PIPELINES["cpu"])
            lap("target_passes")
            program = cpu_target.compile_cpu(front.module, target)
            lap("llvm_emit")
        if gc.isenabled():  # the young generation now holds the whole build: collected once
            gc.collect(0)
        lap("gc")
    except CompileError as exc:
        result.status = "error"
        result.texts["log"] = exc.log
        return result
    if texts:
        result.texts["log"] = front.log
        result.texts["llvm"] = program.llvm_ir
    return result
