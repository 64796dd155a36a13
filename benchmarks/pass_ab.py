"""The cpu target with and without some of its passes, on this suite's kernels, in one run.

    python -m benchmarks.pass_ab [--without widen-work-items,interleave-private-arrays]
                                 [--rounds 4] [names...]

For each case (default: every case a named pass changes), builds the kernel twice
(the target's pipeline as it is, and without the passes named), then times one
launch of each `--rounds` times, alternating which goes first, on the cpu
target's launcher directly (one thread: `tools/cpu_harness.run`), and
prints the fastest of each, their ratio and the check against NumPy of the
build with the passes.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from oclpy.compiler import compile_program

from .case import Case, check
from .cases import MAKERS


def _launch(case: Case, program) -> tuple[float, dict[str, np.ndarray]]:  # type: ignore[no-untyped-def]
    from tools.cpu_harness import run

    outs, args = {}, []
    for a in case.args:
        if a.kind in ("in", "out"):
            v = np.array(a.value, copy=True) if a.kind == "in" else np.zeros_like(a.value)
            outs[a.name] = v
            args.append(v)
        else:
            args.append(a.value)
    local = case.local_size or (min(64, case.global_size[0]),) + (1,) * (len(case.global_size) - 1)
    t0 = time.perf_counter()
    run(program.kernels[case.kernel], args, case.global_size, local)
    return time.perf_counter() - t0, outs


def main(argv: list[str] | None = None) -> int:
    from tools.cpu_harness import compile_without

    ap = argparse.ArgumentParser(prog="python -m benchmarks.pass_ab", description=__doc__.split("\n")[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--without", default="widen-work-items,interleave-private-arrays")
    ap.add_argument("--rounds", type=int, default=4)
    opts = ap.parse_args(argv)
    passes = tuple(p for p in opts.without.split(",") if p)
    for name, make in MAKERS.items():
        if opts.names and name not in opts.names:
            continue
        case = make()
        with_passes = compile_program(case.source).program
        without = compile_without(case.source, passes)
        if not opts.names and with_passes.llvm_ir == without.llvm_ir:
            continue
        times: dict[str, list[float]] = {"with": [], "without": []}
        outs: dict[str, np.ndarray] = {}
        for r in range(opts.rounds):
            order = [("with", with_passes), ("without", without)]
            for tag, program in order if r % 2 == 0 else order[::-1]:
                dt, got = _launch(case, program)
                times[tag].append(dt)
                if tag == "with":
                    outs = got
        problem = check(case, {a.name: outs[a.name] for a in case.args if a.kind == "out"})
        a, b = min(times["with"]), min(times["without"])
        print(f"{name:14s} with {a * 1e3:9.2f} ms  without {b * 1e3:9.2f} ms  with/without {a / b:5.2f}  "
              f"check {problem or 'ok'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
