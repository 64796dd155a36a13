"""Source locations and diagnostics, rendered the way clang prints them.

    file.cl:3:14: error: use of undeclared identifier 'x'
        y = x + 1;
            ^

Every layer may use this module. `DiagnosticEngine` collects diagnostics for
one compilation and renders them against the source texts it was given.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class SourceLocation:
    file: str
    line: int  # 1-based
    col: int  # 1-based

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


UNKNOWN_LOCATION = SourceLocation("<unknown>", 0, 0)


@dataclass
class Diagnostic:
    severity: str  # "error", "warning" or "note"
    message: str
    loc: SourceLocation
    length: int = 1  # columns to underline (1: just the caret)
    notes: list[Diagnostic] = field(default_factory=list)


class TooManyErrors(Exception):
    """Raised by the engine when the error limit is reached; the driver stops there."""


class DiagnosticEngine:
    def __init__(self, sources: dict[str, str] | None = None, error_limit: int = 20,
                 warnings_as_errors: bool = False, suppress_warnings: bool = False) -> None:
        self.sources: dict[str, list[str]] = {}
        for name, text in (sources or {}).items():
            self.add_source(name, text)
        self.diagnostics: list[Diagnostic] = []
        self.error_limit = error_limit
        self.warnings_as_errors = warnings_as_errors
        self.suppress_warnings = suppress_warnings

    def add_source(self, name: str, text: str) -> None:
        # lines as the preprocessor counts them: \n, \r\n and \r end one (a form feed or
        # U+2028, which str.splitlines() would also break at, does not)
        self.sources[name] = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")

    @property
    def error_count(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity in ("error", "fatal error"))

    @property
    def has_errors(self) -> bool:
        return self.error_count > 0

    def error(self, loc: SourceLocation, message: str, length: int = 1) -> Diagnostic:
        diag = Diagnostic("error", message, loc, length)
        self.diagnostics.append(diag)
        if self.error_count >= self.error_limit:
            raise TooManyErrors()
        return diag

    def fatal(self, loc: SourceLocation, message: str, length: int = 1) -> Diagnostic:
        """A `fatal error:` (clang's word for errors that stop the build, e.g. a missing #include)."""
        diag = Diagnostic("fatal error", message, loc, length)
        self.diagnostics.append(diag)
        return diag

    def warning(self, loc: SourceLocation, message: str, length: int = 1) -> Diagnostic | None:
        if self.suppress_warnings:
            return None
        if self.warnings_as_errors:
            return self.error(loc, message, length)
        diag = Diagnostic("warning", message, loc, length)
        self.diagnostics.append(diag)
        return diag

    @staticmethod
    def note(diag: Diagnostic | None, loc: SourceLocation, message: str) -> None:
        if diag is not None:
            diag.notes.append(Diagnostic("note", message, loc))

    def render(self) -> str:
        out = [self.render_one(d) for d in self.diagnostics]
        if self.error_count >= self.error_limit:
            out.append("fatal error: too many errors emitted, stopping now\n")
        errors, warnings = self.error_count, len(self.diagnostics) - self.error_count
        summary = []
        if warnings:
            summary.append(f"{warnings} warning{'s' if warnings != 1 else ''}")
        if errors:
            summary.append(f"{errors} error{'s' if errors != 1 else ''}")
        if summary:
            out.append(" and ".join(summary) + " generated.\n")
        return "".join(out)

    def render_one(self, diag: Diagnostic) -> str:
        text = f"{self.location_text(diag.loc)}: {diag.severity}: {diag.message}\n"
        text += self._snippet(diag.loc, diag.length)
        for note in diag.notes:
            text += self.render_one(note)
        return text

    def location_text(self, loc: SourceLocation) -> str:
        """`file:line:column` as clang writes it: the column in bytes of UTF-8 (`loc.col`
        counts characters, which the caret lines up with)."""
        line = self._line(loc)
        if line is None or loc.col <= 1:
            return str(loc)
        before = line[:loc.col - 1]
        if before.isascii():
            return str(loc)
        return f"{loc.file}:{loc.line}:{len(before.encode('utf-8', 'surrogatepass')) + 1}"

    def _line(self, loc: SourceLocation) -> str | None:
        """The source line `loc` is on (None when the engine has no such line)."""
        lines = self.sources.get(loc.file)
        return lines[loc.line - 1] if lines and 1 <= loc.line <= len(lines) else None

    def _snippet(self, loc: SourceLocation, length: int) -> str:
        line = self._line(loc)
        if line is None:
            return ""
        line = line.replace("\t", " ")
        caret = " " * (loc.col - 1) + "^" + "~" * max(0, length - 1)
        return f"{line}\n{caret}\n"


class CompileError(Exception):
    """A build that failed with diagnostics; `log` is the rendered build log."""

    def __init__(self, log: str) -> None:
        super().__init__(log)
        self.log = log
