"""The headers a source may include, as a digest for build caches.

Build caches are keyed on the source text and the options; a program that
`#include`s a header must also miss when that header changes. Before any
preprocessing (a cache hit must stay cheap), `include_digest(source, options)`
scans `#include` lines, resolves each the way `preprocess.py` does (the
including file's folder for quoted names, then each `-I` folder, then
oclpy's bundled headers), follows the headers it finds, and hashes their
paths and contents. Conditionals are not evaluated, so it may hash a header
the preprocessor would skip: a needless miss at worst, never a stale hit.
A source without `#include` costs one regular-expression search.
"""

from __future__ import annotations

import hashlib
import os
import re

from .options import BUNDLED_INCLUDE_DIR, parse_build_options
from .source_files import read_source_bytes

_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)
MAX_HEADERS = 1000  # a bound on the scan, whatever the headers do


def include_digest(source: str, options: str) -> str:
    """A hash of every header `source` may include (path and bytes); "" when it includes none."""
    if "include" not in source or _INCLUDE.search(source) is None:
        return ""
    try:
        folders = [*parse_build_options(options).include_dirs, BUNDLED_INCLUDE_DIR]
    except Exception:  # bad options fail the build itself, with a diagnostic
        folders = [BUNDLED_INCLUDE_DIR]
    h = hashlib.sha256()
    seen: set[str] = set()
    work = [(source, os.getcwd())]
    while work and len(seen) < MAX_HEADERS:
        text, here = work.pop()
        for quote, name in _INCLUDE.findall(text):
            path = _resolve(name.strip(), here if quote == '"' else None, folders)
            h.update(f"{quote}{name}\0{path or ''}\0".encode("utf-8", "surrogatepass"))
            if path is None or path in seen:
                continue
            seen.add(path)
            data = _read(path)
            h.update(hashlib.sha256(data).digest())
            work.append((data.decode("utf-8", "replace"), os.path.dirname(path)))
    return h.hexdigest()


def _resolve(name: str, here: str | None, folders: list[str]) -> str | None:
    for folder in ([here] if here is not None else []) + folders:
        path = os.path.join(folder, name)
        if os.path.isfile(path):
            return os.path.abspath(path)
    return None


def _read(path: str) -> bytes:
    try:
        return read_source_bytes(path)
    except OSError:
        return b""
