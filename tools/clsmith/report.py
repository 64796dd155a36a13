"""Tables from the records of a run: verdicts per mode, and kernels grouped by cause.

A record is one kernel's line of the JSON that `check.py` writes:
{"seed", "mode", "verdict", "cause", "oclpy": {...}, "pocl": {...}}.
`python -m tools.clsmith.report RESULTS.json` prints both tables again.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Iterable

from .verdict import VERDICTS

COLUMNS = ("kernels",) + VERDICTS


def mode_table(records: Iterable[dict]) -> list[dict[str, object]]:
    """One row per mode (in first-seen order) and a total: kernels and the count of each verdict."""
    rows: dict[str, Counter] = {}
    for rec in records:
        for key in (rec["mode"], "total"):
            row = rows.setdefault(key, Counter())
            row["kernels"] += 1
            row[rec["verdict"]] += 1
    total = rows.pop("total", Counter())
    return [{"mode": m, **{c: row[c] for c in COLUMNS}} for m, row in [*rows.items(), ("total", total)]]


def markdown(rows: list[dict[str, object]]) -> str:
    """The table as Markdown, leaving out verdict columns that are zero throughout."""
    cols = [c for c in COLUMNS if c == "kernels" or any(r[c] for r in rows)]
    lines = ["| mode | " + " | ".join(cols) + " |", "|---" * (len(cols) + 1) + "|"]
    lines += ["| " + " | ".join(str(r[k]) for k in ["mode", *cols]) + " |" for r in rows]
    return "\n".join(lines)


def causes(records: Iterable[dict]) -> list[tuple[str, int, dict[str, int], list[str]]]:
    """(cause, kernels, kernels per mode, up to 5 examples "mode/seed"), most common first,
    for every kernel that did not agree."""
    by_cause: dict[str, list[dict]] = defaultdict(list)
    for rec in records:
        if rec["verdict"] != "agree":
            by_cause[rec["cause"]].append(rec)
    out = []
    for key, recs in sorted(by_cause.items(), key=lambda kv: -len(kv[1])):
        per_mode = Counter(r["mode"] for r in recs)
        out.append((key, len(recs), dict(per_mode), [f"{r['mode']}/{r['seed']}" for r in recs[:5]]))
    return out


def causes_markdown(records: Iterable[dict]) -> str:
    lines = ["| kernels | cause | per mode | examples |", "|---|---|---|---|"]
    for key, n, per_mode, examples in causes(records):
        modes = ", ".join(f"{m} {k}" for m, k in per_mode.items())
        lines.append(f"| {n} | `{key.replace('|', '/')}` | {modes} | {' '.join(examples)} |")
    return "\n".join(lines)


SAFE_MACRO = re.compile(r"\bsafe_\w+\s*\(|\(\{")


def by_statement_expressions(records: Iterable[dict]) -> dict[str, Counter]:
    """verdict -> how many of its kernels use statement expressions (all of CLSmith's
    safe-math macros are `({ ... })`) and how many do not, read from the kernels' files."""
    out: dict[str, Counter] = defaultdict(Counter)
    for rec in records:
        path = Path(rec.get("kernel", ""))
        if path.is_file():
            uses = bool(SAFE_MACRO.search(path.read_text()))
            out[rec["verdict"]]["with" if uses else "without"] += 1
    return dict(out)


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print("usage: python -m tools.clsmith.report RESULTS.json", file=sys.stderr)
        return 2
    records = json.loads(open(args[0]).read())["kernels"]
    print(markdown(mode_table(records)))
    print()
    print(causes_markdown(records))
    print()
    for verdict, split in by_statement_expressions(records).items():
        print(f"{verdict}: {split['with']} kernels with statement expressions, {split['without']} without")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
