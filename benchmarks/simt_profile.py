"""`python -m benchmarks.simt_profile [names...]`: what limits the simt simulator on simt-speed kernels.

For each kernel of `simt_speed.SIZES` (at its size) on oclpy's simt device:
one checked launch, then one launch under cProfile and one with a counter on
every instruction. It prints, per kernel:

- the launch's time and where it goes (cProfile's own time by part of the
  simulator: `scheduler` is `Batch.run`'s own loop and barrier release,
  `batch set-up` a batch's arrays (registers, local and private memory),
  `vector memory` the memory instructions with address resolution, gathers
  and scatters, `ALU` the opcodes' computations (`isa.py` rows, `lane_math`,
  NumPy's operators, the ALU executors' closures), `registers` the operand
  readers and writers, copies and the per-step masks, `control` branches,
  calls and exec-mask code, `NumPy (other)` NumPy's own Python functions,
  `other` the rest);
- steps (instructions the scheduler ran, each for every wave standing at that
  pc), steps per batch, the waves a step ran on average, the lanes on per
  step (and as a share of the lanes of the waves stepped), the instructions
  per work-item (lane-instructions / work-items), the vector memory steps'
  share of the steps, microseconds per step, and profiled calls per step (the
  Python and NumPy calls cProfile saw, a measure of the fixed cost per step).

Nothing is written; numbers vary with the machine's load, shares much less.
"""

from __future__ import annotations

import argparse
import cProfile
import inspect
import pstats
import sys
import time
from collections import Counter
from typing import Any

import numpy as np

from .impl import oclpy_device, timed
from .simt_speed import SIZES

PARTS = (  # (part, file suffix, function names or None for the whole file)
    ("vector memory", "simt/sim_memory.py", None),
    ("vector memory", "simt/simulator.py", {"pick", "put", "resolve", "global_offsets", "local_offsets",
                                            "private_offsets", "load_words", "store_bytes", "per_wave",
                                            "spill_code", "__init__:LaneSet"}),
    ("scheduler", "simt/simulator.py", {"run:Batch", "release_barriers"}),
    ("batch set-up", "simt/simulator.py", {"__init__:Batch"}),
    ("registers", "simt/simulator.py", {"write", "<lambda>", "as_words", "as_word_rows", "join64", "active",
                                        "set_exec", "pack", "vector_words", "put_vector_words"}),
    ("ALU", "simt/isa.py", None),
    ("ALU", "simt/lane_math.py", None),
)


def part_of(filename: str, line: int, name: str, batch_run_line: int, batch_init_line: int = -1) -> str:
    if filename == "~" or "numpy" in filename:
        return "ALU" if name.startswith("<built-in method _operator") else "NumPy (other)"
    if name == "run" and filename.endswith("simt/simulator.py") and line == batch_run_line:
        name = "run:Batch"
    if name == "__init__" and filename.endswith("simt/simulator.py"):
        name = "__init__:Batch" if line == batch_init_line else "__init__:LaneSet"
    for part, suffix, names in PARTS:
        if filename.endswith(suffix) and (names is None or name in names):
            return part
    if filename.endswith("simt/simulator.py"):
        for first, last, part in executor_lines():
            if first <= line <= last:
                return part  # an executor's closure (its readers, compute and writer are counted apart)
    return "other"


def executor_lines() -> list[tuple[int, int, str]]:
    """The source lines of each executor of `simulator.EXECUTORS` (its closures lie inside) and
    the part its family counts in."""
    from oclpy.targets.simt import simulator

    family_part = {"vmem": "vector memory", "smem": "scalar memory", "sscratch": "scalar memory",
                   "valu": "ALU", "vcmp": "ALU", "salu": "ALU", "lane": "ALU", "pseudo": "registers"}
    out = []
    for family, fn in simulator.EXECUTORS.items():
        lines, first = inspect.getsourcelines(fn)
        out.append((first, first + len(lines) - 1, family_part.get(family, "control")))
    return out


def profile_parts(impl: Any, case: Any, p: Any) -> tuple[float, dict[str, float], int]:
    """One launch under cProfile: seconds, own time by part, calls profiled."""
    from oclpy.targets.simt import simulator

    batch_run_line = simulator.Batch.run.__code__.co_firstlineno
    batch_init_line = simulator.Batch.__init__.__code__.co_firstlineno
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    impl.launch(case, p)
    impl.finish()
    prof.disable()
    seconds = time.perf_counter() - t0
    parts: Counter = Counter()
    calls = 0
    table = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    for (filename, line, name), (_, ncalls, tottime, _, _) in table.items():
        parts[part_of(filename, line, name, batch_run_line, batch_init_line)] += tottime
        calls += ncalls
    return seconds, dict(parts), calls


def count_steps(impl: Any, case: Any, p: Any) -> dict[str, float]:
    """One launch with a counter around every decoded instruction (waves, lanes on, memory)."""
    from oclpy.targets.simt import simulator

    totals: Counter = Counter()
    original = simulator.Batch.run

    def counting_run(self: Any, stats: Any) -> None:
        code = self.program.code
        saved = [(d.plain, d.run) for d in code]
        width = self.width

        def wrap(fn: Any, family: str) -> Any:
            def run(s: Any, sel: np.ndarray) -> None:
                totals["steps"] += 1
                waves = int(np.count_nonzero(sel))
                totals["waves"] += waves
                totals["lanes"] += int(np.count_nonzero(s.lanes & sel[:, None]))
                totals["slots"] += waves * width
                totals["vmem"] += family == "vmem"
                fn(s, sel)
            return run

        for d in code:
            family = d.instr.info.family
            d.plain = wrap(d.plain, family) if d.plain is not None else None
            d.run = wrap(d.run, family)
        try:
            original(self, stats)
            totals["batches"] += 1
        finally:
            for d, (plain, run) in zip(code, saved):
                d.plain, d.run = plain, run

    simulator.Batch.run = counting_run  # type: ignore[method-assign]
    try:
        impl.launch(case, p)
        impl.finish()
    finally:
        simulator.Batch.run = original  # type: ignore[method-assign]
    return dict(totals)


def report(name: str, impl: Any) -> str:
    case = SIZES[name]()
    p = impl.prepare(case)
    timed(impl, case, p)  # the first launch decodes the program
    seconds = min(timed(impl, case, p) for _ in range(2))
    prof_s, parts, calls = profile_parts(impl, case, p)
    c = count_steps(impl, case, p)
    items = int(np.prod(case.global_size))
    steps = max(1, c.get("steps", 0))
    share = {k: v / max(sum(parts.values()), 1e-9) for k, v in sorted(parts.items(), key=lambda kv: -kv[1])}
    lines = [f"{name} ({case.size}, {items} work-items): {seconds:.3g} s a launch ({prof_s:.3g} s under cProfile)",
             "  time: " + ", ".join(f"{k} {v:.0%}" for k, v in share.items()),
             f"  steps {c.get('steps', 0)} in {c.get('batches', 0)} batches "
             f"({steps / max(1, c.get('batches', 1)):.0f} a batch), "
             f"{c.get('waves', 0) / steps:.1f} waves a step, {c.get('lanes', 0) / steps:.0f} lanes on a step "
             f"({c.get('lanes', 0) / max(1, c.get('slots', 1)):.0%} of the waves' lanes), "
             f"{c.get('lanes', 0) / items:.0f} instructions a work-item, "
             f"vector memory {c.get('vmem', 0) / steps:.0%} of steps",
             f"  {seconds / steps * 1e6:.0f} us a step, {calls / steps:.0f} profiled calls a step"]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.simt_profile", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("names", nargs="*", help=f"kernels (default all: {', '.join(SIZES)})")
    args = ap.parse_args(argv)
    unknown = [n for n in args.names if n not in SIZES]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    impl, why = oclpy_device("simt")
    if impl is None:
        print(f"no simt device: {why}")
        return 1
    for name in args.names or list(SIZES):
        print(report(name, impl), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
