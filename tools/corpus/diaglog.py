"""clang's diagnostic log: the errors clang emitted, in its order, where clang says they are.

`-Xclang -diagnostic-log-file -Xclang PATH` makes clang's frontend append,
beside its usual output, one `<dict>` per translation unit to PATH: an
`<array>` of diagnostics, each with `level`, `filename`, `line`, `column` and
`message`, in the order clang emitted them and at their presumed locations
(after `#line`; a header's own file and line for an error inside an included
header). clang-tidy reports the same diagnostics sorted by file and offset
at physical locations, so the oracle reads this log instead of its output.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass

ERROR_LEVELS = ("error", "fatal error")


@dataclass(frozen=True)
class Entry:
    level: str
    file: str
    line: int
    column: int
    message: str

    def render(self) -> str:
        """clang's text form, FILE:LINE:COL: LEVEL: MESSAGE."""
        return f"{self.file}:{self.line}:{self.column}: {self.level}: {self.message}"


def _pairs(node: ET.Element) -> dict[str, ET.Element]:
    """A plist `<dict>`'s children as key -> value element."""
    children = list(node)
    return {k.text or "": v for k, v in zip(children[::2], children[1::2]) if k.tag == "key"}


def _entry(node: ET.Element) -> Entry:
    fields = _pairs(node)

    def text(key: str) -> str:
        return fields[key].text or "" if key in fields else ""

    def number(key: str) -> int:
        return int(text(key) or 0)

    return Entry(text("level"), text("filename"), number("line"), number("column"), text("message"))


def parse(log: str) -> list[Entry]:
    """Every diagnostic of every translation unit in the log, in clang's order."""
    root = ET.fromstring(f"<log>{log}</log>")
    entries = []
    for unit in root.findall("dict"):
        diagnostics = _pairs(unit).get("diagnostics")
        if diagnostics is not None:
            entries += [_entry(d) for d in diagnostics.findall("dict")]
    return entries


def errors(log: str) -> list[Entry]:
    return [e for e in parse(log) if e.level in ERROR_LEVELS]
