"""Error recovery in the parser: where to resume after a syntax error so that
one mistake gives one diagnostic, the way clang recovers.

- A bad initializer (`int y = <error>, z;`) skips to the next `,` or `;` of its
  declaration; the variable stays declared (with the error type, so its uses
  are not reported again as undeclared identifiers).
- A bad element of a brace initializer skips to the list's own closing `}`,
  found by rescanning from its `{` (an error inside parentheses or a nested
  block, such as a statement expression, must not end the list early).
- A declaration missing its `;` resumes at the next declaration specifier if
  one follows, else skips past the next `;`.

Every function takes the `Parser` as its first argument.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .c_parser import Parser

_OPENERS = {"(": ")", "[": "]", "{": "}"}
_CLOSERS = frozenset(_OPENERS.values())


def _punct(p: Parser) -> str:
    return p.tok.text if p.tok.kind == "punct" else ""


def skip_to(p: Parser, stops: frozenset[str]) -> None:
    """Skip tokens up to (not past) one of `stops` at the current nesting, or an
    unmatched closing bracket, or the end of input."""
    depth = 0
    while p.tok.kind != "eof":
        text = _punct(p)
        if depth == 0 and (text in stops or text in _CLOSERS):
            return
        if text in _OPENERS:
            depth += 1
        elif text in _CLOSERS:
            depth -= 1
        p.ts.advance()


def skip_declarator_rest(p: Parser) -> None:
    """After a bad initializer: on to the `,` or `;` that ends the declarator."""
    skip_to(p, frozenset([",", ";"]))


def skip_init_list(p: Parser, opener_pos: int) -> None:
    """Skip a brace initializer from its `{` (at token position `opener_pos`) past its
    matching `}`; stop before a `;` directly inside it (a `}` was forgotten)."""
    p.ts.reset(opener_pos + 1)
    skip_to(p, frozenset([";"]))
    if _punct(p) == "}":
        p.ts.advance()


def missing_declaration_semi(p: Parser, message: str) -> None:
    """A declaration lacks its `;`: report it after the previous token; resume at a
    following declaration, else skip past the next `;` (clang's recovery)."""
    p.diags.error(p.ts.prev.end, message)
    if p.is_declaration_start():
        return
    skip_to(p, frozenset([";"]))
    p.accept(";")
