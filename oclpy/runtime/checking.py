"""Kernel checking in the runtime: `OCLPY_CHECK`, the process's report log, printing.

`OCLPY_CHECK=1` (or `enable()`) makes the simt device the first device of
the platform and runs every simt launch under the checker
(`targets/simt/check/`). Reports gather in one log per process (`SESSION`),
deduplicated by kind and source location; `reports()` lists them, and
`on_report(callback)` calls back with each new one. Each context lists the
reports its own launches found (`Context.check_reports`: `attributed` wraps
a simt driver's launch so that what it finds, new or already known from
another context, is added there too). While printing is on
(the default), each new report is written to stderr as a clang-style
diagnostic as it is found, and `OCLPY_CHECK=1` prints a summary at exit
(`oclpy check` prints its own).
"""

from __future__ import annotations

import atexit
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any, Callable

from ..targets.simt.check.check_render import render_report, summary
from ..targets.simt.check.check_report import Report, ReportLog

ENVIRONMENT = "OCLPY_CHECK"


def requested() -> bool:
    """Whether the environment asks for checking (`OCLPY_CHECK` set, not 0)."""
    return os.environ.get(ENVIRONMENT, "").strip() not in ("", "0")


@dataclass
class CheckSession:
    log: ReportLog = field(default_factory=ReportLog)
    sources: dict[str, str] = field(default_factory=dict)  # file name -> text, for the caret lines
    printing: bool = True  # write each new report to stderr as it is found
    summarised: bool = False  # the summary was printed

    def __post_init__(self) -> None:
        self.log.listeners.append(self.print_report)
        self.log.hits.append(note_in_context)

    def print_report(self, report: Report) -> None:
        if self.printing:
            sys.stderr.write(render_report(report, self.sources))
            sys.stderr.flush()


LAUNCHING = threading.local()  # .reports: the list of the context whose launch runs on this thread


def note_in_context(report: Report) -> None:
    """A finding of the launch running on this thread: on its context's list, once."""
    found = getattr(LAUNCHING, "reports", None)
    if found is not None and not any(r is report for r in found):
        found.append(report)


def attributed(context: Any, launch: Callable[..., None]) -> Callable[..., None]:
    """`launch` (a driver's), with what the checks find while it runs also listed on
    `context.check_reports`."""
    def run(*args: Any) -> None:
        outer = getattr(LAUNCHING, "reports", None)
        LAUNCHING.reports = context.check_reports
        try:
            launch(*args)
        finally:
            LAUNCHING.reports = outer
    return run


SESSION = CheckSession()
_summary_at_exit: list[bool] = []


def enable(summary_at_exit: bool = True) -> None:
    """Check every simt launch from now on (as `OCLPY_CHECK=1` does)."""
    os.environ[ENVIRONMENT] = "1"
    if summary_at_exit and not _summary_at_exit:
        _summary_at_exit.append(True)
        atexit.register(print_summary)


def print_summary() -> None:
    """The summary of every report (once: `oclpy check` prints it itself, and exit does not again)."""
    if SESSION.printing and not SESSION.summarised:
        SESSION.summarised = True
        sys.stderr.write(summary(SESSION.log.reports))


def reports() -> list[Report]:
    """Every report found in this process so far, in the order found (a context's own:
    `Context.check_reports`)."""
    return list(SESSION.log.reports)


def on_report(callback: Callable[[Report], None]) -> None:
    """Call `callback(report)` with each new report as it is found."""
    SESSION.log.listeners.append(callback)


def clear() -> None:
    SESSION.log.clear()


if requested():
    enable()
