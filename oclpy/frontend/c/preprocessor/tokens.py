"""Preprocessing tokens (C99 6.4) and the lexer of translation phases 1 to 3.

`lex(text)` replaces trigraphs (C99 5.2.1.1: `??=` is `#`, `??/` a backslash,
... as clang does for OpenCL C, with its warning outside comments), splices
lines (a backslash before a newline, spaces between them
allowed as clang allows them), replaces each comment by white space and cuts
the text into pp-tokens. Every token keeps the physical line and column where
it starts, whether white space precedes it (`space`) and whether it is the
first token of a line (`bol`, which is what makes a `#` a directive). Digraphs
are spelled as the punctuator they stand for, and marked `digraph`: `#` makes
a string of their own spelling (`#x` of `<:` is "<:", as in clang). A quote that closes nowhere on
its line starts an "other" token running to the end of the line (the C lexer
reports it; a skipped group may hold any text). The file ends with an "eof"
token, which also begins a line so that it ends the last directive.

`Lexed.eol` maps the index of each directive's `#` token to the physical
location of the newline that ends the directive (a block comment or a line
splice can carry a directive over several lines): `#line` counts from there
and "macro name missing" points there, as clang does.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from typing import Optional

from ..identifier_chars import IDENTIFIER, scan

EMPTY: frozenset[str] = frozenset()

PUNCTUATORS = sorted("""
    %:%: ... <<= >>= -> ++ -- << >> <= >= == != && || *= /= %= += -= &= ^= |= ## <: :> <% %> %:
    [ ] ( ) { } . & * + - ~ ! / % < > ^ | ? : ; = , #
""".split(), key=len, reverse=True)
DIGRAPHS = {"<:": "[", ":>": "]", "<%": "{", "%>": "}", "%:": "#", "%:%:": "##"}
DIGRAPH_SPELLING = {punct: digraph for digraph, punct in DIGRAPHS.items()}

_ALTERNATIVES = "|".join([
    r"(?P<nl>\n)",
    r"(?P<comment>//[^\n]*|/\*(?s:.)*?\*/)",
    r"(?P<badcomment>/\*)",
    r"(?P<number>\.?[0-9](?:[eEpP][+-]|[0-9A-Za-z_.$])*)",
    r"(?P<char>L?'(?:[^'\\\n]|\\.)*')",
    r"(?P<string>L?\"(?:[^\"\\\n]|\\.)*\")",
    r"(?P<id>" + IDENTIFIER + ")",
    r"(?P<punct>" + "|".join(re.escape(p) for p in PUNCTUATORS) + ")",
    r"(?P<other>['\"][^\n]*|.)",
])
_SCAN = re.compile(r"[ \t\f\v\r]*(?:" + _ALTERNATIVES + ")")  # white space, then one token
_TOKEN = re.compile(_ALTERNATIVES)
_SPLICE = re.compile(r"\\[ \t\f\v]*\n")
TRIGRAPHS = {"=": "#", "(": "[", "/": "\\", ")": "]", "'": "^", "<": "{", "!": "|", ">": "}", "-": "~"}
_TRIGRAPH = re.compile(r"\?\?[=(/)'<!>-]")
_SPLIT_COMMENT_END = re.compile(r"\*\\[ \t\f\v]*\n/")


class PPToken:
    """One pp-token. `hideset` holds the macros whose expansion made it (Prosser's
    hidesets; diagnostics ask it where a token came from); `painted`: a macro
    name found while its macro was being replaced, never to be replaced again
    (C99 6.10.3.4p2, see expand.py); `src` is False for tokens made by a
    macro expansion, whose `file`/`line`/`col` are then where expand.py places
    them, and whose `eline` is what `__LINE__` among them says. `digraph`: the
    punctuator was written as its digraph. An identifier's `text` is its name,
    UCNs decoded (`\\u00e9` is `é`); `spelled` is then how it was written (`#` and
    `##` work on spellings), else None."""

    __slots__ = ("kind", "text", "file", "line", "col", "space", "bol", "hideset", "src", "eline", "digraph",
                 "painted", "spelled")

    def __init__(self, kind: str, text: str, file: str, line: int, col: int, space: bool = False,
                 bol: bool = False, hideset: frozenset[str] = EMPTY, src: bool = True) -> None:
        self.kind = kind  # "id", "number", "char", "string", "punct", "other", "eof"
        self.text = text
        self.file = file
        self.line = line
        self.col = col
        self.space = space
        self.bol = bol
        self.hideset = hideset
        self.src = src
        self.eline = line  # a replacement token: the line where its macro call ends (for __LINE__)
        self.digraph = False
        self.painted = False
        self.spelled: Optional[str] = None

    def __repr__(self) -> str:
        return f"PPToken({self.kind}, {self.text!r}, {self.file}:{self.line}:{self.col})"

    def copy(self) -> PPToken:
        # Macro expansion copies every token it substitutes: slots are stored
        # directly rather than through __init__ (a third faster).
        out = _new_token(PPToken)
        out.kind, out.text, out.file, out.line, out.col = self.kind, self.text, self.file, self.line, self.col
        out.space, out.bol, out.hideset, out.src = self.space, self.bol, self.hideset, self.src
        out.eline, out.digraph, out.painted, out.spelled = self.eline, self.digraph, self.painted, self.spelled
        return out

    def placed_copy(self, where: PPToken) -> PPToken:
        """A copy at `where`'s file, line and column (a replacement-list token at its macro's name)."""
        out = _new_token(PPToken)
        out.kind, out.text, out.file, out.line, out.col = self.kind, self.text, where.file, where.line, where.col
        out.space, out.bol, out.hideset, out.src = self.space, self.bol, self.hideset, self.src
        out.eline, out.digraph, out.painted, out.spelled = self.eline, self.digraph, self.painted, self.spelled
        return out


_new_token = object.__new__


@dataclass
class Lexed:
    tokens: list[PPToken]
    eol: dict[int, tuple[int, int]] = field(default_factory=dict)  # directive '#' index -> (line, col)
    unterminated_comment: Optional[tuple[int, int]] = None  # where a `/*` that never closes starts
    warnings: list[tuple[int, int, str]] = field(default_factory=list)  # (line, col, message)
    # token index -> its identifier-character problems (line, col, error, message, text_only),
    # reported when the token is read (identifier_chars.py says which are reported where)
    problems: dict[int, list[tuple[int, int, bool, str, bool]]] = field(default_factory=dict)
    dropped: set[int] = field(default_factory=set)  # tokens that text lines drop (a stray UTF-8 character)


class _Positions:
    """Maps offsets in the spliced text back to physical lines and columns. Trigraphs
    are replaced first; each leaves one character where it had three."""

    def __init__(self, text: str) -> None:
        self.trigraphs: list[int] = []  # offset of each trigraph's character in the replaced text
        replaced = _TRIGRAPH.sub(self._trigraph, text) if "??" in text else text
        self.replaced = replaced
        self.splices: list[int] = []  # spliced-text offset of each splice
        self.removed: list[int] = []  # characters removed up to and including each splice
        parts, last, total = [], 0, 0
        for m in _SPLICE.finditer(replaced):
            parts.append(replaced[last:m.start()])
            self.splices.append(m.start() - total)
            total += m.end() - m.start()
            self.removed.append(total)
            last = m.end()
        parts.append(replaced[last:])
        self.text = "".join(parts)
        self.line_starts = [0] + [m.end() for m in re.finditer("\n", text)]

    def _trigraph(self, m: re.Match) -> str:
        self.trigraphs.append(m.start() - 2 * len(self.trigraphs))
        return TRIGRAPHS[m.group()[2]]

    def warnings(self) -> list[tuple[int, int, str]]:
        """clang's warnings about splices: spaces after the backslash, a splice inside `*/`."""
        out = []
        for m in _SPLICE.finditer(self.replaced):
            if m.end() - m.start() > 2:
                out.append((*self._physical(m.start() + 1), "backslash and newline separated by space"))
        for m in _SPLIT_COMMENT_END.finditer(self.replaced):
            out.append((*self._physical(m.start() + 1), "escaped newline between */ characters at block comment end"))
        return sorted(out)

    def _physical(self, replaced: int) -> tuple[int, int]:
        original = replaced + 2 * bisect_left(self.trigraphs, replaced)
        line = bisect_right(self.line_starts, original)
        return line, original - self.line_starts[line - 1] + 1

    def unspliced(self, offset: int) -> int:
        """The offset in the text before splicing (trigraphs replaced) of a spliced-text offset."""
        i = bisect_right(self.splices, offset)
        return offset + (self.removed[i - 1] if i else 0)

    def locate(self, offset: int) -> tuple[int, int]:
        return self._physical(self.unspliced(offset))

    def trigraph_warnings(self, comments: list[tuple[int, int]]) -> list[tuple[int, int, str]]:
        """clang's warning for each trigraph outside the comments (spliced-text spans)."""
        spans = [(self.unspliced(a), self.unspliced(b)) for a, b in comments]
        out = []
        for at in self.trigraphs:
            if not any(a <= at < b for a, b in spans):
                char = self.replaced[at]
                out.append((*self._physical(at), f"trigraph converted to '{char}' character"))
        return out


def lex(text: str, file: str) -> Lexed:
    """Phases 1-3 over `text` (newlines already "\\n"): the pp-tokens of one file."""
    odd = ("\\" in text and _SPLICE.search(text)) or ("??" in text and _TRIGRAPH.search(text))
    positions = _Positions(text) if odd else None
    comments: list[tuple[int, int]] = []
    body = positions.text if positions is not None else text
    out: list[PPToken] = []
    result = Lexed(out, warnings=positions.warnings() if positions is not None else [])
    line, line_start, space, bol = 1, 0, False, True
    directive = -1  # index of the '#' of the directive being lexed, or -1
    # Tokens come in order, so the splices before each are counted as the scan goes
    # (`Positions.locate`, a search for each token, is for the few places out of order):
    # a token is `spliced` splices further down than the spliced text's lines say, and
    # its column counts from the later of its line's start and the last splice.
    splices = positions.splices if positions is not None else []
    spliced, next_splice, last_splice = 0, splices[0] if splices else len(body) + 1, -1
    pos = 0
    while True:
        m = _SCAN.match(body, pos)
        if m is None:
            break
        pos = m.end()
        kind = m.lastgroup
        start = m.start(kind)  # type: ignore[arg-type]
        if kind == "nl":
            if directive >= 0:
                result.eol[directive] = positions.locate(start) if positions else (line, start - line_start + 1)
                directive = -1
            line += 1
            line_start = m.end()
            space, bol = False, True
            continue
        if start != m.start():
            space = True
        if kind == "comment":
            comments.append((start, m.end()))
            newlines = body.count("\n", start, m.end())
            if newlines:
                line += newlines
                line_start = body.rindex("\n", start, m.end()) + 1
            space = True
            continue
        if kind == "badcomment":
            result.unterminated_comment = positions.locate(start) if positions else (line, start - line_start + 1)
            break
        while next_splice <= start:
            last_splice = next_splice
            spliced += 1
            next_splice = splices[spliced] if spliced < len(splices) else len(body) + 1
        tok_line, col = line + spliced, start - max(line_start, last_splice) + 1
        if positions is not None and positions.trigraphs:
            tok_line, col = positions.locate(start)
        value = m.group(kind)  # type: ignore[arg-type]
        spelled = None
        if kind == "id" and (not value.isascii() or "\\" in value):
            found = scan(body, start)
            pos = found.end
            spelled = body[start:pos]
            if found.problems:
                result.problems[len(out)] = [
                    (*(positions.locate(p.offset) if positions else (tok_line, col + p.offset - start)),
                     p.error, p.message, p.text_only) for p in found.problems]
            if found.kind == "space":
                space = True
                continue
            if found.kind == "drop":
                result.dropped.add(len(out))
            kind, value = ("id", found.name) if found.kind == "id" else ("other", spelled)
            if spelled == value:
                spelled = None
        digraph = kind == "punct" and value in DIGRAPHS
        if digraph:
            value = DIGRAPHS[value]
        if value == "#" and bol and kind == "punct":
            directive = len(out)
        out.append(PPToken(kind, value, file, tok_line, col, space, bol))  # type: ignore[arg-type]
        if digraph:
            out[-1].digraph = True
        if spelled is not None:
            out[-1].spelled = spelled
        space = bol = False
    end = len(body)
    eof_line, eof_col = positions.locate(end) if positions else (line, end - line_start + 1)
    if directive >= 0:
        result.eol[directive] = (eof_line, eof_col)
    out.append(PPToken("eof", "", file, eof_line, eof_col, False, True))
    if positions is not None and positions.trigraphs:
        result.warnings = sorted(result.warnings + positions.trigraph_warnings(comments))
    return result


def lex_one(text: str) -> Optional[tuple[str, str]]:
    """(kind, text) when `text` is exactly one pp-token (what `##` may form), else None.
    A digraph comes back as the punctuator it stands for, an identifier as its name."""
    m = _TOKEN.match(text)
    if m is not None and m.lastgroup == "id" and (not text.isascii() or "\\" in text):
        found = scan(text, 0)
        if found.end != len(text) or found.kind == "space":
            return None
        return ("id", found.name) if found.kind == "id" else ("other", text)
    if m is None or m.end() != len(text) or m.lastgroup in ("nl", "comment", "badcomment"):
        return None
    if m.lastgroup == "other" and text[0] in "'\"":
        return None
    return m.lastgroup or "", DIGRAPHS.get(text, text)  # type: ignore[return-value]
