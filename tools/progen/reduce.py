"""A line-deleting reducer (delta debugging over lines).

Generated programs put one statement per line (and mark with `// keep` the
lines whose deletion would leave memory uninitialised or race: barriers, the
initialisation of `__local` and scratch memory) and every initialiser on its
declaration's line, so deleting lines mostly yields programs that either
fail to build everywhere (rejected: PoCL must still agree it is valid where
it did) or keep the same meaning minus some work. A candidate is kept when
`interesting(source)` still holds; chunks of lines are tried from large to
small until no single line can go or the budget of tries is spent.
"""

from __future__ import annotations

import time
from typing import Callable


KEEP = "// keep"  # lines the generator marks as never to delete


def units(lines: list[str]) -> list[tuple[int, int]]:
    """(first, end) line ranges of whole statements: a line, or a line opening a
    block through the line that closes it (a function header takes its body)."""
    out = []
    for i, line in enumerate(lines):
        first = i
        if line.strip() == "{" and i > 0 and not lines[i - 1].rstrip().endswith((";", "{", "}")):
            first = i - 1
        depth, j = 0, i
        while j < len(lines):
            depth += lines[j].count("{") - lines[j].count("}")
            if depth <= 0:
                break
            j += 1
        out.append((first, min(j, len(lines) - 1) + 1))
    return out


def _deletion_pass(lines: list[str], spans: list[tuple[int, int]], test: Callable[[list[str]], bool]
                   ) -> tuple[list[str], bool]:
    """Try deleting each span, last first; spans shift as earlier ones go."""
    changed = False
    for first, end in sorted(set(spans), key=lambda s: (-s[0], s[1])):
        if end > len(lines) or any(KEEP in line for line in lines[first:end]):
            continue
        candidate = lines[:first] + lines[end:]
        if candidate and test(candidate):
            lines, changed = candidate, True
    return lines, changed


def reduce_lines(source: str, interesting: Callable[[str], bool], budget: int = 200,
                 deadline_s: float = 600.0, progress: Callable[[str], None] | None = None) -> str:
    """Delete whole statements (blocks with their bodies), then single lines, while
    `interesting` holds, until nothing more goes or the budget is spent."""
    lines = source.splitlines()
    state = {"tries": 0}
    start = time.monotonic()

    def test(candidate: list[str]) -> bool:
        if state["tries"] >= budget or time.monotonic() - start > deadline_s:
            return False
        state["tries"] += 1
        ok = interesting("\n".join(candidate) + "\n")
        if ok and progress:
            progress(f"reduce: {len(candidate)} lines after {state['tries']} tries")
        return ok

    changed = True
    while changed and state["tries"] < budget:
        lines, a = _deletion_pass(lines, [u for u in units(lines) if u[1] - u[0] > 1], test)
        lines, b = _deletion_pass(lines, [(i, i + 1) for i in range(len(lines))], test)
        changed = a or b
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    """`python -m tools.progen.reduce FILE [--impls O2,pocl]`: reduce a saved program,
    keeping what the implementations make of it (`verdict.signature`)."""
    import argparse
    from pathlib import Path

    from .verdict import signature
    from .workers import Worker

    ap = argparse.ArgumentParser(prog="python -m tools.progen.reduce", description=main.__doc__)
    ap.add_argument("file")
    ap.add_argument("--impls", default="O0,O2,pocl")
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--timeout", type=float, default=20.0)
    ap.add_argument("--out", help="where to write the result (default FILE with .min.cl)")
    args = ap.parse_args(argv)
    source = Path(args.file).read_text()
    impls = tuple(args.impls.split(","))
    worker = Worker()
    try:
        want = signature({i: worker.run(source, i, args.timeout) for i in impls})
        print(f"keeping {want}", flush=True)

        def interesting(candidate: str) -> bool:
            return signature({i: worker.run(candidate, i, args.timeout) for i in impls}) == want

        reduced = reduce_lines(source, interesting, budget=args.budget, deadline_s=3600,
                               progress=lambda m: print(m, flush=True))
    finally:
        worker.close()
    out = Path(args.out or str(Path(args.file).with_suffix("")) + ".min.cl")
    out.write_text(reduced)
    print(f"{len(reduced.splitlines())} lines: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
