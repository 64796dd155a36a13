"""What oclpy's and PoCL's runs of one CLSmith kernel say.

`classify` names the verdict (one of `VERDICTS`); `cause` condenses it into a
grouping key (the first error line without positions or names, the internal
error, ...) so that many kernels failing one way count as one cause;
`signature` is what a reduced kernel must keep.
"""

from __future__ import annotations

import re

from tools.progen.execute import Result

# the columns of the per-mode table, in order
VERDICTS = ("agree", "oclpy-build", "oclpy-ice", "oclpy-crash", "timeout", "pocl-fail", "differ",
            "both-build", "both-crash", "oclpy-launch")
BUGS = ("oclpy-build", "oclpy-ice", "oclpy-crash", "timeout", "differ", "oclpy-launch")
ICE = "internal compiler error"
CLANG_REJECTS = "clang rejects the kernel"  # how `check.judge_by_clang`'s build failure begins


def first_error(detail: str) -> str:
    """The first `error:` line of a build log, else the exception line of a traceback,
    with names in quotes and plain numbers blanked ("at file.py:58" keeps its line)."""
    m = re.search(r"error: (.*)", detail)
    if m:
        text = m.group(1)
    else:
        lines = [ln for ln in detail.strip().splitlines() if ln and not ln.startswith(" ")]
        text = lines[-1] if lines else ""
    text = re.sub(r"'[^']*'", "'_'", text.strip())
    text = re.sub(r"\"[^\"]*\"", '"_"', text)
    return re.sub(r"(?<![:.\w])\d+", "N", text)[:200]


def classify(ours: Result, pocl: Result) -> str:
    """The verdict on a kernel from oclpy's run (`ours`) and PoCL's."""
    if ours.status == "died":
        # both killed by one signal: the kernel's own fault (a null pointer read, ...) until shown otherwise
        return "both-crash" if pocl.status == "died" and pocl.detail == ours.detail else "oclpy-crash"
    if ours.status == "crash" or (ours.status in ("build", "launch") and ICE in ours.detail):
        return "oclpy-ice"
    if ours.status == "timeout":
        return "timeout"
    if ours.status == "build":
        return "both-build" if pocl.status == "build" else "oclpy-build"
    if ours.status == "launch":
        return "oclpy-launch"
    if pocl.status != "ok":
        return "pocl-fail"
    return "agree" if ours.outputs == pocl.outputs else "differ"


def _differing(ours: Result, pocl: Result) -> tuple[int, int]:
    """(work-items whose results differ, work-items) from the result buffers where known."""
    a, b = getattr(ours, "values", b""), getattr(pocl, "values", b"")
    if not a or len(a) != len(b):
        return -1, -1
    n = len(a) // 8
    return sum(a[i:i + 8] != b[i:i + 8] for i in range(0, len(a), 8)), n


def cause(ours: Result, pocl: Result, pocl_o0: Result | None = None) -> str:
    """A key shared by kernels that fail the same way. `pocl_o0`, PoCL's run at -O0 where
    oclpy timed out and PoCL finished, tells a kernel that may never end (PoCL at -O0
    times out too) from one that is only slow on oclpy."""
    verdict = classify(ours, pocl)
    if verdict == "both-build" and pocl.detail.startswith(CLANG_REJECTS):
        return f"oclpy-build, clang rejects too: {first_error(ours.detail)}"
    if verdict in ("oclpy-build", "oclpy-ice", "oclpy-launch", "both-build"):
        return f"{verdict}: {first_error(ours.detail)}"
    if verdict in ("oclpy-crash", "both-crash"):
        return f"{verdict}: {ours.detail}"
    if verdict == "timeout":
        if pocl.status in ("timeout", "ok"):
            if pocl.status == "timeout":
                return "timeout (PoCL times out too)"
            slow_o0 = pocl_o0 is not None and pocl_o0.status == "timeout"
            return "timeout (PoCL finishes, PoCL -O0 times out)" if slow_o0 else "timeout (PoCL finishes)"
        if pocl.status == "unrun":
            return "timeout (PoCL not run)"
        return f"timeout (PoCL {pocl.status}: {first_error(pocl.detail)})"
    if verdict == "pocl-fail":
        return f"pocl-{pocl.status}: {first_error(pocl.detail) if pocl.status != 'timeout' else ''}"
    if verdict == "differ":
        bad, n = _differing(ours, pocl)
        return "differ in every work-item" if bad == n else "differ in some work-items"
    return verdict


def signature(ours: Result, pocl: Result) -> tuple[str, str]:
    """What a reduction keeps: the verdict and, but for a difference, its cause."""
    verdict = classify(ours, pocl)
    return verdict, "" if verdict == "differ" else cause(ours, pocl)


def agreement(runs: dict[str, Result]) -> tuple[tuple[str, str, int], ...]:
    """Which runs agree with which: per implementation (in name order) its status and
    the first implementation (by position) whose results it shares (-1 if it failed)."""
    names = sorted(runs)
    out = []
    for name in names:
        r = runs[name]
        same = next((i for i, n in enumerate(names) if r.status == "ok" and runs[n].same(r)), -1)
        out.append((name, r.status, same))
    return tuple(out)
