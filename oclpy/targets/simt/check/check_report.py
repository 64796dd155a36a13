"""Check reports as plain data, and the log that deduplicates them.

A `Report` is one finding: its check `kind` (a key of `KINDS`), the kernel,
the source location of the instruction that found it, a message, the first
work-item and work-group that hit it, how many work-items did, for a data
race the other side (`other_loc`, `other`), and its program's source text
(`sources`). `ReportLog.add` merges reports of the same kind, kernel,
locations (both sides of a race) and source text into one, counting
distinct work-items, and calls its listeners with each new report as it
appears, so a tool can print it at once and a test can collect it; `hits`
hear of every finding, new or merged into a known report (the runtime keeps
per-context lists with them).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterable

from ....diagnostics import SourceLocation

KINDS = {
    "out-of-bounds": "an access outside the memory its address space allows",
    "access-mode": "a read of a write-only buffer or a write to a read-only one",
    "released-buffer": "an access to a buffer already released",
    "division-by-zero": "integer division or remainder by zero",
    "invalid-cast": "a generic-to-named cast of a pointer into another address space",
    "barrier-divergence": "a barrier reached by some work-items of a group and not others",
    "deadlock": "a work-group that can never finish",
    "uninitialized": "a value read before anything wrote it, used where it matters",
    "data-race": "two work-items touch the same bytes unordered, one of them writing",
}

WorkItem = tuple[int, int, int]


@dataclass
class Report:
    kind: str
    kernel: str
    loc: SourceLocation | None
    message: str
    work_item: WorkItem
    group: WorkItem
    count: int = 1
    other_loc: SourceLocation | None = None  # a race's other access
    other: str = ""  # what the other side is, in words
    # the kernel's program's sources (file name -> text), for the caret lines: programs built
    # under one name (`<kernel>`) keep their own text
    sources: dict[str, str] = field(default_factory=dict, repr=False, compare=False)

    @property
    def key(self) -> tuple[object, ...]:
        text = self.sources.get(self.loc.file) if self.loc is not None else None
        return (self.kind, self.kernel, self.loc, self.other_loc, text)


@dataclass
class ReportLog:
    """Reports in the order found, one per key; `listeners` hear of each new one, `hits` of
    every finding (the report it made or merged into)."""

    reports: list[Report] = field(default_factory=list)
    listeners: list[Callable[[Report], None]] = field(default_factory=list)
    hits: list[Callable[[Report], None]] = field(default_factory=list)
    _items: dict[tuple[object, ...], set[int]] = field(default_factory=dict)
    _by_key: dict[tuple[object, ...], Report] = field(default_factory=dict)

    def add(self, report: Report, items: Iterable[int]) -> Report:
        """Merge `report` (found by work-items `items`, linear global ids) into the log."""
        known = self._by_key.get(report.key)
        if known is None:
            self._by_key[report.key] = known = report
            self._items[report.key] = set()
            self.reports.append(report)
            seen = self._items[report.key]
            seen.update(items)
            known.count = max(1, len(seen))
            for listen in list(self.listeners):
                listen(report)
        else:
            seen = self._items[report.key]
            seen.update(items)
            known.count = max(1, len(seen))
        for hit in list(self.hits):
            hit(known)
        return known

    def clear(self) -> None:
        self.reports.clear()
        self._items.clear()
        self._by_key.clear()
