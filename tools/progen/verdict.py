"""What the results of one program on O0, O2 and PoCL say.

`classify` names the finding ("ok", "ice", "oclpy-build", "timeout",
"O0-vs-O2", "oclpy-vs-pocl", "pocl-build", "invalid", ...); `signature`
condenses results into what a reduced program must keep: the agreement
pattern of the three implementations, or the first line of the error.
"""

from __future__ import annotations

import re

from .execute import Result

OCLPY = ("O0", "O2")


def _first_error(r: Result) -> str:
    """The first error of a build log or the exception line of a traceback, without positions."""
    if r.status in ("crash", "launch"):
        lines = [ln for ln in r.detail.strip().splitlines() if ln and not ln.startswith(" ")]
        return lines[-1] if lines else r.status
    m = re.search(r"error: (.*)", r.detail)
    text = m.group(1) if m else r.detail[:200]
    return re.sub(r"'[^']*'|\d+", "_", text)


def classify(results: dict[str, Result]) -> str:
    ours = [results[k] for k in OCLPY if k in results]
    pocl = results.get("pocl")
    for bad in ("crash", "died", "timeout", "launch"):
        if any(r.status == bad for r in ours):
            return {"crash": "ice", "died": "native-crash"}.get(bad, bad)
    built = [r.status == "ok" for r in ours]
    if not all(built):
        if pocl is None or pocl.status != "ok":
            return "invalid" if not any(built) else "oclpy-build"
        return "oclpy-build"
    if ours[0].outputs != ours[-1].outputs:
        return "O0-vs-O2"
    if pocl is None:
        return "ok"
    if pocl.status != "ok":
        return "pocl-" + pocl.status
    return "ok" if pocl.outputs == ours[0].outputs else "oclpy-vs-pocl"


def signature(results: dict[str, Result]) -> tuple:
    """What must stay the same while reducing: per implementation its status (or
    error), and which implementations agree with which."""
    sig = []
    names = sorted(results)
    for name in names:
        r = results[name]
        sig.append((name, r.status, _first_error(r) if r.status != "ok" else ""))
    groups = []
    for a in names:
        for b in names:
            if a < b and results[a].status == results[b].status == "ok":
                groups.append((a, b, results[a].outputs == results[b].outputs))
    return tuple(sig), tuple(groups)
