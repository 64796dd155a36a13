"""The known deliberate differences between oclpy and clang, with a reason each.

`known_differences.toml` holds `[[difference]]` tables:
  match     a glob over case ids ("project:path", or "tests:path" for the
            kernels of our own test tree)
  category  the disagreement it explains: fail, other-line, accepts, or "*"
  reason    why oclpy differs on purpose
A listed case that agrees with clang again is reported as stale by the test.
"""

from __future__ import annotations

import fnmatch
import tomllib
from dataclasses import dataclass
from pathlib import Path

KNOWN = Path(__file__).with_name("known_differences.toml")


@dataclass(frozen=True)
class Difference:
    match: str
    category: str
    reason: str


class KnownDifferences:
    def __init__(self, entries: list[Difference]) -> None:
        self.entries = entries

    @classmethod
    def load(cls, path: Path = KNOWN) -> "KnownDifferences":
        data = tomllib.loads(path.read_text()) if path.exists() else {}
        entries = [Difference(d["match"], d.get("category", "*"), d["reason"])
                   for d in data.get("difference", [])]
        for e in entries:
            if not e.reason.strip():
                raise ValueError(f"known difference {e.match!r} has no reason")
        return cls(entries)

    def find(self, case_id: str) -> Difference | None:
        for e in self.entries:
            if fnmatch.fnmatch(case_id, e.match):
                return e
        return None

    def match(self, case_id: str, category: str) -> bool:
        e = self.find(case_id)
        return e is not None and e.category in ("*", category)
