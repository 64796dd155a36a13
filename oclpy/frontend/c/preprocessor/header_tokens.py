"""The pp-tokens of header files, lexed once per process and shared by every `#include`.

Each `#include` reads its header again (the file may have changed, and an
include-guarded header is read again only to skip it), but lexes it only
when its text is new: `lexed(text, name)` keeps the `Lexed` of each (name,
text) pair, keyed by the whole text, so any change to the file is a new key.
Sharing is safe because preprocessing never changes a file's tokens: `#line`
moves copies (`Source.relocated`) and macro expansion copies every token it
substitutes. The directives, conditionals and macros of the header run at each
inclusion as before, so include guards, `#pragma once`, `__FILE__` and
`__LINE__` answer as they did. The token count kept is bounded (`MAX_TOKENS`,
the least recently used headers dropped first); a header larger than that is
lexed at each inclusion.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from .tokens import Lexed, lex

MAX_TOKENS = 250_000  # about 40 MB of tokens

_kept: OrderedDict[tuple[str, str], Lexed] = OrderedDict()
_counts = [0]  # tokens kept
_lock = threading.Lock()


def lexed(text: str, name: str) -> Lexed:
    """The pp-tokens of header `text` read as file `name`; callers must not change them."""
    key = (name, text)
    with _lock:
        hit = _kept.get(key)
        if hit is not None:
            _kept.move_to_end(key)
            return hit
    made = lex(text, name)
    size = len(made.tokens)
    if size > MAX_TOKENS:
        return made
    with _lock:
        if key not in _kept:
            _kept[key] = made
            _counts[0] += size
            while _counts[0] > MAX_TOKENS:
                _, dropped = _kept.popitem(last=False)
                _counts[0] -= len(dropped.tokens)
    return made


def forget() -> None:
    """Drop every kept header (tests)."""
    with _lock:
        _kept.clear()
        _counts[0] = 0
