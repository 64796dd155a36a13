"""`#include` (C99 6.10.2), `#include_next`, `#line` (6.10.4) and GNU line markers.

Both directives take their operands as written or, failing that, after macro
replacement. A header that cannot be found is a fatal error that ends
preprocessing, as in clang. `#pragma once` files are remembered by their real
path. `#line N "file"` sets the presumed line of the next source line (and
the presumed file), which the tokens of the file take from then on.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Optional

from ....diagnostics import SourceLocation
from . import header_tokens
from .files import Source, find_include, read_source, unquote
from .expand import TokenStream
from .macros import PPError, loc_of
from .tokens import PPToken

if TYPE_CHECKING:
    from .directives import Line, Preprocessor

MAX_INCLUDE_DEPTH = 200  # as clang
_MAX_LINE = 4294967295  # clang: larger is an error, up to here a -pedantic warning


def identity(path: str) -> str:
    return os.path.realpath(path)


def _header_name(toks: list[PPToken]) -> Optional[tuple[str, bool, int]]:
    """(name, angled, number of tokens used) when `toks` start with "name" or <name>."""
    if not toks:
        return None
    first = toks[0]
    if first.kind == "string" and first.text.startswith('"'):
        return first.text[1:-1], False, 1
    if first.text != "<":
        return None
    for i in range(1, len(toks)):
        if toks[i].text == ">":
            name = "".join((" " if j > 1 and t.space else "") + t.text for j, t in enumerate(toks[:i]) if j)
            return name, True, i + 1
    return None


def include(pp: Preprocessor, line: Line) -> None:
    """#include and #include_next: push the header onto the files being read."""
    header = _header_name(line.args)
    args = line.args
    if header is None and args:
        args = pp.expand_line(args, line.eol)
        header = _header_name(args)
    if header is None:
        unclosed = bool(args) and args[0].text == "<"
        where = line.eol if unclosed or not args else loc_of(args[0])
        pp.diags.error(where, "expected '>'" if unclosed else 'expected "FILENAME" or <FILENAME>')
        return
    name, angled, used = header
    if len(args) > used:
        pp.diags.warning(loc_of(args[used]), f"extra tokens at end of #{line.name.text} directive")
    if len(pp.files) > MAX_INCLUDE_DEPTH:
        pp.diags.error(loc_of(args[0]), f"#include nested depth {len(pp.files)} exceeds maximum of "
                                        f"{MAX_INCLUDE_DEPTH}")
        return
    if not name:
        pp.diags.error(loc_of(args[0]), "empty filename")
        return
    start = 0
    if line.name.text == "include_next":
        if len(pp.files) > 1:
            start = line.src.found_in + 1
        else:
            pp.diags.warning(loc_of(line.name), "#include_next in primary source file; will search from start "
                                                "of include path")
    found = find_include(name, angled, line.src, pp.folders, start)
    if found is None:
        pp.diags.fatal(loc_of(args[0]), f"'{name}' file not found")
        pp.stopped = True
        return
    path, folder = found
    if identity(path) in pp.once:
        return
    try:
        text = read_source(path)
    except OSError as exc:
        pp.diags.fatal(loc_of(args[0]), f"'{name}': {exc.strerror or exc}")
        pp.stopped = True
        return
    src = Source(path, path, text, given=header_tokens.lexed(text, path))
    src.found_in = folder
    pp.push_source(src)


def has_include(pp: Preprocessor, tok: PPToken, stream: TokenStream, end: PPToken) -> PPToken:
    """`__has_include ( header-name )` in #if (C23 6.10.1): 1 when the header would be found."""
    pending = stream.pending
    lparen = pending.pop() if pending else end
    if lparen.text != "(":
        raise PPError(f"missing '(' after '{tok.text}'", loc_of(lparen))
    first = pending[-1] if pending else end
    operand = []
    if first.text != "<" and first.kind != "string":  # a macro that gives the header name
        first = pp.expander.next(stream)
        pending.append(first)
    while pending and (not operand or operand[0].text == "<" and operand[-1].text != ">"):
        operand.append(pending.pop())
    header = _header_name(operand)
    if header is None:
        raise PPError('expected "FILENAME" or <FILENAME>', loc_of(operand[0] if operand else end))
    rparen = pending.pop() if pending else end
    if rparen.text != ")":
        raise PPError(f"missing ')' after '{tok.text}'", loc_of(rparen), ("to match this '('", loc_of(lparen)))
    start = pp.files[-1].found_in + 1 if tok.text == "__has_include_next" and len(pp.files) > 1 else 0
    found = find_include(header[0], header[1], pp.files[-1], pp.folders, start) if header[0] else None
    return PPToken("number", "1" if found else "0", tok.file, tok.line, tok.col, tok.space)


def line(pp: Preprocessor, directive: Line) -> None:
    """#line digits ["file"], after macro replacement."""
    args = pp.expand_line(directive.args, directive.eol)
    _set_line(pp, directive, args, 2)


def line_marker(pp: Preprocessor, directive: Line) -> None:
    """GNU `# digits "file" flags...` (what preprocessors write): like #line, flags ignored."""
    _set_line(pp, directive, [directive.name, *directive.args], 99)


def _set_line(pp: Preprocessor, directive: Line, args: list[PPToken], allowed: int) -> None:
    number = args[0] if args else None
    if number is not None and number.kind == "number" and not number.text.isdigit():
        bad = next(i for i, c in enumerate(number.text) if not c.isdigit())
        pp.diags.error(SourceLocation(number.file, number.line, number.col + bad),
                       "#line directive requires a simple digit sequence")
        return
    if number is None or number.kind != "number" or int(number.text) > _MAX_LINE:
        pp.diags.error(loc_of(number) if number else directive.eol,
                       "#line directive requires a positive integer argument")
        return
    file = None
    if len(args) > 1:
        if args[1].kind != "string" or not args[1].text.startswith('"'):
            pp.diags.error(loc_of(args[1]), "invalid filename for #line directive")
            return
        file = unquote(args[1].text)
    if len(args) > allowed:
        pp.diags.warning(loc_of(args[allowed]), "extra tokens at end of #line directive")
    src = directive.src
    src.delta = int(number.text) - (directive.eol_physical[0] + 1)
    if file is not None:
        src.presumed = file
