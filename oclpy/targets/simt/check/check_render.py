"""Reports rendered as clang-style diagnostics, with the source line and a caret.

```
k.cl:12:9: error: out-of-bounds write to __global buffer 'out' (argument 2): offset 4096, size 4096
        out[i] = x;
        ^
k.cl:12:9: note: in kernel 'k', first by work-item (1024,0,0) of work-group (4,0,0); 1 work-item in all
```

A data race adds a note at the other access. A report without a location
(code no source line asked for) is rendered against the kernel's name.
"""

from __future__ import annotations

from ....diagnostics import Diagnostic, DiagnosticEngine, SourceLocation
from .check_report import Report


def where(report: Report) -> str:
    items = f"{report.count} work-item{'s' if report.count != 1 else ''} in all"
    item = ",".join(map(str, report.work_item))
    group = ",".join(map(str, report.group))
    return f"in kernel '{report.kernel}', first by work-item ({item}) of work-group ({group}); {items}"


def render_report(report: Report, sources: dict[str, str] | None = None) -> str:
    """The report as a diagnostic, the caret lines from its program's sources (else `sources`,
    file name -> text)."""
    engine = DiagnosticEngine(report.sources or sources or {})
    loc = report.loc or SourceLocation(f"kernel '{report.kernel}'", 0, 0)
    diag = Diagnostic("error", report.message, loc)
    if report.other_loc is not None or report.other:
        diag.notes.append(Diagnostic("note", report.other or "the other access", report.other_loc or loc))
    return engine.render_one(diag) + f"{engine.location_text(loc)}: note: {where(report)}\n"


def summary(reports: list[Report]) -> str:
    """One line per kind found, then the total: what `oclpy check` prints at the end."""
    if not reports:
        return "oclpy check: no problems found\n"
    counts: dict[str, int] = {}
    for r in reports:
        counts[r.kind] = counts.get(r.kind, 0) + 1
    lines = [f"  {kind}: {n}" for kind, n in counts.items()]
    total = len(reports)
    return f"oclpy check: {total} problem{'s' if total != 1 else ''} found\n" + "\n".join(lines) + "\n"
