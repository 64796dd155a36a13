"""Reduce a CLSmith kernel while an `interesting(source)` test holds.

A CLSmith kernel is large (1,000 to 2,000 lines, plus the ~700 lines of
CLSmith.h and its safe-math macros) and its launch lives in its first line.
`reduce_kernel` keeps that first line apart and:

1. makes the kernel self-contained (`inline_includes`), one line per macro
   and without comments (`tidy`), and drops the macros it never names
   (`prune_macros`), if the result is still interesting;
2. deletes chunks of lines, halving the chunk size down to single lines
   (`delete_chunks`, the complement step of delta debugging): quick on big
   kernels, where progen's reducer would try one statement at a time;
3. then deletes whole statements and single lines with progen's reducer
   (`tools.progen.reduce.reduce_lines`);
   or, instead of 2 and 3, hands the body after its last preprocessor line to an
   `engine` (C-Vise: `cvise.py`; `split_preprocessor`): CLSmith's safe-math macros
   guard against undefined behaviour (a shift too far, a signed overflow) that no
   clang warning sees once a reducer edits a macro, so they stay as CLSmith wrote
   them;
4. shrinks the launch, to one work-group and then to one work-item
   (`shrink_launch`, also tried before 2), and prunes macros again.

Nothing here runs a kernel: the test is given (`oracle.py` builds it from
oclpy's and PoCL's runs, with clang-14 as a guard against undefined behaviour).
"""

from __future__ import annotations

import re
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable

from tools.progen.reduce import reduce_lines

from .generate import parse_launch, with_launch

Test = Callable[[str], bool]

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"\s*$', re.M)
_TOKENS = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'|/\*.*?\*/|//[^\n]*', re.S)
_DEFINE = re.compile(r"^\s*#\s*define\s+([A-Za-z_]\w*)")


def inline_includes(source: str, include_dir: str, seen: set[str] | None = None) -> str:
    """`source` with each `#include "NAME"` found in `include_dir` replaced by the file, once."""
    seen = set() if seen is None else seen

    def put(m: re.Match) -> str:
        path = Path(include_dir) / m.group(1)
        if not path.is_file():
            return m.group(0)
        if m.group(1) in seen:
            return ""
        seen.add(m.group(1))
        return inline_includes(path.read_text(), include_dir, seen)

    return _INCLUDE.sub(put, source)


def tidy(source: str) -> str:
    """One line per preprocessor line (continuations joined), comments gone (but the first
    line, the launch), blank lines gone."""
    first, _, rest = source.partition("\n")
    rest = re.sub(r"\\\n", " ", rest)
    rest = _TOKENS.sub(lambda m: m.group(0) if m.group(0)[0] in "\"'" else " ", rest)
    lines = [ln.rstrip() for ln in rest.splitlines() if ln.strip()]
    return "\n".join([first, *lines]) + "\n"


def prune_macros(source: str) -> str:
    """Drop each one-line `#define` whose name appears nowhere else, until none goes."""
    lines = source.splitlines()
    while True:
        words = re.findall(r"[A-Za-z_]\w*", "\n".join(lines))
        uses: dict[str, int] = {}
        for w in words:
            uses[w] = uses.get(w, 0) + 1
        keep = []
        for ln in lines:
            m = _DEFINE.match(ln)
            if not (m and uses.get(m.group(1), 0) <= 1):
                keep.append(ln)
        if len(keep) == len(lines):
            return "\n".join(lines) + "\n"
        lines = keep


def delete_chunks(lines: list[str], test: Callable[[list[str]], bool], smallest: int = 1) -> list[str]:
    """Try deleting chunks of lines, last first, halving the chunk size from half the
    lines down to `smallest`; a deletion stays when `test` holds for what is left."""
    size = max(len(lines) // 2, 1)
    while size >= smallest:
        end = len(lines)
        while end > 0:
            first = max(end - size, 0)
            candidate = lines[:first] + lines[end:]
            if candidate and test(candidate):
                lines = candidate
            end = first
        size //= 2
    return lines


def split_preprocessor(text: str) -> tuple[str, str]:
    """(the lines up to and with the last preprocessor line, the lines after it)."""
    lines = text.splitlines(keepends=True)
    last = max((i for i, ln in enumerate(lines) if ln.lstrip().startswith("#")), default=-1)
    return "".join(lines[:last + 1]), "".join(lines[last + 1:])


def shrink_launch(source: str, test: Test) -> str:
    """The kernel with a smaller launch where `test` still holds: one work-group, then one work-item."""
    launch = parse_launch(source)
    one_item = replace(launch, global_size=tuple(1 for _ in launch.local_size),
                       local_size=tuple(1 for _ in launch.local_size))
    for smaller in (launch.one_group(), one_item):
        if smaller.global_size == launch.global_size:
            continue
        candidate = with_launch(source, smaller)
        if test(candidate):
            source, launch = candidate, smaller
    return source


class Budget:
    """Counts tries and time; a test past the budget answers False."""

    def __init__(self, test: Test, tries: int, seconds: float, progress: Callable[[str], None] | None) -> None:
        self.test, self.tries, self.seconds, self.progress = test, tries, seconds, progress
        self.used = 0
        self.start = time.monotonic()

    def __call__(self, source: str) -> bool:
        if self.used >= self.tries or time.monotonic() - self.start > self.seconds:
            return False
        self.used += 1
        ok = self.test(source)
        if ok and self.progress:
            self.progress(f"reduce: {len(source.splitlines())} lines after {self.used} tries")
        return ok


def reduce_kernel(source: str, interesting: Test, include_dir: str | None = None, tries: int = 600,
                  seconds: float = 3600.0, progress: Callable[[str], None] | None = None,
                  engine: Callable[[str, Test], str] | None = None) -> str:
    """The smallest kernel found that is still `interesting` (see the module docstring);
    `engine(body, test)`, e.g. C-Vise, replaces steps 2 and 3 where given."""
    test = Budget(interesting, tries, seconds, progress)
    if include_dir:
        flat = prune_macros(tidy(inline_includes(source, include_dir)))
        if test(flat):
            source = flat
    source = shrink_launch(source, test)
    header, _, body = source.partition("\n")

    def test_body(text: str) -> bool:
        return test(header + "\n" + text)

    if engine is not None:
        fixed, free = split_preprocessor(body)
        body = fixed + engine(free, lambda text: test_body(fixed + text))
    else:
        lines = delete_chunks(body.splitlines(), lambda ls: test_body("\n".join(ls) + "\n"), smallest=2)
        body = reduce_lines("\n".join(lines) + "\n", test_body, budget=budget_left(test), deadline_s=seconds)
    source = shrink_launch(header + "\n" + body, test)
    pruned = prune_macros(source)
    return pruned if pruned != source and test(pruned) else source


def budget_left(test: Budget) -> int:
    return max(test.tries - test.used, 0)
