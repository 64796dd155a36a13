"""The simt simulator of two oclpy trees on the same kernels, in one run, alternating.

    python -m benchmarks.simt_ab --tree before=DIR --tree after=DIR [names...] [-r 2] [--out FILE]

Each tree (a folder holding the `oclpy` and `benchmarks` packages, such as a
`git archive` of another commit, with that commit's hash in a file COMMIT
beside them) gets a child process of its own, running the kernels of
`simt_speed.SIZES` (the simt-speed set, at its sizes) on its simt device.
For each kernel the parent has every tree build it and launch it once
(checked against NumPy), then asks the trees in turn, in ABBA order so that
drift in the machine's load falls on both alike, for `--repeat` more timed
launches. The report gives each tree's fastest launch and after/before per
kernel, and their geometric mean; the JSON (machine, trees, every sample)
goes to benchmarks/results/simt-ab-<stamp>.json unless `--out` says where.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .report import machine, software

# the child: one simt device of its tree; reads "prepare NAME" / "time NAME" lines, answers JSON
CHILD = r"""
import json, sys
from benchmarks.case import check
from benchmarks.impl import oclpy_device, timed
from benchmarks.simt_speed import SIZES
impl, why = oclpy_device("simt")
prepared = {}
for line in sys.stdin:
    verb, name = line.split()
    try:
        if verb == "prepare":
            case = SIZES[name]()
            p = impl.prepare(case)
            seconds = timed(impl, case, p)
            prepared[name] = (case, p)
            answer = {"seconds": seconds, "check": check(case, impl.outputs(case, p)) or "ok"}
        else:
            case, p = prepared[name]
            answer = {"seconds": timed(impl, case, p)}
    except Exception as exc:
        answer = {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}
    print(json.dumps(answer), flush=True)
"""


class Tree:
    def __init__(self, label: str, path: Path) -> None:
        self.label, self.path = label, path
        commit = path / "COMMIT"
        self.commit = commit.read_text().strip() if commit.exists() else ""
        env = {**os.environ, "PYTHONPATH": str(path), "OCLPY_NO_CACHE": "1"}
        self.proc = subprocess.Popen([sys.executable, "-c", CHILD], cwd=path, env=env, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def ask(self, verb: str, name: str) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(f"{verb} {name}\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        return json.loads(line) if line else {"error": "the child exited"}

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run_kernel(name: str, trees: list[Tree], repeat: int) -> dict[str, Any]:
    row: dict[str, Any] = {"kernel": name, "samples": {t.label: [] for t in trees}, "check": {}}
    for t in trees:
        answer = t.ask("prepare", name)
        row["check"][t.label] = answer.get("check", answer.get("error", ""))
        if "seconds" in answer:
            row["samples"][t.label].append(answer["seconds"])
    ok = [t for t in trees if row["samples"][t.label]]
    for r in range(repeat):
        for t in (ok if r % 2 == 0 else list(reversed(ok))):
            answer = t.ask("time", name)
            if "seconds" in answer:
                row["samples"][t.label].append(answer["seconds"])
    row["best_s"] = {k: min(v) for k, v in row["samples"].items() if v}
    return row


def table(rows: list[dict[str, Any]], labels: list[str]) -> str:
    first, last = labels[0], labels[-1]
    head = ["kernel"] + [f"{lab} s" for lab in labels] + [f"{last}/{first}"]
    lines = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    ratios = []
    for row in rows:
        best = row["best_s"]
        cells = [row["kernel"]] + [f"{best[lab]:.3g}" if lab in best else row["check"].get(lab, "-")[:40]
                                   for lab in labels]
        if first in best and last in best:
            ratios.append(best[last] / best[first])
            cells.append(f"{ratios[-1]:.2f}")
        else:
            cells.append("-")
        lines.append("| " + " | ".join(cells) + " |")
    if ratios:
        geo = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        lines.append(f"| geomean of {len(ratios)} | " + " | " * len(labels) + f"{geo:.2f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.simt_ab", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tree", action="append", required=True, metavar="LABEL=DIR")
    ap.add_argument("names", nargs="*", help="kernels of simt_speed.SIZES (default all)")
    ap.add_argument("-r", "--repeat", type=int, default=2, help="timed launches per tree after the checked one")
    ap.add_argument("--out", type=Path)
    args = ap.parse_args(argv)
    from .simt_speed import SIZES

    names = args.names or list(SIZES)
    unknown = [n for n in names if n not in SIZES]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    pairs = [t.split("=", 1) for t in args.tree]
    if any(len(p) != 2 for p in pairs):
        ap.error("--tree takes LABEL=DIR")
    trees = [Tree(label, Path(path).resolve()) for label, path in pairs]
    rows = []
    try:
        for name in names:
            row = run_kernel(name, trees, args.repeat)
            rows.append(row)
            print(f"{name}: " + ", ".join(f"{k} {v:.3g} s" for k, v in row["best_s"].items())
                  + "".join(f" ({k}: {c})" for k, c in row["check"].items() if c != "ok"), flush=True)
    finally:
        for t in trees:
            t.close()
    labels = [t.label for t in trees]
    text = table(rows, labels)
    print("\n" + text)
    record = {"kind": "simt-ab", "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "machine": machine(),
              "software": software(), "trees": {t.label: {"path": str(t.path), "commit": t.commit} for t in trees},
              "repeat": args.repeat, "rows": rows, "table": text}
    out = args.out or Path(__file__).parent / "results" / f"simt-ab-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1, default=str))
    print(f"\nwrote {out}")
    return 0 if all(v == "ok" for r in rows for v in r["check"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
