"""Where a generated kernel's compile time goes, down to LLVM's passes: `python -m benchmarks.llvm_pass_times CASE SIZE`.

    python -m benchmarks.llvm_pass_times strided 8000 [--top 8] [--keep DIR]

CASE and SIZE name one of `benchmarks/compile_time.py`'s generators. Prints the
CPU seconds of oclpy's own stages (`tools/compile_stages.py`: frontend, passes,
target passes, LLVM IR emission, gc), then of LLVM -O3 as the cpu device runs it
(loop and SLP vectorisers as `binding.optimize` sets them, SLP only where
`huge_functions.slp_vectorization` allows) with its `--top` passes by user time,
then of code generation after `split_blocks` with its `--top` passes: the numbers
that located each superlinear pass of issue 13 (benchmarks/README.md). `--keep DIR`
writes the LLVM IR before and after -O3 there. One process, nothing cached: run
it niced on a shared machine.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import llvmlite.binding as llvm

from benchmarks import compile_time
from oclpy.targets.llvm import binding
from oclpy.targets.llvm.huge_functions import slp_vectorization
from oclpy.targets.llvm.split_blocks import split_huge_blocks
from tools.compile_stages import Kernel, run_stages


def top_passes(report: str, top: int) -> list[tuple[float, str]]:
    """The `top` passes of an LLVM timing report by user seconds, each once."""
    seen: dict[str, float] = {}
    for line in report.splitlines():
        name = line.rsplit("%)", 1)[-1].strip()
        if "%)" in line and name != "Total" and name not in seen:
            seen[name] = float(line.split()[0])
    return sorted(((s, name) for name, s in seen.items()), reverse=True)[:top]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("case", choices=list(compile_time.CASES))
    parser.add_argument("size", type=int)
    parser.add_argument("--top", type=int, default=8)
    parser.add_argument("--keep", type=Path, default=None)
    args = parser.parse_args(argv)
    source = getattr(compile_time, args.case)(args.size)
    stages = run_stages(Kernel("generated", f"{args.case}{args.size}", source, ""), texts=True)
    print("oclpy stages:", {k: round(v, 2) for k, v in stages.seconds.items()}, stages.status)
    text = stages.texts["llvm"]
    mod = binding.parse_and_verify(text)
    tm = binding.host_target_machine(3)
    mod.triple, mod.data_layout = tm.triple, str(tm.target_data)
    pto = llvm.create_pipeline_tuning_options(speed_level=3)
    pto.loop_vectorization = pto.loop_unrolling = True
    pto.slp_vectorization = slp_vectorization(text)
    builder = llvm.create_pass_builder(tm, pto)
    manager = builder.getModulePassManager()
    builder.start_pass_timing()
    start = time.process_time()
    manager.run(mod, builder)
    print(f"LLVM -O3: {time.process_time() - start:.2f} s (SLP vectoriser {'on' if pto.slp_vectorization else 'off'})")
    for seconds, name in top_passes(builder.finish_pass_timing(), args.top):
        print(f"  {seconds:8.2f}  {name}")
    optimized = str(mod)
    split, cuts = split_huge_blocks(optimized)
    llvm.set_time_passes(True)
    start = time.process_time()
    code = tm.emit_object(binding.parse_and_verify(split) if cuts else mod)
    print(f"code generation: {time.process_time() - start:.2f} s ({cuts} cuts, {len(code)} bytes)")
    for seconds, name in top_passes(llvm.report_and_reset_timings(), args.top):
        print(f"  {seconds:8.2f}  {name}")
    llvm.set_time_passes(False)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        (args.keep / f"{args.case}{args.size}.ll").write_text(text)
        (args.keep / f"{args.case}{args.size}.opt.ll").write_text(optimized)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
