"""The preprocessor proper: reading files, directives (C99 6.10), conditional groups.

`Preprocessor.run(text, filename)` reads the file token by token through the
`Expander`, hands every resulting token to the `Writer`, and acts on each
directive as it is met (a `#` that begins a line in the file itself; a `#`
from a macro expansion never is one). Directives inside the arguments of a
macro call are acted on as clang does. A group whose condition is false is
skipped by looking only at the directives in it, so anything may stand there.

Each directive has one method in `_HANDLERS`; `#include` and `#line` live in
`include_line.py`. Diagnostics use clang's words and locations: the
directive's name for most, the offending token for the rest, the end of the
line when something is missing there.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

from ....diagnostics import DiagnosticEngine, SourceLocation
from . import include_line
from .builtin_macros import HAS_INCLUDE, define_builtins
from .expand import ExpansionLimit, Expander, TokenStream, list_stream
from .expr import evaluate
from .feature_checks import Capabilities, define_feature_checks
from .files import Source, normalize
from .macros import Macro, PPError, check_name, loc_of, parse_define
from .output import Writer
from .tokens import PPToken, lex


_DEFINITIONS: dict[str, Macro] = {}  # `define` text -> its macro


@dataclass
class Conditional:
    """One open #if/#ifdef/#ifndef: `taking` while its current group is kept."""

    loc: SourceLocation  # of the directive's name, for "unterminated conditional directive"
    taking: bool
    done: bool  # some group was kept already: later #elif/#else are skipped
    seen_else: bool = False


@dataclass
class Line:
    """A directive: its name token, the tokens after it, and where its line ends."""

    src: Source
    name: PPToken
    args: list[PPToken]
    eol: SourceLocation
    eol_physical: tuple[int, int]
    raw_start: tuple[int, int]  # physical (line, col) of the first token after the name


class Preprocessor:
    """One preprocessing run: the macros, the files being read, the open conditionals, the output."""

    def __init__(self, diags: DiagnosticEngine, folders: list[str], caps: Capabilities = Capabilities()) -> None:
        self.diags = diags
        self.folders = folders  # -I folders, then the bundled headers
        self.macros: dict[str, Macro] = {}
        self.expander = Expander(self.macros, diags)
        self.writer = Writer()
        self.files: list[Source] = []
        self.conds: list[Conditional] = []
        self.once: set[str] = set()
        self.stopped = False  # after a fatal error
        self.counter = 0  # __COUNTER__
        self.in_condition = False  # evaluating #if/#elif: __has_include works
        self.stream = TokenStream(self._more, self._peek, top=True)
        define_builtins(self)
        define_feature_checks(self, caps)

    # -- macros defined before the source -------------------------------------------------

    def define(self, definition: str) -> None:
        """Define `NAME body` or `NAME(params) body`, as `-D` and the predefined macros do.
        Parsed definitions are shared between runs (a macro is never changed once made)."""
        macro = _DEFINITIONS.get(definition)
        if macro is None:
            lexed = lex("#define " + definition, "<built-in>").tokens
            try:
                macro = parse_define(lexed[2:-1], SourceLocation("<built-in>", 1, lexed[-1].col))
            except PPError as err:
                self.diags.error(err.loc, err.message)
                return
            if len(_DEFINITIONS) < 10000:
                _DEFINITIONS[definition] = macro
        self.macros[macro.name] = macro

    def where(self) -> SourceLocation:
        """Where reading has got to (for a diagnostic that has no better place)."""
        if not self.files:
            return SourceLocation("<built-in>", 1, 1)
        src = self.files[-1]
        tok = src.tokens[min(src.pos, len(src.tokens) - 1)]
        return SourceLocation(src.presumed or src.name, src.presumed_line(tok.line), tok.col)

    # -- reading ----------------------------------------------------------------------------

    def run(self, text: str, filename: str) -> str:
        """Preprocess `text` (the file `filename`); the result carries `#line` markers."""
        self.push_source(Source(filename, filename, normalize(text)))
        self.writer.marker(filename, 1)
        expander, stream, writer = self.expander, self.stream, self.writer
        while True:
            try:
                tok = expander.next(stream)
            except ExpansionLimit as err:  # an expansion bomb: a fatal error, as a missing header
                self.diags.fatal(err.loc, err.message)
                self.stopped = True
                break
            kind = tok.kind
            if kind == "eof":
                if self.stopped or not self._end_of_file():
                    break
            elif kind == "pragma":
                self.pragma(tok.text, tok)
            else:
                writer.token(tok)
        return writer.text()

    def push_source(self, src: Source) -> None:
        src.conds = len(self.conds)
        self.files.append(src)
        self.diags.add_source(src.name, src.text)
        for line, col, message in src.lexed.warnings:
            self.diags.warning(SourceLocation(src.name, line, col), message)
        if src.lexed.unterminated_comment is not None:
            line, col = src.lexed.unterminated_comment
            self.diags.error(SourceLocation(src.name, line, col), "unterminated /* comment")

    def _end_of_file(self) -> bool:
        """Close the current file; False when it was the main one."""
        src = self.files.pop()
        while len(self.conds) > src.conds:
            self.diags.error(self.conds.pop().loc, "unterminated conditional directive")
        return bool(self.files)

    def _more(self) -> PPToken:
        """The next token of the text, acting on directives and skipping dead groups."""
        while True:
            src = self.files[-1]
            tok = src.tokens[src.pos]
            if tok.bol:
                if tok.kind == "eof":
                    return tok
                if tok.text == "#" and tok.kind == "punct":
                    self._directive(src)
                    if self.stopped:
                        return self.files[-1].tokens[-1]
                    continue
            src.pos += 1
            if src.lexed.problems and src.pos - 1 in src.lexed.problems:
                self._report(src, src.pos - 1, True)
                if src.pos - 1 in src.lexed.dropped:
                    continue
            if src.delta or src.presumed is not None:
                return src.relocated(tok)
            return tok

    def _report(self, src: Source, index: int, text: bool) -> None:
        """The identifier-character problems of token `index` (`text`: read as a text line)."""
        for line, col, error, message, text_only in src.lexed.problems[index]:
            if text or not text_only:
                loc = SourceLocation(src.presumed or src.name, src.presumed_line(line), col)
                (self.diags.error if error else self.diags.warning)(loc, message)

    def _report_range(self, src: Source, start: int, end: int) -> None:
        """The problems that directives and skipped groups report, of tokens start..end-1."""
        problems = src.lexed.problems
        for index in sorted(i for i in problems if start <= i < end):
            self._report(src, index, False)

    def _peek(self) -> PPToken:
        src = self.files[-1]
        return src.tokens[src.pos]  # a directive's '#' is no '(' either

    # -- directives -------------------------------------------------------------------------

    def _directive(self, src: Source) -> None:
        toks, i = src.tokens, src.pos
        j = i + 1
        while not toks[j].bol:
            j += 1
        src.pos = j
        if src.lexed.problems:
            self._report_range(src, i, j)
        if j == i + 1:
            return  # the null directive
        name, args = toks[i + 1], toks[i + 2:j]
        eol_physical = src.lexed.eol.get(i, (toks[j].line, toks[j].col))
        raw_start = (args[0].line, args[0].col) if args else eol_physical
        if src.delta or src.presumed is not None:
            name, args = src.relocated(name), [src.relocated(tok) for tok in args]
        eol = SourceLocation(src.presumed or src.name, src.presumed_line(eol_physical[0]), eol_physical[1])
        line = Line(src, name, args, eol, eol_physical, raw_start)
        if name.kind == "number":
            include_line.line_marker(self, line)
            return
        handler = _HANDLERS.get(name.text) if name.kind == "id" else None
        if handler is None:
            self.diags.error(loc_of(name), "invalid preprocessing directive")
            return
        if name.text not in ("error", "warning"):  # the C lexer sees text lines, not directives
            for tok in args:
                if tok.kind == "other" and tok.text[0] in "'\"":
                    self.diags.warning(loc_of(tok), f"missing terminating {tok.text[0]} character")
        handler(self, line)

    def _skip_group(self, src: Source) -> None:
        """Move past a group that is not kept, to its #elif, #else or #endif (not consumed)."""
        toks, i, depth = src.tokens, src.pos, 0
        while True:
            tok = toks[i]
            if tok.kind == "eof":
                break
            if tok.bol and tok.text == "#" and not toks[i + 1].bol:
                word = toks[i + 1].text
                if word in ("if", "ifdef", "ifndef"):
                    depth += 1
                elif depth == 0 and word in ("elif", "else", "endif"):
                    break
                elif word == "endif":
                    depth -= 1
            i += 1
        if src.lexed.problems:
            self._report_range(src, src.pos, i)
        src.pos = i

    def _open_conditional(self, line: Line) -> Optional[Conditional]:
        if len(self.conds) <= line.src.conds:
            self.diags.error(loc_of(line.name), f"#{line.name.text} without #if")
            return None
        return self.conds[-1]

    def _extra_tokens(self, line: Line, allowed: int) -> None:
        if len(line.args) > allowed:
            self.diags.warning(loc_of(line.args[allowed]), f"extra tokens at end of #{line.name.text} directive")

    def _if(self, line: Line) -> None:
        taking = bool(self.condition(line.args, line.eol))
        self._push_conditional(line, taking)

    def _ifdef(self, line: Line) -> None:
        try:
            name = check_name(line.args[0] if line.args else None, line.eol)
        except PPError as err:
            self.diags.error(err.loc, err.message)
            self._push_conditional(line, False)
            return
        self._extra_tokens(line, 1)
        self._push_conditional(line, (name in self.macros) == (line.name.text == "ifdef"))

    def _push_conditional(self, line: Line, taking: bool) -> None:
        self.conds.append(Conditional(loc_of(line.name), taking, taking))
        if not taking:
            self._skip_group(line.src)

    def _elif(self, line: Line) -> None:
        cond = self._open_conditional(line)
        if cond is None:
            return
        if cond.seen_else:
            self.diags.error(loc_of(line.name), "#elif after #else")
        if cond.done or cond.seen_else:
            cond.taking = False
        else:
            cond.taking = cond.done = bool(self.condition(line.args, line.eol))
        if not cond.taking:
            self._skip_group(line.src)

    def _else(self, line: Line) -> None:
        self._extra_tokens(line, 0)
        cond = self._open_conditional(line)
        if cond is None:
            return
        if cond.seen_else:
            self.diags.error(loc_of(line.name), "#else after #else")
        cond.seen_else = True
        cond.taking, cond.done = not cond.done, True
        if not cond.taking:
            self._skip_group(line.src)

    def _endif(self, line: Line) -> None:
        self._extra_tokens(line, 0)
        if self._open_conditional(line) is not None:
            self.conds.pop()

    def condition(self, toks: list[PPToken], eol: SourceLocation) -> Optional[bool]:
        """A #if/#elif line's truth (None after an error): macros replaced, `defined` answered."""
        end = PPToken("eof", "", eol.file, eol.line, eol.col)
        stream = list_stream(toks, end)
        out = []
        self.in_condition = True
        try:
            with self.expander.scope():
                while True:
                    tok = self.expander.next(stream)
                    if tok is end:
                        break
                    if tok.text == "defined":
                        tok = self._defined(tok, stream, end)
                    elif tok.text in HAS_INCLUDE and tok.kind == "id":
                        tok = include_line.has_include(self, tok, stream, end)
                    out.append(tok)
        except PPError as err:
            diag = self.diags.error(err.loc, err.message)
            if err.note is not None:
                self.diags.note(diag, err.note[1], err.note[0])
            return None
        finally:
            self.in_condition = False
        return evaluate(out, eol, self.diags)

    def _defined(self, tok: PPToken, stream: TokenStream, end: PPToken) -> PPToken:
        """`defined X` or `defined ( X )` as the number 1 or 0."""
        makers = [self.macros.get(name) for name in tok.hideset]
        if any(m is not None and m.params is None for m in makers):  # clang: from function-like is -pedantic
            self.diags.warning(loc_of(tok), "macro expansion producing 'defined' has undefined behavior")
        pending = stream.pending
        nxt = pending.pop() if pending else end
        paren = nxt if nxt.text == "(" else None
        if paren is not None:
            nxt = pending.pop() if pending else end
        name = check_name(None if nxt is end else nxt, loc_of(end))
        if paren is not None:
            close = pending.pop() if pending else end
            if close.text != ")":
                raise PPError("missing ')' after 'defined'", loc_of(close), ("to match this '('", loc_of(paren)))
        value = "1" if name in self.macros else "0"
        return PPToken("number", value, tok.file, tok.line, tok.col, tok.space)

    def expand_line(self, toks: list[PPToken], eol: SourceLocation) -> list[PPToken]:
        """The tokens of a #include or #line after macro replacement."""
        end = PPToken("eof", "", eol.file, eol.line, eol.col)
        stream = list_stream(toks, end)
        out = []
        with self.expander.scope():
            while (tok := self.expander.next(stream)) is not end:
                out.append(tok)
        return out

    def _define(self, line: Line) -> None:
        try:
            macro = parse_define(line.args, line.eol)
        except PPError as err:
            self.diags.error(err.loc, err.message)
            return
        for message, loc in macro.warnings:
            self.diags.warning(loc, message)
        old = self.macros.get(macro.name)
        if old is not None and (old.builtin is not None or old.reads is not None):
            self.diags.warning(macro.loc, "redefining builtin macro")
        elif old is not None and not old.same_as(macro):
            diag = self.diags.warning(macro.loc, f"'{macro.name}' macro redefined")
            self.diags.note(diag, old.loc, "previous definition is here")
        self.macros[macro.name] = macro

    def _undef(self, line: Line) -> None:
        try:
            name = check_name(line.args[0] if line.args else None, line.eol)
        except PPError as err:
            self.diags.error(err.loc, err.message)
            return
        self._extra_tokens(line, 1)
        old = self.macros.pop(name, None)
        if old is not None and (old.builtin is not None or old.reads is not None):
            self.diags.warning(loc_of(line.args[0]), "undefining builtin macro")

    def _message(self, line: Line) -> None:
        text = line.src.raw_text(line.raw_start, line.eol_physical).lstrip() if line.args else ""
        if line.name.text == "error":
            self.diags.error(loc_of(line.name), text)
        else:
            self.diags.warning(loc_of(line.name), text)

    def _pragma_directive(self, line: Line) -> None:
        once = len(line.args) == 1 and line.args[0].text == "once"
        self.pragma(_spell(line.args), line.args[0] if once else line.name)

    def pragma(self, text: str, where: PPToken) -> None:
        """A pragma (directive or `_Pragma`): `once` is ours, the rest go to the output."""
        if text.split() == ["once"]:
            if len(self.files) == 1:
                self.diags.warning(loc_of(where), "#pragma once in main file")
            self.once.add(include_line.identity(self.files[-1].path))
            return
        self.writer.directive(("#pragma " + text).rstrip(), where.file, where.line)

    def _ident(self, line: Line) -> None:
        self.writer.directive(f"#{line.name.text} {_spell(line.args)}", line.name.file, line.name.line)


def _spell(toks: list[PPToken]) -> str:
    return "".join((" " if i and t.space else "") + t.text for i, t in enumerate(toks))


_HANDLERS: dict[str, Callable[[Preprocessor, Line], None]] = {
    "if": Preprocessor._if, "ifdef": Preprocessor._ifdef, "ifndef": Preprocessor._ifdef,
    "elif": Preprocessor._elif, "else": Preprocessor._else, "endif": Preprocessor._endif,
    "define": Preprocessor._define, "undef": Preprocessor._undef,
    "include": include_line.include, "include_next": include_line.include, "line": include_line.line,
    "error": Preprocessor._message, "warning": Preprocessor._message,
    "pragma": Preprocessor._pragma_directive, "ident": Preprocessor._ident, "sccs": Preprocessor._ident,
}
