"""CPU seconds of oclpy's own compile path per kernel set: `python -m benchmarks.compile_cpu`.

    python -m benchmarks.compile_cpu [--sets real,corpus,generated] [--corpus-every N] [--out FILE]

Compiles every kernel of each set (`compile_stages.py`: the real suite's programs,
every N-th kernel of the fetched corpus, `compile_time.py`'s generators at 1,000 and
4,000 lines) through the cpu device's path without LLVM's own work, and records the
CPU seconds of each stage (`frontend`: preprocess, parse, sema, lowering; `passes`:
the level's pipeline; `target_passes`: the cpu target's; `llvm_emit`: our IR to LLVM
IR text; `gc`: the collection that runs when the build's pause of the collector
ends). CPU time, not wall-clock time: the machines this runs on are shared, and CPU
time of this process (all its threads) is what other work does not change much.
Kernels that do not compile count with the stages they reached. The table is printed
and the JSON record (machine, versions, the git commit, per-kernel seconds) goes to
`benchmarks/results/compile-cpu-<date>.json`. Compare two commits by running it on
each in the same conditions.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from tools.compile_stages import CORPUS_EVERY, corpus_kernels, run_stages

from .compile_stages import SETS
from .report import machine, software

RESULTS = Path(__file__).resolve().parent / "results"
STAGES = ("frontend", "passes", "target_passes", "llvm_emit", "gc")


def commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                             cwd=Path(__file__).parent, check=False)
        return out.stdout.strip()
    except OSError:
        return ""


def measure(sets: list[str], corpus_every: int) -> dict[str, dict]:
    """{set: {"kernels": {id: {stage: seconds, "status": ...}}, "total": {stage: seconds}}}."""
    out: dict[str, dict] = {}
    for name in sets:
        kernels = corpus_kernels(corpus_every) if name == "corpus" else SETS[name]()
        rows: dict[str, dict] = {}
        for n, kernel in enumerate(kernels, 1):
            result = run_stages(kernel)
            rows[kernel.id] = {"status": result.status, **result.seconds}
            print(f"\r{name}: {n}/{len(kernels)}", end="", file=sys.stderr)
        print(file=sys.stderr)
        total = {s: sum(r.get(s, 0.0) for r in rows.values()) for s in STAGES}
        total["all"] = sum(total.values())
        out[name] = {"kernels": rows, "total": total, "count": len(rows),
                     "failed": sum(r["status"] != "ok" for r in rows.values())}
    return out


def table(results: dict[str, dict]) -> str:
    lines = [f"{'set':<16}{'kernels':>8}" + "".join(f"{s:>14}" for s in (*STAGES, "all"))]
    for name, res in results.items():
        lines.append(f"{name:<16}{res['count']:>8}" + "".join(f"{res['total'][s]:>14.2f}" for s in (*STAGES, "all")))
        if name == "generated":
            for kid, row in res["kernels"].items():
                secs = [row.get(s, 0.0) for s in STAGES]
                lines.append(f"  {kid:<22}" + "".join(f"{x:>14.2f}" for x in secs) + f"{sum(secs):>14.2f}")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.compile_cpu")
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--corpus-every", type=int, default=CORPUS_EVERY)
    ap.add_argument("--out", type=Path, help="the JSON file (default: results/compile-cpu-<date>.json)")
    args = ap.parse_args()
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
    results = measure(args.sets.split(","), args.corpus_every)
    print("CPU seconds of oclpy's compile path for the cpu device, per stage")
    print(table(results))
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    record = {"benchmark": "compile_cpu", "date_utc": stamp, "machine": machine(), "software": software(),
              "commit": commit(), "corpus_every": args.corpus_every, "sets": results}
    path = args.out or RESULTS / f"compile-cpu-{stamp}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
