"""Macro definitions (C99 6.10.3): `#define` parsing, redefinition checks, `#` and `##`.

`parse_define(tokens, eol)` turns the tokens after `#define` into a `Macro`,
or raises `PPError` with clang's message and location. `Macro.same_as` is the
"identical redefinition" rule of 6.10.3p2. `stringize` is the `#` operator
(6.10.3.2) and `paste` the `##` operator (6.10.3.3); both work on spellings.
Expansion itself lives in `expand.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from ....diagnostics import SourceLocation
from .tokens import DIGRAPH_SPELLING, EMPTY, PPToken, lex_one


class PPError(Exception):
    """A preprocessing error at a token: the caller reports it and drops the construct."""

    def __init__(self, message: str, loc: SourceLocation,
                 note: Optional[tuple[str, SourceLocation]] = None) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc
        self.note = note


def loc_of(tok: PPToken) -> SourceLocation:
    return SourceLocation(tok.file, tok.line, tok.col)


@dataclass
class Macro:
    """A macro: object-like when `params` is None. `variadic` makes the last
    parameter (`__VA_ARGS__` or a GNU named one) take the remaining arguments.
    `builtin` computes the body of `__LINE__` and its kin at each use; `reads`,
    that of a feature check (`__has_builtin(x)`), which reads its operand from the
    token stream it is given (None: nothing is left of the check)."""

    name: str
    params: Optional[list[str]]
    body: list[PPToken]
    variadic: bool = False
    loc: SourceLocation = field(default_factory=lambda: SourceLocation("<built-in>", 1, 9))
    builtin: Optional[Callable[[PPToken], PPToken]] = None
    reads: Optional[Callable[[PPToken, Any], Optional[PPToken]]] = None
    pastes: bool = False  # the body has a `##` operator
    warnings: list[tuple[str, SourceLocation]] = field(default_factory=list)  # found by parse_define

    def __post_init__(self) -> None:
        self.pastes = any(t.text == "##" and t.kind == "punct" for t in self.body)

    def same_as(self, other: Macro) -> bool:
        """Identical definitions (6.10.3p2): same parameters, same tokens, same white-space separation."""
        if self.params != other.params or self.variadic != other.variadic or len(self.body) != len(other.body):
            return False
        return all(a.text == b.text and (i == 0 or a.space == b.space)
                   for i, (a, b) in enumerate(zip(self.body, other.body)))


def _parse_params(toks: list[PPToken], eol: SourceLocation) -> tuple[list[str], bool, int]:
    """The parameter list after `NAME(`: (names, variadic, index of the first body token)."""
    params: list[str] = []
    i = 2
    while True:
        tok = toks[i] if i < len(toks) else None
        if tok is not None and tok.text == ")":
            if not params:
                return params, False, i + 1
            raise PPError("expected identifier in macro parameter list", loc_of(tok))
        if tok is None:
            raise PPError("missing ')' in macro parameter list", eol)
        if tok.text == "...":
            params.append("__VA_ARGS__")
            nxt = toks[i + 1] if i + 1 < len(toks) else None
            if nxt is None or nxt.text != ")":
                raise PPError("missing ')' in macro parameter list", loc_of(nxt) if nxt else eol)
            return params, True, i + 2
        if tok.kind != "id":
            raise PPError("invalid token in macro parameter list", loc_of(tok))
        if tok.text in params:
            raise PPError(f"duplicate macro parameter name '{tok.text}'", loc_of(tok))
        params.append(tok.text)
        nxt = toks[i + 1] if i + 1 < len(toks) else None
        if nxt is not None and nxt.text == "...":  # GNU named variadic parameter: `args...`
            after = toks[i + 2] if i + 2 < len(toks) else None
            if after is None or after.text != ")":
                raise PPError("missing ')' in macro parameter list", loc_of(after) if after else eol)
            return params, True, i + 3
        if nxt is not None and nxt.text == ")":
            return params, False, i + 2
        if nxt is None or nxt.text != ",":
            raise PPError("expected comma in macro parameter list", loc_of(nxt) if nxt else eol)
        i += 2


def check_name(tok: Optional[PPToken], eol: SourceLocation) -> str:
    """The macro name of a #define, #undef, #ifdef or `defined`, checked as clang does."""
    if tok is None:
        raise PPError("macro name missing", eol)
    if tok.kind != "id":
        raise PPError("macro name must be an identifier", loc_of(tok))
    if tok.text == "defined":
        raise PPError("'defined' cannot be used as a macro name", loc_of(tok))
    return tok.text


def parse_define(toks: list[PPToken], eol: SourceLocation) -> Macro:
    """A `Macro` from the tokens that follow `#define` on its line."""
    name = check_name(toks[0] if toks else None, eol)
    params: Optional[list[str]] = None
    variadic, start = False, 1
    if len(toks) > 1 and toks[1].text == "(" and not toks[1].space:
        params, variadic, start = _parse_params(toks, eol)
    body = [t.copy() for t in toks[start:]]
    if body:
        body[0].space = False
    macro = Macro(name, params, body, variadic, loc_of(toks[0]))
    _check_body(macro, eol)
    return macro


def _check_body(macro: Macro, eol: SourceLocation) -> None:
    """The constraints on a replacement list (6.10.3.2p1, 6.10.3.3p1, C2x's __VA_OPT__)."""
    body, params = macro.body, macro.params
    if body and body[0].text == "##":
        raise PPError("'##' cannot appear at start of macro expansion", loc_of(body[0]))
    if body and body[-1].text == "##":
        raise PPError("'##' cannot appear at end of macro expansion", loc_of(body[-1]))
    for i, tok in enumerate(body):
        nxt = body[i + 1] if i + 1 < len(body) else None
        if tok.text == "#" and params is not None:
            if nxt is None or (nxt.text not in params and not (macro.variadic and nxt.text == "__VA_OPT__")):
                raise PPError("'#' is not followed by a macro parameter", loc_of(nxt) if nxt else eol)
        elif tok.text == "__VA_OPT__" and not macro.variadic:
            macro.warnings.append(("__VA_OPT__ can only appear in the expansion of a variadic macro", loc_of(tok)))
        elif tok.text == "__VA_OPT__":
            _check_va_opt(body, i, eol)


def _check_va_opt(body: list[PPToken], i: int, eol: SourceLocation) -> None:
    """`__VA_OPT__` at body[i] is followed by a balanced parenthesized group without another one."""
    if i + 1 >= len(body) or body[i + 1].text != "(":
        raise PPError("missing '(' following __VA_OPT__", loc_of(body[i + 1]) if i + 1 < len(body) else eol)
    depth = 0
    for tok in body[i + 1:]:
        depth += {"(": 1, ")": -1}.get(tok.text, 0)
        if tok.text == "__VA_OPT__":
            raise PPError("__VA_OPT__ cannot be nested within its own replacement tokens", loc_of(tok))
        if depth == 0:
            return
    raise PPError("missing ')' after identifier", eol)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def stringize(toks: list[PPToken], loc: PPToken) -> tuple[PPToken, Optional[SourceLocation]]:
    """`#` applied to an argument: its spelling as a string literal (6.10.3.2p2), and where
    a final backslash had to be dropped to make it one (clang warns there)."""
    parts = []
    for i, tok in enumerate(toks):
        if i and (tok.space or tok.bol):
            parts.append(" ")
        if tok.kind in ("string", "char"):
            parts.append(_escape(tok.text))
        else:
            parts.append(_spelling(tok))
    text = "".join(parts)
    dropped = None
    if (len(text) - len(text.rstrip("\\"))) % 2:
        text, dropped = text[:-1], loc_of(toks[-1])
    return PPToken("string", '"' + text + '"', loc.file, loc.line, loc.col, loc.space), dropped


def paste(lhs: PPToken, rhs: PPToken) -> Optional[PPToken]:
    """`##`: the token spelt by `lhs` then `rhs`, or None when that is not one pp-token."""
    spelling = _spelling(lhs) + _spelling(rhs)
    lexed = lex_one(spelling)
    if lexed is None:
        return None
    out = PPToken(lexed[0], lexed[1], lhs.file, lhs.line, lhs.col, lhs.space, False, EMPTY, False)  # a new token
    out.digraph = lexed[1] != spelling and lexed[0] == "punct"
    if lexed[0] == "id" and lexed[1] != spelling:
        out.spelled = spelling
    return out


def _spelling(tok: PPToken) -> str:
    if tok.spelled is not None:
        return tok.spelled
    return DIGRAPH_SPELLING[tok.text] if tok.digraph else tok.text
