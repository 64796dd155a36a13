"""The preprocessed text: tokens back to text, placed where the lexer will find them.

The C lexer (`frontend/lexer.py`) reads `#line N "file"` markers and counts
lines and columns from there, so `Writer` puts every token of the source text
on its own line and column: it writes newlines (a marker after a jump of more
than a few lines or into another file) and pads with spaces. When a macro's
replacement is wider than the macro call, the next source token would land
too far right: the writer then starts a new line with a marker and pads to the
token's column, so diagnostics after a macro use point where clang points.
Replacement tokens start at the macro name's column; between them a space is
written where the replacement has one, and wherever two tokens written side by
side would lex as one (`- -1`, not `--1`).

Pragma lines (`#pragma`, `_Pragma`) are written on a line of their own; the
lexer skips them. A `#` token (made by a macro, or after a line splice) that
would start a line gets an empty comment before it, or the lexer would take
the line for a directive; a stray backslash gets one after it, or a newline written
next would splice the lines.
"""

from __future__ import annotations

from .tokens import PUNCTUATORS, PPToken

_MAX_BLANK_LINES = 8  # a longer jump is a line marker
_WORD = frozenset(("id", "number", "char", "string"))
_PUNCT_PREFIXES = frozenset(p[:i] for p in PUNCTUATORS for i in range(2, len(p) + 1))


def _needs_space(prev: PPToken, tok: PPToken) -> bool:
    """Would `prev` written right before `tok` lex differently (clang's AvoidConcat, simplified)?"""
    a, b = prev.text, tok.text
    if not a or not b:
        return False
    if prev.kind in _WORD and (tok.kind in _WORD or b[0] in "$\\"):
        return True
    if a == "\\" and b[0] in "uU":  # `\` then `u00e9` would lex as one identifier
        return True
    if prev.kind == "number" and (b[0] == "." or b[0] in "+-" and a[-1] in "eEpP" or tok.kind == "other"):
        return True
    if prev.kind == "punct" and tok.kind == "punct" and (a + b[0]) in _PUNCT_PREFIXES:
        return True
    return a[-1] == "/" and b[0] in "/*" or a == "." and tok.kind == "number"


def line_marker(line: int, file: str) -> str:
    return '#line %d "%s"\n' % (line, file.replace("\\", "\\\\").replace('"', '\\"'))


class Writer:
    """Collects the output text; `file`, `line`, `col` are where the next character goes."""

    def __init__(self) -> None:
        self.parts: list[str] = []
        self.file = ""
        self.line = 0
        self.col = 1
        self.prev: PPToken | None = None  # the token before on this output line

    def text(self) -> str:
        if self.col > 1:
            self.parts.append("\n")
            self.col = 1
        return "".join(self.parts)

    def marker(self, file: str, line: int) -> None:
        if self.col > 1 or (self.parts and not self.parts[-1].endswith("\n")):
            self.parts.append("\n")
        self.parts.append(line_marker(line, file))
        self.file, self.line, self.col, self.prev = file, line, 1, None

    def _goto_line(self, file: str, line: int) -> None:
        if file != self.file or line < self.line or line > self.line + _MAX_BLANK_LINES:
            self.marker(file, line)
        elif line > self.line:
            self.parts.append("\n" * (line - self.line))
            self.line, self.col, self.prev = line, 1, None

    def token(self, tok: PPToken) -> None:
        if tok.line != self.line or tok.file != self.file:
            self._goto_line(tok.file, tok.line)
        col, prev, parts = tok.col, self.prev, self.parts
        shield = tok.text[:1] == "#"  # the lexer takes a line whose first token is '#' for a directive
        if shield and prev is None:
            self._shield()
        if tok.src:
            if col < self.col or (col == self.col and prev is not None and _needs_space(prev, tok)):
                self.marker(tok.file, tok.line)
                if shield:
                    self._shield()
            if col > self.col:
                parts.append(" " * (col - self.col))
                self.col = col
        elif col > self.col:
            parts.append(" " * (col - self.col))
            self.col = col
        elif prev is not None and (tok.space or _needs_space(prev, tok)):
            parts.append(" ")
            self.col += 1
        parts.append(tok.text)
        self.col += len(tok.text)
        self.prev = tok
        if tok.text[-1:] == "\\":  # a stray backslash: a newline after it would splice the lines
            self._shield()

    def _shield(self) -> None:
        self.parts.append("/**/")
        self.col += 4

    def directive(self, text: str, file: str, line: int) -> None:
        """A whole line such as `#pragma ...` at `line` (or on a fresh line after a marker)."""
        if self.col > 1:
            self.marker(file, line)
        else:
            self._goto_line(file, line)
        self.parts.append(text + "\n")
        self.line += 1
        self.prev = None
