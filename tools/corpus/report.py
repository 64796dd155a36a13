"""Classify each case's pair of verdicts, group the failures, print and save.

Categories, one per case (`CATEGORIES` is the order they print in):
  build       oclpy builds, clang accepts
  fail        oclpy rejects (not an internal error), clang accepts
  same-line   both reject, oclpy's first error on clang's first error's line
  other-line  both reject, on different lines (or in different files)
  accepts     oclpy builds, clang rejects
  internal    an exception escaped oclpy, its log holds a traceback or an
              "internal compiler error", or the worker died
  timeout     oclpy took longer than the time limit
  known       a listed deliberate difference (`known_differences.toml`)
  skipped     the manifest marks the case (with a reason), no oracle, or only
              clang was asked (`--what clang`)
"""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from .known import KnownDifferences

CATEGORIES = ("build", "fail", "same-line", "other-line", "accepts", "internal", "timeout", "known", "skipped")
GROUPED = ("fail", "internal", "other-line", "accepts", "timeout")


def _where(diag: dict | None) -> tuple[str, int] | None:
    return (diag["file"], diag["line"]) if diag else None


def classify(result: dict, known: KnownDifferences | None = None) -> str:
    oclpy, clang = result.get("oclpy", {}), result.get("clang", {})
    o, c = oclpy.get("status"), clang.get("status")
    if o in ("internal", "died"):
        category = "internal"
    elif o == "timeout":
        category = "timeout"
    elif c not in ("ok", "error") or o is None:  # no oracle, or one side not asked (--what)
        return "skipped"
    elif o == "ok":
        category = "build" if c == "ok" else "accepts"
    elif c == "ok":
        category = "fail"
    else:
        category = "same-line" if _where(oclpy["first"]) == _where(clang["first"]) else "other-line"
    message = (oclpy.get("first") or {}).get("message", "")
    clang_message = (clang.get("first") or {}).get("message", "")
    if category not in ("build", "same-line") and known and \
            known.match(result["id"], category, message, clang_message):
        return "known"
    return category


_QUOTED = re.compile(r"'[^']*'")
_NUMBER = re.compile(r"\b\d+(\.\d+)?\b")


def normalise(message: str) -> str:
    """A message with its particulars blanked: names in quotes and numbers."""
    text = _QUOTED.sub("'_'", message)
    text = _NUMBER.sub("N", text)
    text = re.sub(r"\s+", " ", text).strip()
    return text[:160]


def group_key(category: str, result: dict) -> str:
    side = "clang" if category == "accepts" else "oclpy"
    first = result.get(side, {}).get("first")
    if category == "timeout":
        return "timeout"
    return normalise(first["message"]) if first else "(no diagnostic)"


@dataclass
class Report:
    results: list[dict] = field(default_factory=list)
    oracle: str = ""

    def add(self, result: dict, category: str) -> None:
        result["category"] = category
        self.results.append(result)

    def counts(self) -> Counter:
        return Counter(r["category"] for r in self.results)

    def line(self) -> str:
        c = self.counts()
        return (f"corpus: {c['build']} build, {c['fail']} fail where clang accepts, "
                f"{c['same-line']} rejected as clang rejects, {c['internal']} internal errors "
                f"({len(self.results)} kernels; {c['other-line']} rejected on another line than clang, "
                f"{c['accepts']} accepted where clang rejects, {c['timeout']} timeouts, "
                f"{c['known']} known differences, {c['skipped']} skipped)")

    def groups(self) -> list[dict]:
        table: dict[tuple[str, str], list[str]] = defaultdict(list)
        for r in self.results:
            if r["category"] in GROUPED:
                table[(r["category"], group_key(r["category"], r))].append(r["id"])
        rows = [{"category": k[0], "message": k[1], "count": len(v), "examples": sorted(v)[:5]}
                for k, v in table.items()]
        return sorted(rows, key=lambda row: (-row["count"], row["category"], row["message"]))

    def table(self, limit: int = 60) -> str:
        rows = self.groups()
        out = [f"{'count':>5}  {'category':<10}  first error (normalised) -- example"]
        for row in rows[:limit]:
            out.append(f"{row['count']:>5}  {row['category']:<10}  {row['message']}  -- {row['examples'][0]}")
        if len(rows) > limit:
            out.append(f"  ... {len(rows) - limit} more groups (see the JSON report)")
        return "\n".join(out)

    def by_project(self) -> dict[str, Counter]:
        table: dict[str, Counter] = defaultdict(Counter)
        for r in self.results:
            table[r["id"].split(":", 1)[0]][r["category"]] += 1
        return dict(sorted(table.items()))

    def save(self, path: Path) -> None:
        data = {"line": self.line(), "oracle": self.oracle, "counts": dict(self.counts()),
                "projects": {k: dict(v) for k, v in self.by_project().items()},
                "groups": self.groups(), "cases": self.results}
        path.write_text(json.dumps(data, indent=1))
