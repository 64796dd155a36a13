"""The macros the preprocessor itself defines: `__FILE__`, `__LINE__` (C99 6.10.8),
`__DATE__`, `__TIME__`, clang's `__COUNTER__`, `__INCLUDE_LEVEL__`,
`__BASE_FILE__`, and `__has_include` (C23), which only `#if` may use.

Each is a `Macro` whose `builtin` makes the replacement token when the name is
expanded. `__LINE__` in a replacement list says the line where that macro call
ends (`PPToken.eline`); written in the text or in an argument, its own line.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from .macros import Macro, loc_of
from .tokens import PPToken

if TYPE_CHECKING:
    from .directives import Preprocessor

HAS_INCLUDE = ("__has_include", "__has_include_next")


def define_builtins(pp: Preprocessor) -> None:
    now = time.localtime()
    date, clock = time.strftime("%b %e %Y", now), time.strftime("%H:%M:%S", now)
    values: dict[str, Callable[[PPToken], tuple[str, str]]] = {
        "__FILE__": lambda tok: ("string", quote(tok.file)),
        "__LINE__": lambda tok: ("number", str(tok.line if tok.src else tok.eline)),
        "__DATE__": lambda tok: ("string", quote(date)),
        "__TIME__": lambda tok: ("string", quote(clock)),
        "__COUNTER__": lambda tok: ("number", str(_count(pp))),
        "__INCLUDE_LEVEL__": lambda tok: ("number", str(len(pp.files) - 1)),
        "__BASE_FILE__": lambda tok: ("string", quote(_base_file(pp))),
    }
    for name, value in values.items():
        pp.macros[name] = Macro(name, None, [], builtin=_replacement(value))
    for name in HAS_INCLUDE:
        pp.macros[name] = Macro(name, None, [], builtin=lambda tok: _has_include_outside_if(pp, tok))


def _base_file(pp: Preprocessor) -> str:
    """The main file's name, as the last `#line` in it gave it (clang's presumed name)."""
    if not pp.files:
        return ""
    return pp.files[0].presumed or pp.files[0].name


def quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _count(pp: Preprocessor) -> int:
    pp.counter += 1
    return pp.counter - 1


def _replacement(value: Callable[[PPToken], tuple[str, str]]) -> Callable[[PPToken], PPToken]:
    def expand(tok: PPToken) -> PPToken:
        kind, text = value(tok)
        return PPToken(kind, text, tok.file, tok.line, tok.col, tok.space, src=False)
    return expand


def _has_include_outside_if(pp: Preprocessor, tok: PPToken) -> PPToken:
    """`__has_include` is left as it is for `Preprocessor.condition`, and is an error anywhere else."""
    if not pp.in_condition:
        pp.diags.error(loc_of(tok), f"'{tok.text}' must be used within a preprocessing directive")
    out = tok.copy()
    out.painted = True
    return out
