"""`#pragma OPENCL EXTENSION name : enable|disable`: which extension is enabled where.

OpenCL C 1.2 9.1: an extension's language features (cl_khr_fp16's `half` values)
may be used only after the pragma enables it, until a pragma disables it again;
every extension starts disabled. The preprocessor leaves pragma lines in its
output (with the `#line` markers that map lines back to the user's files), so
this module reads them from the preprocessed text, apart from the lexer and the
parser: `extension_pragmas(text)` returns an `ExtensionPragmas`, and sema asks
`enabled("cl_khr_fp16", loc)` for the source location of a use.

The order of the preprocessed text decides: a location is placed at the first
preprocessed line that shows its source line, and an extension is enabled there
when the last pragma naming it above that line said `enable`. `all : disable`
disables every extension; `all : enable` is refused by clang ("expected
'disable'") and so is ignored here, as is any other behaviour word.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass, field

from ...diagnostics import SourceLocation

_PRAGMA = re.compile(r"\s*#\s*pragma\s+OPENCL\s+EXTENSION\s+(\w+)\s*:\s*(\w+)\s*$")
_MARKER = re.compile(r"\s*#\s*(?:line\s+)?([0-9]+)(?:\s+\"((?:[^\"\\]|\\.)*)\")?")


@dataclass
class ExtensionPragmas:
    """Where each extension was enabled and disabled, in preprocessed-line order."""

    first_line: dict[tuple[str, int], int] = field(default_factory=dict)  # (file, line) -> output line
    changes: dict[str, list[tuple[int, bool]]] = field(default_factory=dict)  # name -> (output line, on)

    def place(self, loc: SourceLocation) -> int:
        """Where `loc` stands in translation order: the first preprocessed line that shows its
        source line (past every line for a location the text does not show)."""
        return self.first_line.get((loc.file, loc.line), len(self.first_line))

    def enabled(self, name: str, loc: SourceLocation) -> bool:
        """Whether extension `name` is enabled at `loc`."""
        events = self.changes.get(name)
        if not events:
            return False
        at = self.first_line.get((loc.file, loc.line))
        if at is None:  # a location the text does not show (made up): the state at the end
            return events[-1][1]
        i = bisect_right([line for line, _ in events], at)
        return i > 0 and events[i - 1][1]


def extension_pragmas(text: str, filename: str = "<kernel>") -> ExtensionPragmas:
    """The extension pragmas of preprocessed `text` (its first line is line 1 of `filename`)."""
    out = ExtensionPragmas()
    file, line = filename, 1
    changes: dict[str, list[tuple[int, bool]]] = {}
    for index, raw in enumerate(text.split("\n")):
        stripped = raw.lstrip()
        if stripped.startswith("#"):
            m = _MARKER.match(raw)
            if m is not None:
                file = m.group(2).replace('\\"', '"').replace("\\\\", "\\") if m.group(2) is not None else file
                line = int(m.group(1))
                continue
            p = _PRAGMA.match(raw)
            if p is not None and p.group(2) in ("enable", "disable"):
                on = p.group(2) == "enable"
                if p.group(1) == "all":
                    if not on:
                        for events in changes.values():
                            events.append((index, False))
                else:
                    changes.setdefault(p.group(1), []).append((index, on))
        out.first_line.setdefault((file, line), index)
        line += 1
    out.changes = changes
    return out
