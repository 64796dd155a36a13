"""The known differences between oclpy and clang, each with its reason.

`known_differences.toml` holds two kinds of tables:
  [[difference]]  a deliberate difference: oclpy differs on purpose. The case
                  counts as "known" in the corpus report and passes the test.
  [[pending]]     a bug awaiting its fix, named by its group in FINDINGS.md.
                  The case still counts as a failure in the corpus report; in
                  the differential test it is a strict xfail, so the fix shows
                  up as XPASS and its entry must then go.
Both have:
  match     a glob over case ids ("project:path"; for a kernel literal of our
            own test tree its stable key "tests:path#digest", or, as before,
            "tests:path:line": see intree.py, and `python -m tools.corpus
            rekey` to turn the second form into the first); "*" when
            `message` decides
  message   optional: a regular expression that oclpy's first error message
            must contain (for whole families, such as every image kernel)
  clang_message  optional: the same for clang's first error message (for a
            fault of the oracle itself, such as one clang version's gaps)
  category  the disagreement it explains: fail, other-line, accepts, or "*"
and `reason` (difference) or `finding` (pending); a pending entry may say
`strict = false` where clang versions disagree on the case.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from .intree import line_key, stable_key

KNOWN = Path(__file__).with_name("known_differences.toml")


def matches(pattern: str, case_id: str) -> bool:
    """Whether the glob `pattern` matches the case id, or, for a kernel literal of
    our tests, its stable key or its key by line."""
    return any(fnmatch.fnmatch(key, pattern) for key in (case_id, stable_key(case_id), line_key(case_id)))


@dataclass(frozen=True)
class Difference:
    match: str
    category: str
    reason: str
    message: str = ""
    clang_message: str = ""
    strict: bool = True  # pending only: false where the verdict depends on the clang version

    def applies(self, case_id: str, oclpy_message: str, clang_message: str = "") -> bool:
        return matches(self.match, case_id) and \
            (not self.message or re.search(self.message, oclpy_message) is not None) and \
            (not self.clang_message or re.search(self.clang_message, clang_message) is not None)


class KnownDifferences:
    def __init__(self, entries: list[Difference], pending: list[Difference] | None = None) -> None:
        self.entries = entries
        self.pending = pending or []

    @classmethod
    def load(cls, path: Path = KNOWN) -> "KnownDifferences":
        data = tomllib.loads(path.read_text()) if path.exists() else {}
        entries = [Difference(d["match"], d.get("category", "*"), d["reason"], d.get("message", ""),
                              d.get("clang_message", ""))
                   for d in data.get("difference", [])]
        pending = [Difference(d["match"], d.get("category", "*"), d["finding"], d.get("message", ""),
                              strict=d.get("strict", True))
                   for d in data.get("pending", [])]
        for e in entries + pending:
            if not e.reason.strip():
                raise ValueError(f"known difference {e.match!r} has no reason")
        return cls(entries, pending)

    def find(self, case_id: str, category: str, oclpy_message: str = "",
             clang_message: str = "") -> Difference | None:
        for e in self.entries:
            if e.category in ("*", category) and e.applies(case_id, oclpy_message, clang_message):
                return e
        return None

    def find_pending(self, case_id: str) -> Difference | None:
        for e in self.pending:
            if matches(e.match, case_id):
                return e
        return None

    def match(self, case_id: str, category: str, oclpy_message: str = "", clang_message: str = "") -> bool:
        return self.find(case_id, category, oclpy_message, clang_message) is not None
