"""clang's feature-check macros: `__has_builtin(x)`, `__has_feature(x)`,
`__has_extension(x)`, `__has_attribute(x)`, `__has_c_attribute(x)`,
`__has_declspec_attribute(x)` and `__is_identifier(x)`.

Each is defined (`#ifdef __has_builtin` holds, so code keeps its own fallback
out) and, in `#if` or in the text, becomes the number 1 or 0 where its name
stood. The operand is one identifier in parentheses; it is not macro-expanded,
except for the attribute checks (an attribute may be named by a macro). In a
feature, extension or attribute name, `__x__` is `x`. This is clang's
`EvaluateFeatureLikeBuiltinMacro`, errors and all, in clang's words:

    __has_builtin;              missing '(' after '__has_builtin'   (the ';' is taken: 0)
    __has_builtin(1)            builtin feature check macro requires a parenthesized identifier
    __has_builtin(x y)          missing ')' after 'x'  + note: to match this '('
    __has_builtin(x, y)         too many arguments provided to function-like macro invocation
    __has_builtin()             too few arguments provided to function-like macro invocation
    __has_builtin((x))          nested parentheses not permitted in '__has_builtin'
    #if __has_builtin(          unterminated function-like macro invocation

The answers are what oclpy has (`Capabilities`, filled in by the caller from
the builtin table and the parser's attributes), which is what clang -x cl
answers wherever oclpy does what clang does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from .expand import TokenStream
from .macros import Macro, loc_of
from .tokens import PPToken

if TYPE_CHECKING:
    from .directives import Preprocessor


@dataclass(frozen=True)
class Capabilities:
    """What the feature checks answer 1 for."""

    builtin: Callable[[str], bool] = lambda name: False
    features: frozenset[str] = frozenset()
    extensions: frozenset[str] = frozenset()  # beyond the features, which are extensions too
    attributes: frozenset[str] = frozenset()
    keywords: frozenset[str] = field(default_factory=frozenset)  # what __is_identifier says 0 for


def _strip(name: str) -> str:
    """`__x__` is `x` (clang, for features, extensions and attributes)."""
    return name[2:-2] if len(name) > 4 and name.startswith("__") and name.endswith("__") else name


# name -> (whether the operand is macro-expanded, the answer for an identifier)
ANSWERS: dict[str, tuple[bool, Callable[[Capabilities, str], bool]]] = {
    "__has_builtin": (False, lambda caps, name: caps.builtin(name)),
    "__has_feature": (False, lambda caps, name: _strip(name) in caps.features),
    "__has_extension": (False, lambda caps, name: _strip(name) in caps.features | caps.extensions),
    "__is_identifier": (False, lambda caps, name: name not in caps.keywords),
    "__has_attribute": (True, lambda caps, name: _strip(name) in caps.attributes),
    "__has_c_attribute": (True, lambda caps, name: False),  # C2x [[attributes]]: not in OpenCL C
    "__has_declspec_attribute": (True, lambda caps, name: False),  # needs -fdeclspec
}


def define_feature_checks(pp: Preprocessor, caps: Capabilities) -> None:
    for name in ANSWERS:
        pp.macros[name] = Macro(name, None, [], reads=_reader(pp, caps, name))


def _reader(pp: Preprocessor, caps: Capabilities, name: str) -> Callable[[PPToken, TokenStream], Optional[PPToken]]:
    return lambda tok, stream: FeatureCheck(pp, caps, tok, stream).value()


class FeatureCheck:
    """One use of a feature-check macro: reads `( identifier )` from the stream."""

    def __init__(self, pp: Preprocessor, caps: Capabilities, name: PPToken, stream: TokenStream) -> None:
        self.pp, self.caps, self.name, self.stream = pp, caps, name, stream
        self.expands, self.answer = ANSWERS[name.text]
        self.quiet = False  # after the first error, as clang's SuppressDiagnostic

    def _next(self, expand: bool) -> PPToken:
        if expand:
            return self.pp.expander.next(self.stream)
        pending = self.stream.pending
        return pending.pop() if pending else self.stream.more()

    def _error(self, tok: PPToken, message: str) -> None:
        if not self.quiet:
            self.pp.diags.error(loc_of(tok), message)
            self.quiet = True

    def _number(self, value: bool) -> PPToken:
        name = self.name
        return PPToken("number", str(int(value)), name.file, name.line, name.col, name.space, src=False)

    def value(self) -> Optional[PPToken]:
        """The 1 or 0 the check stands for; None at the end of the input (nothing is left)."""
        lparen = self._next(False)
        if lparen.text != "(" or lparen.kind != "punct":
            self._error(lparen, f"missing '(' after '{self.name.text}'")
            if lparen.kind == "eof":
                self.stream.pending.append(lparen)
                return None
            return self._number(False)
        depth, result, result_tok = 1, None, lparen
        while True:
            tok = self._next(self.expands)
            if tok.kind == "eof":
                self._error(tok, "unterminated function-like macro invocation")
                self.stream.pending.append(tok)
                return None
            text = tok.text if tok.kind == "punct" else ""
            if text == ",":
                self._error(tok, "too many arguments provided to function-like macro invocation")
                continue
            if text == "(":
                depth += 1
                if result is None:
                    self._error(tok, f"nested parentheses not permitted in '{self.name.text}'")
                    continue
            elif text == ")":
                depth -= 1
                if depth > 0:
                    continue
                if result is None:
                    self._error(tok, "too few arguments provided to function-like macro invocation")
                return self._number(bool(result))
            elif result is None:
                result, result_tok = self._operand(tok), tok
                continue
            self._missing_paren(tok, result_tok, lparen)

    def _operand(self, tok: PPToken) -> bool:
        if tok.kind != "id":
            self._error(tok, "builtin feature check macro requires a parenthesized identifier")
            return False
        return self.answer(self.caps, tok.text)

    def _missing_paren(self, tok: PPToken, after: PPToken, lparen: PPToken) -> None:
        if not self.quiet:
            diag = self.pp.diags.error(loc_of(tok), f"missing ')' after '{after.text}'")
            self.pp.diags.note(diag, loc_of(lparen), "to match this '('")
            self.quiet = True
