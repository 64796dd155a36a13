"""Macro expansion (C99 6.10.3.1-6.10.3.4), with macros disabled while they are replaced, as clang does.

A macro's replacement is pushed back onto the input and rescanned; while
any of its tokens are still to be read, the macro is disabled (an entry of
`Expander.active`). A name of a disabled macro met then is painted
(`PPToken.painted`) and never replaced again, even in a later context where
it otherwise would be (6.10.3.4p2). The macro is enabled again when reading
goes past its last token, so a function-like name at the end of a
replacement takes its `(` from the text after the invocation, and a name
that comes out of an argument's expansion after the macro that made it has
finished is replaced again (Prosser's hideset algorithm keeps it painted;
clang, GCC and Wave do not: `#define f() g`, `#define g f`, `#define s(x) x`,
`s(s(g ()))`). As in clang, a function-like macro is disabled only after its
arguments have been expanded, and a name read as an argument while its macro
is disabled is painted then. Tokens still carry Prosser's hidesets, which
only diagnostics read (where a `defined` came from).

Arguments are macro-expanded on their own before substitution (6.10.3.1),
except where they are operands of `#` or `##`. `##` works on placemarkers
for empty arguments; `, ## __VA_ARGS__` drops the comma when the variable
arguments are left out (GNU, as clang); `__VA_OPT__` is C2x's.

Where a produced token is placed (file, line, column) follows clang's
`getFileLoc`: a token of a replacement list goes where the macro name was
(itself placed by this rule), a token of an argument stays where it was
written. Diagnostics and the output both use these places. `__LINE__` inside a
replacement list is the line where that macro call ends (its closing
parenthesis, or the name of an object-like macro; followed back through the
calls that made it when that token came from a replacement itself), as clang
does; written in the text or in an argument it is the line it is written on.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from typing import Callable, Iterator, Optional

from ....diagnostics import DiagnosticEngine, SourceLocation
from .macros import Macro, PPError, loc_of, paste, stringize
from .tokens import PPToken

PLACEMARKER = PPToken("placemarker", "", "", 0, 0)
MAX_EXPANDED_TOKENS = 1 << 23  # replacement tokens in one translation unit (an expansion bomb stops here;
# the most a corpus kernel needs is 2.4 million: pocl's ML_BSSN_CL_RHS2.cl)


class ExpansionLimit(Exception):
    """Macro replacement produced more than MAX_EXPANDED_TOKENS tokens: a fatal error
    (not a PPError: no handler of a single construct may take it for its own)."""

    def __init__(self, message: str, loc: SourceLocation) -> None:
        super().__init__(message)
        self.message = message
        self.loc = loc


class TokenStream:
    """Tokens still to be scanned: `pending` (a stack, next token last) in front of
    what `more()` reads from a file or list. `peek()` looks at the next token
    of the source without acting on a directive (for the `(` after a macro name)."""

    __slots__ = ("pending", "more", "peek", "top")

    def __init__(self, more: Callable[[], PPToken], peek: Callable[[], PPToken], top: bool = False) -> None:
        self.pending: list[PPToken] = []
        self.more = more
        self.peek = peek
        self.top = top  # the text itself (not an argument or a directive): _Pragma acts here


def list_stream(tokens: list[PPToken], end: PPToken) -> TokenStream:
    """A stream over `tokens`, then `end` forever."""
    stream = TokenStream(lambda: end, lambda: end)
    stream.pending = tokens[::-1]
    return stream


class _Paste:
    """A `##` operator of a replacement list (an argument's `##` token is no operator)."""

    __slots__ = ("tok",)

    def __init__(self, tok: PPToken) -> None:
        self.tok = tok


class Expander:
    """Expands macros from a `TokenStream`; `macros` is shared with the directives."""

    def __init__(self, macros: dict[str, Macro], diags: DiagnosticEngine) -> None:
        self.macros = macros
        self.diags = diags
        self.depth = 0  # > 0 while expanding arguments
        self.budget = MAX_EXPANDED_TOKENS  # replacement tokens still allowed
        # the replacements being read: (macro, stream, how many tokens the stream held below them)
        self.active: list[tuple[str, TokenStream, int]] = []
        self.disabled: set[str] = set()

    def _retire(self, stream: TokenStream) -> None:
        """Enable again each macro of `stream` whose replacement has been read to its end."""
        active, pending = self.active, stream.pending
        while active and active[-1][1] is stream and len(pending) <= active[-1][2]:
            self.disabled.discard(active.pop()[0])

    def _replace(self, name: str, stream: TokenStream, replacement: list[PPToken]) -> None:
        """Push `replacement` to be rescanned, with macro `name` disabled while it is read."""
        pending = stream.pending
        self.active.append((name, stream, len(pending)))
        self.disabled.add(name)
        pending.extend(reversed(replacement))

    @contextmanager
    def scope(self) -> Iterator[None]:
        """Around the reading of a list of tokens (an argument, a directive's line): the macros
        it disables are enabled at the end, even when an error leaves it half read."""
        mark = len(self.active)
        try:
            yield
        finally:
            while len(self.active) > mark:
                self.disabled.discard(self.active.pop()[0])

    def _paint(self, tok: PPToken) -> PPToken:
        out = tok.copy()
        out.painted = True
        return out

    def next(self, stream: TokenStream) -> PPToken:
        """The next token of `stream` after macro replacement; "eof" at the end."""
        pending, macros = stream.pending, self.macros
        while True:
            if self.active:
                self._retire(stream)
            tok = pending.pop() if pending else stream.more()
            if tok.kind != "id":
                return tok
            macro = macros.get(tok.text)
            if macro is None:
                if tok.text == "_Pragma" and stream.top and self.depth == 0:
                    pragma = self._pragma_operator(tok, stream)
                    if pragma is None:
                        continue
                    return pragma
                return tok
            if tok.painted:
                return tok
            if tok.text in self.disabled:
                return self._paint(tok)
            if macro.builtin is not None:
                return macro.builtin(tok)
            if macro.reads is not None:
                value = macro.reads(tok, stream)
                if value is None:
                    continue
                return value
            if macro.params is None:
                hideset = tok.hideset | {macro.name}
                body = _Substitution(self, macro, tok, tok, [], False).substitute(macro.body) if macro.pastes \
                    else [t.placed_copy(tok) for t in macro.body]
                self._spend(len(body), tok)
                self._replace(macro.name, stream, self._finish(body, hideset, tok.space, tok))
                continue
            if not self._lparen_follows(stream):
                return tok
            replacement = self._invoke(macro, tok, stream)
            if replacement is not None:
                self._spend(len(replacement), tok)
                self._replace(macro.name, stream, replacement)

    def _spend(self, count: int, name: PPToken) -> None:
        """Count `count` replacement tokens of the macro `name`; ExpansionLimit past the budget
        (`#define A1 (A0 + A0)` ... `A40` would expand to 2**40 tokens)."""
        self.budget -= count
        if self.budget < 0:
            raise ExpansionLimit(f"macro expansion produced more than {MAX_EXPANDED_TOKENS} tokens; "
                                 f"stopping", loc_of(name))

    def expand_all(self, tokens: list[PPToken], end: PPToken) -> list[PPToken]:
        """`tokens` fully macro-replaced, as an argument is before substitution."""
        macros = self.macros
        if not any(t.text in macros and t.kind == "id" for t in tokens):
            return list(tokens)  # nothing to replace (most arguments): `next` would return each token
        stream = list_stream(tokens, end)
        out = []
        self.depth += 1
        try:
            with self.scope():
                while True:
                    tok = self.next(stream)
                    if tok is end:
                        return out
                    out.append(tok)
        finally:
            self.depth -= 1

    def _lparen_follows(self, stream: TokenStream) -> bool:
        """Whether a `(` comes next, maybe after the end of the replacements being read."""
        nxt = stream.pending[-1] if stream.pending else stream.peek()
        return nxt.text == "(" and nxt.kind == "punct"

    def _finish(self, toks: list[PPToken], hideset: frozenset[str], space: bool, end: PPToken) -> list[PPToken]:
        """Give fresh replacement tokens their hideset and the line where the call ends (`end`,
        the name or the ')': what __LINE__ in them will say); the first gets the name's spacing."""
        eline = end.line if end.src else end.eline
        for tok in toks:
            tok.hideset = hideset if not tok.hideset else tok.hideset | hideset
            tok.src = False
            tok.eline = eline
            if tok.bol:
                tok.space, tok.bol = True, False
        if toks:
            toks[0].space = space
        return toks

    def _invoke(self, macro: Macro, name: PPToken, stream: TokenStream) -> Optional[list[PPToken]]:
        """Read the arguments of a function-like macro and return its replacement."""
        try:
            args, starts, rparen = self._arguments(name, stream,
                                                   len(macro.params or []) - 1 if macro.variadic else -1)
            args, omitted = self._counted(macro, args, starts, rparen)
        except PPError as err:  # clang drops the call; after a wrong count it keeps the name
            diag = self.diags.error(err.loc, err.message)
            self.diags.note(diag, macro.loc, f"macro '{macro.name}' defined here")
            if err.message.startswith("unterminated"):
                return None
            kept = self._paint(name)
            kept.hideset = name.hideset | {macro.name}
            return [kept]
        hideset = (name.hideset & rparen.hideset) | {macro.name}
        context = _Substitution(self, macro, name, rparen, args, omitted)
        return self._finish(context.substitute(macro.body), hideset, name.space, rparen)

    def _arguments(self, name: PPToken, stream: TokenStream,
                   last: int) -> tuple[list[list[PPToken]], list[PPToken], PPToken]:
        """The arguments, split at top-level commas except from argument `last` on (`...`),
        the '(' or ',' before each, and the ')'. Reading past the end of a replacement
        enables its macro again; a name of a macro still disabled is painted."""
        pending = stream.pending
        self._retire(stream)
        starts = [pending.pop() if pending else stream.more()]  # the '('
        args: list[list[PPToken]] = [[]]
        depth = 0
        while True:
            self._retire(stream)
            tok = pending.pop() if pending else stream.more()
            text = tok.text
            if tok.kind == "id" and text in self.disabled and not tok.painted:
                tok = self._paint(tok)
            if tok.kind == "eof":
                pending.append(tok)
                raise PPError("unterminated function-like macro invocation", loc_of(name))
            if text == "(":
                depth += 1
            elif text == ")":
                if depth == 0:
                    break
                depth -= 1
            elif text == "," and depth == 0 and len(args) - 1 != last:
                args.append([])
                starts.append(tok)
                continue
            args[-1].append(tok)
        return args, starts, tok

    def _counted(self, macro: Macro, args: list[list[PPToken]], starts: list[PPToken],
                 rparen: PPToken) -> tuple[list[list[PPToken]], bool]:
        """The arguments checked against the parameters, and whether `...` got none at all."""
        wanted = len(macro.params or [])
        if wanted == 0 and args == [[]]:
            return [], False
        if len(args) > wanted:  # clang points at the first extra argument, or what opens it
            extra = args[wanted]
            raise PPError("too many arguments provided to function-like macro invocation",
                          loc_of(extra[0] if extra else starts[wanted]))
        if len(args) == wanted - 1 and macro.variadic:
            return args + [[]], True
        if len(args) < wanted:
            raise PPError("too few arguments provided to function-like macro invocation", loc_of(rparen))
        return args, False

    def _pragma_operator(self, tok: PPToken, stream: TokenStream) -> Optional[PPToken]:
        """`_Pragma ( string-literal )` (C99 6.10.9): a "pragma" token holding the directive's text.
        The operand is macro-expanded and a malformed one is skipped as clang does."""
        lparen = self.next(stream)
        string = self.next(stream) if lparen.text == "(" else lparen
        rparen = self.next(stream) if string.kind == "string" and string is not lparen else string
        if rparen.text == ")" and string.kind == "string" and lparen.text == "(":
            body = string.text
        elif lparen.text != "(" or string.kind == "string":
            stream.pending.append(rparen)  # no '(' or no ')': the token read stays
            return self._pragma_error(tok)
        else:  # no string: skip to the ')' of this line
            bad = string
            while bad.text != ")" and bad.kind != "eof" and not (bad.bol and bad is not string):
                bad = self.next(stream)
            if bad.text != ")":
                stream.pending.append(bad)
            return self._pragma_error(tok)
        body = re.sub(r'\\([\\"])', r"\1", body[body.index('"') + 1:-1])  # C99 6.10.9: destringize
        return PPToken("pragma", body, tok.file, tok.line, tok.col, src=tok.src)

    def _pragma_error(self, tok: PPToken) -> None:
        self.diags.error(loc_of(tok), "_Pragma takes a parenthesized string literal")


class _Substitution:
    """Argument substitution (6.10.3.1) then `##` (6.10.3.3) for one invocation."""

    def __init__(self, expander: Expander, macro: Macro, name: PPToken, end: PPToken,
                 args: list[list[PPToken]], omitted: bool) -> None:
        self.expander = expander
        self.macro = macro
        self.name = name  # where the replacement's own tokens are placed
        self.end = end  # the last token of the call: the name, or the ')'
        self.args = args
        self.index = {p: i for i, p in enumerate(macro.params or [])}
        self.omitted = omitted  # the variable arguments were left out entirely
        self.expanded: dict[int, list[PPToken]] = {}

    def expanded_arg(self, i: int) -> list[PPToken]:
        if i not in self.expanded:
            end = PPToken("eof", "", "", 0, 0)
            self.expanded[i] = self.expander.expand_all(self.args[i], end)
        return self.expanded[i]

    def substitute(self, body: list[PPToken]) -> list[PPToken]:
        items: list[object] = []
        pastes = False
        i, n = 0, len(body)
        while i < n:
            tok = body[i]
            text = tok.text
            if text == "##" and tok.kind == "punct":
                items.append(_Paste(tok))
                pastes = True
            elif text == "#" and tok.kind == "punct" and i + 1 < n:
                i = self._stringize(body, i, items)
                continue
            elif text == "__VA_OPT__" and self.macro.params is not None:
                inner, i = self._va_opt(body, i)
                items.extend(inner or [PLACEMARKER])
                continue
            elif text in self.index:
                self._parameter(tok, body, i, items)
            else:
                items.append(tok.placed_copy(self.name))
            i += 1
        if not pastes:  # no `##` operator (most macros): only the placemarkers to drop
            return [t for t in items if t is not PLACEMARKER]  # type: ignore[misc]
        return _paste_all(items, self.expander, self.macro.name, self.name)

    def _parameter(self, tok: PPToken, body: list[PPToken], i: int, items: list[object]) -> None:
        idx = self.index[tok.text]
        after_paste = bool(items) and isinstance(items[-1], _Paste)
        before_paste = i + 1 < len(body) and body[i + 1].text == "##"
        if after_paste and self.macro.variadic and idx == len(self.index) - 1 and len(items) >= 2 \
                and getattr(items[-2], "text", None) == ",":
            items.pop()  # GNU `, ## __VA_ARGS__`: no pasting; no comma when `...` got nothing
            if self.omitted:
                items.pop()
            toks = [t.copy() for t in self.args[idx]]
        elif after_paste or before_paste:
            toks = [t.copy() for t in self.args[idx]] or [PLACEMARKER]
        else:
            toks = [t.copy() for t in self.expanded_arg(idx)]
        if toks and toks[0] is not PLACEMARKER:
            toks[0].space, toks[0].bol = tok.space, False
        items.extend(toks)

    def _stringize(self, body: list[PPToken], i: int, items: list[object]) -> int:
        operand = body[i + 1]
        if operand.text == "__VA_OPT__" and self.macro.variadic:
            inner, end = self._va_opt(body, i + 1)
        elif operand.text in self.index:
            inner, end = self.args[self.index[operand.text]], i + 2
        else:  # an object-like macro's '#', or one checked at #define
            items.append(_at(body[i], self.name))
            return i + 1
        string, dropped = stringize(inner, _at(body[i], self.name))
        if dropped is not None:
            self.expander.diags.warning(dropped, "invalid string literal, ignoring final '\\'")
        items.append(string)
        return end

    def _va_opt(self, body: list[PPToken], i: int) -> tuple[list[PPToken], int]:
        """`__VA_OPT__ ( tokens )` at body[i]: the tokens substituted, or none without
        variable arguments; and the index after the closing parenthesis."""
        depth, j = 0, i + 1
        while j < len(body):
            depth += {"(": 1, ")": -1}.get(body[j].text, 0)
            if depth == 0:
                break
            j += 1
        if not self.macro.variadic or not self.expanded_arg(len(self.index) - 1):
            return [], j + 1  # (clang drops it from a function-like macro that is not variadic)
        return self.substitute(body[i + 2:j]), j + 1


def _at(tok: PPToken, where: PPToken) -> PPToken:
    """A copy of a replacement-list token, placed at the macro name `where`."""
    return tok.placed_copy(where)


def _paste_all(items: list[object], expander: Expander, macro: str, name: PPToken) -> list[PPToken]:
    """Apply the `##` operators left to right, then drop the placemarkers. The operand
    right of a `##` is a token even when it is `##` (`a ## ## b` pastes `a` and `##`)."""
    out: list[PPToken] = []
    i, n = 0, len(items)
    while i < n:
        item = items[i]
        if isinstance(item, _Paste):
            rhs = items[i + 1] if i + 1 < n else PLACEMARKER
            if isinstance(rhs, _Paste):
                rhs = _at(rhs.tok, name)
            lhs = out.pop() if out else PLACEMARKER
            out.extend(_paste_pair(lhs, rhs, item.tok, expander, macro, name))  # type: ignore[arg-type]
            i += 2
            continue
        out.append(item)  # type: ignore[arg-type]
        i += 1
    return [t for t in out if t is not PLACEMARKER]


def _paste_pair(lhs: PPToken, rhs: PPToken, op: PPToken, expander: Expander, macro: str,
                name: PPToken) -> list[PPToken]:
    if lhs is PLACEMARKER:
        return [rhs]
    if rhs is PLACEMARKER:
        return [lhs]
    joined = paste(lhs, rhs)
    if joined is not None:
        joined.file, joined.line, joined.col = name.file, name.line, name.col
        return [joined]
    diag = expander.diags.error(loc_of(name),
                                f"pasting formed '{lhs.text}{rhs.text}', an invalid preprocessing token")
    expander.diags.note(diag, loc_of(op), f"expanded from macro '{macro}'")
    return [lhs, rhs]

