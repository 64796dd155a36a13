"""oclpy's own build of chosen kernels, stage by stage, in CPU seconds (no LLVM).

    python -m tools.build_stages [--options OPTS] [--profile DIR] [--ir DIR] KERNEL...

KERNEL is a corpus case (`john:run/opencl/sha512_kernel.cl`, as `python -m
tools.corpus list` names them; built with the case's options) or a `.cl` file
(built with `--options`). Each kernel goes through what `compiler.compile_program`
runs for the cpu device before LLVM: the frontend's stages (preprocess, parse, sema,
lower) and each pass of the level's pipeline and of the cpu target's, on the
frontend's deep-stack thread with the cyclic collector paused, as a build runs them.
One line per kernel: the CPU seconds of the build and of each stage, the passes'
summed by name (the compiler's modules are imported before the first is timed). `--profile DIR` writes a cProfile file per kernel (`pstats` sorts
it by `cumulative` or `tottime`); `--ir DIR` writes the IR printed after the whole
pipeline (to compare a change's output with `cmp`).
"""

from __future__ import annotations

import argparse
import cProfile
import re
import sys
import time
from dataclasses import replace
from pathlib import Path

from oclpy import compiler
from oclpy.compiler.gc_pause import paused_gc
from oclpy.diagnostics import DiagnosticEngine, TooManyErrors
from oclpy.frontend.c.builtins.images import LIBRARY_NAME, library_source, wants_images
from oclpy.frontend.c.c_parser import parse
from oclpy.frontend.c.extension_pragmas import extension_pragmas
from oclpy.frontend.c.lower.unit import lower
from oclpy.frontend.c.preprocess import preprocess
from oclpy.frontend.c.sema.analyzer import analyze
from oclpy.frontend.driver import run_with_deep_stack, stack_bytes_for, version_type_names
from oclpy.frontend.options import parse_build_options
from oclpy.ir.datalayout import CPU_LAYOUT
from oclpy.ir.printer import print_module
from oclpy.passes.manager import parse_pipeline
from oclpy.targets.llvm.cpu import cpu_target
from tools.compile_stages import Kernel

FRONTEND = ("preprocess", "parse", "sema", "lower")
FILE = "<kernel>"


def corpus_kernel(case_id: str) -> Kernel:
    from tools.corpus import manifest
    from tools.corpus.build import build_options

    for case in manifest.cases():
        if case.id == case_id:
            job = {"options": case.options, "directory": str(case.directory), "std": case.std}
            return Kernel("corpus", case.id, case.text, " ".join(build_options(job)))
    raise SystemExit(f"no corpus case {case_id!r} (python -m tools.corpus list)")


def stages(kernel: Kernel) -> tuple[str, dict[str, float], str]:
    """(status, CPU seconds per stage, the IR after the whole pipeline) of one kernel."""
    seconds: dict[str, float] = {}
    clock = [time.process_time()]

    def lap(stage: str) -> None:
        now = time.process_time()
        seconds[stage] = seconds.get(stage, 0.0) + now - clock[0]
        clock[0] = now

    opts = replace(parse_build_options(kernel.options), layout=CPU_LAYOUT)
    diags = DiagnosticEngine({FILE: kernel.source})
    try:
        text = preprocess(kernel.source, FILE, opts, diags)
        if wants_images(text):  # as the frontend driver does
            plain = replace(opts, defines={}, include_dirs=[])
            text = preprocess(library_source(), LIBRARY_NAME, plain, DiagnosticEngine({})) + text
        lap("preprocess")
        tu = parse(text, FILE, diags, version_type_names(opts), opts.opencl_c_version, opts.size_rules)
        lap("parse")
        if not diags.has_errors:
            analyze(tu, opts, diags, extension_pragmas(text, FILE))
            lap("sema")
    except TooManyErrors:
        pass
    if diags.has_errors:
        return "error", seconds, ""
    module = lower(tu, opts)
    lap("lower")
    level = compiler.resolve(None, kernel.options).opt_level or 0
    for p in parse_pipeline(",".join(x for x in (compiler.pipeline_for(level), cpu_target.PIPELINE) if x)):
        p.run(module)
        lap(p.name)
    return "ok", seconds, print_module(module)


def build(kernel: Kernel, profile: cProfile.Profile | None) -> tuple[str, dict[str, float], str]:
    def work() -> tuple[str, dict[str, float], str]:
        with paused_gc():
            if profile is not None:
                profile.enable()
            try:
                return stages(kernel)
            finally:
                if profile is not None:
                    profile.disable()

    return run_with_deep_stack(work, stack_bytes_for(len(kernel.source)))


def report(kernel: Kernel, status: str, seconds: dict[str, float]) -> str:
    front = [f"{s} {seconds.get(s, 0.0):.2f}" for s in FRONTEND]
    passes = {k: v for k, v in seconds.items() if k not in FRONTEND}
    top = sorted(passes, key=passes.__getitem__, reverse=True)[:4]
    return (f"{kernel.id}: {status}, build {sum(seconds.values()):.2f} s CPU ({', '.join(front)}, "
            f"passes {sum(passes.values()):.2f}: {', '.join(f'{k} {passes[k]:.2f}' for k in top)})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tools.build_stages")
    ap.add_argument("kernels", nargs="+")
    ap.add_argument("--options", default="", help="build options of the .cl files given")
    ap.add_argument("--profile", type=Path, help="write a cProfile file per kernel here")
    ap.add_argument("--ir", type=Path, help="write the IR after the pipeline per kernel here")
    args = ap.parse_intermixed_args(argv)
    compiler.load_toolchain()  # its imports (every pass and target) are no kernel's build
    for name in args.kernels:
        kernel = (Kernel("file", name, Path(name).read_text(), args.options) if name.endswith(".cl")
                  and Path(name).is_file() else corpus_kernel(name))
        profile = cProfile.Profile() if args.profile else None
        status, seconds, ir = build(kernel, profile)
        stem = re.sub(r"[^\w.-]", "_", kernel.id)
        if profile is not None:
            args.profile.mkdir(parents=True, exist_ok=True)
            profile.dump_stats(str(args.profile / f"{stem}.prof"))
        if args.ir is not None and ir:
            args.ir.mkdir(parents=True, exist_ok=True)
            (args.ir / f"{stem}.ir").write_text(ir)
        print(report(kernel, status, seconds), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
