"""Source files: reading, `#include` search, presumed locations (`#line`), raw directive text.

A `Source` is one file being preprocessed: its pp-tokens, the read position,
and what `#line` did to it (`delta` between presumed and physical lines, and a
presumed file name). Tokens are moved to their presumed location as they are
read (as copies: a file's tokens never change, so one lexing of a header
serves every `#include` of it, `header_tokens.py`), so `__LINE__`, `__FILE__`,
line markers and diagnostics all follow `#line`. `find_include` searches as
clang does for OpenCL C: for `"name"` the including file's folder first, then
each `-I` folder, then oclpy's bundled headers; `<name>` skips the including
file's folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import InitVar, dataclass, field
from typing import Optional

from .tokens import Lexed, PPToken, lex

_SPLICE_AT_END = re.compile(r"\\[ \t\f\v]*$")


def normalize(text: str) -> str:
    """Phase 1 as far as we need it: no byte-order mark, every line ending a "\\n"."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text


def read_source(path: str) -> str:
    with open(path, "rb") as f:
        return normalize(f.read().decode("utf-8", errors="replace"))


@dataclass
class Source:
    path: str  # as found (its folder is searched first for "" includes)
    name: str  # display name: diagnostics, __FILE__, line markers
    text: str
    lexed: Lexed = field(init=False)
    pos: int = 0
    delta: int = 0  # presumed line minus physical line, set by #line
    presumed: Optional[str] = None  # the file name given by #line
    conds: int = 0  # depth of the conditional stack when this file was entered
    found_in: int = -1  # index of the search folder it was found in (#include_next)
    lines: list[str] = field(default_factory=list)
    given: InitVar[Optional[Lexed]] = None  # the tokens of `text`, lexed already (never changed)

    def __post_init__(self, given: Optional[Lexed]) -> None:
        self.lexed = given if given is not None else lex(self.text, self.name)
        self.tokens = self.lexed.tokens

    @property
    def moved(self) -> bool:
        return self.delta != 0 or self.presumed is not None

    def relocated(self, tok: PPToken) -> PPToken:
        """A copy of a token of this file at its presumed location."""
        out = tok.copy()
        out.line += self.delta
        if self.presumed is not None:
            out.file = self.presumed
        return out

    def presumed_line(self, physical: int) -> int:
        return physical + self.delta

    def raw_text(self, start: tuple[int, int], end: tuple[int, int]) -> str:
        """The source text from physical (line, col) `start` to `end`, line splices removed."""
        if not self.lines:
            self.lines = self.text.split("\n")
        (l1, c1), (l2, c2) = start, end
        if l1 == l2:
            return self.lines[l1 - 1][c1 - 1:c2 - 1]
        pieces = [self.lines[l1 - 1][c1 - 1:], *self.lines[l1:l2 - 1], self.lines[l2 - 1][:c2 - 1]]
        return "".join(_SPLICE_AT_END.sub("", p) for p in pieces[:-1]) + pieces[-1]


def find_include(name: str, angled: bool, includer: Source, folders: list[str],
                 start: int = 0) -> Optional[tuple[str, int]]:
    """(path, index of the folder in `folders`, or -1 for the includer's folder) of a header."""
    if os.path.isabs(name):
        return (name, -1) if os.path.isfile(name) else None
    if not angled and start == 0:
        path = os.path.join(os.path.dirname(includer.path), name)
        if os.path.isfile(path):
            return path, -1
    for i in range(start, len(folders)):
        path = os.path.join(folders[i], name)
        if os.path.isfile(path):
            return path, i
    return None


def unquote(literal: str) -> str:
    """The characters of a string literal's spelling (a `#line` file name, a `_Pragma` operand)."""
    body = literal[literal.index('"') + 1:-1]
    return re.sub(r"\\(.)", r"\1", body)
