"""Helpers of the preprocessor tests: run `preprocess`, read back tokens and diagnostics."""

from __future__ import annotations

import re

from oclpy.diagnostics import DiagnosticEngine
from oclpy.frontend.options import parse_build_options
from oclpy.frontend.c.preprocess import preprocess
from oclpy.frontend.c.preprocessor.tokens import lex

_MARKER = re.compile(r"^#[ \t]*(?:line[ \t]+)?[0-9]+[ \t]+\"[^\n]*$", re.M)  # `# N "file" flags`, `#line N "file"`


def pp(source: str, options: str = "", filename: str = "k.cl") -> tuple[str, DiagnosticEngine]:
    diags = DiagnosticEngine(error_limit=1000)
    return preprocess(source, filename, parse_build_options(options), diags), diags


def tokens(text: str) -> str:
    """The pp-tokens of preprocessed text, one space apart, line markers dropped."""
    return " ".join(t.text for t in lex(_MARKER.sub("", text), "-").tokens if t.kind != "eof")


def expand(source: str, options: str = "") -> str:
    """The token stream of `source` preprocessed, checking that nothing was reported."""
    out, diags = pp(source, options)
    assert not diags.diagnostics, diags.render()
    return tokens(out)


def messages(diags: DiagnosticEngine) -> list[str]:
    """Each diagnostic as "line:col: severity: message" (notes as "  note: ...")."""
    out = []
    for d in diags.diagnostics:
        out.append(f"{d.loc.line}:{d.loc.col}: {d.severity}: {d.message}")
        out.extend(f"  {n.loc.line}:{n.loc.col}: note: {n.message}" for n in d.notes)
    return out
