"""Check that a change to the compiler leaves its output byte for byte as it was.

    python -m benchmarks.ir_identity save FILE [--sets real,corpus,generated] [--corpus-every N]
    python -m benchmarks.ir_identity check FILE [--sets ...] [--corpus-every N]

(`python -m tools.ir_identity` is the same with the corpus set alone: the real
suite and the generated kernels are the benchmarks', which tools do not import.)
`save` compiles every kernel of the sets (`tools/compile_stages.py` runs them) and
writes, per kernel, the IR `oclpy build --emit ir` prints, the LLVM IR of the
cpu device (`--emit llvm`) and the build log (the log alone for a kernel that
does not compile; an exception's type and message for a compiler bug) to FILE
(gzip-compressed JSON). `check` compiles the same kernels again with the code
as it is now and reports each kernel whose output differs, with the first line
that differs; it exits 1 when any does. `check` may take fewer sets, or every
N-th corpus kernel for a multiple N of the saved one, for a quicker look. Run
`save` before a change that must not change the output (a speed-up) and `check`
after it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
from pathlib import Path

from typing import Callable

from tools.compile_stages import CORPUS_EVERY, Kernel, corpus_kernels, run_stages

KernelSets = dict[str, Callable[[], list[Kernel]]]
SETS: KernelSets = {"corpus": corpus_kernels}  # what tools have; callers may bring more


def kernels(names: list[str], corpus_every: int, sets: KernelSets) -> list[Kernel]:
    out: list[Kernel] = []
    for name in names:
        if name not in sets:
            raise SystemExit(f"no kernel set '{name}' here (there are: {', '.join(sets)})")
        out += corpus_kernels(corpus_every) if name == "corpus" else sets[name]()
    return out


def outputs(kernel: Kernel) -> dict[str, str]:
    try:
        result = run_stages(kernel, texts=True)
    except Exception as exc:  # noqa: BLE001 - a compiler bug is an output too: it must stay the same
        return {"status": "crash", "crash": f"{type(exc).__name__}: {exc}"}
    return {"status": result.status, **result.texts}


def first_difference(old: str, new: str) -> str:
    a, b = old.splitlines(), new.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return f"line {i + 1}:\n    was: {x[:200]}\n    now: {y[:200]}"
    return f"line {min(len(a), len(b)) + 1}: {len(a)} lines before, {len(b)} now"


def save(path: Path, names: list[str], corpus_every: int, sets: KernelSets = SETS) -> None:
    todo = kernels(names, corpus_every, sets)
    record = {"sets": names, "corpus_every": corpus_every, "kernels": {}}
    start = time.process_time()
    for n, kernel in enumerate(todo, 1):
        record["kernels"][kernel.id] = outputs(kernel)
        print(f"\r{n}/{len(todo)} {time.process_time() - start:.0f} s CPU", end="", file=sys.stderr)
    print(file=sys.stderr)
    with gzip.open(path, "wt", encoding="utf-8") as f:
        json.dump(record, f)
    print(f"saved the outputs of {len(todo)} kernels to {path}")


def check(path: Path, names: list[str] | None = None, corpus_every: int | None = None,
          sets: KernelSets = SETS) -> int:
    with gzip.open(path, "rt", encoding="utf-8") as f:
        record = json.load(f)
    every = corpus_every or record["corpus_every"]
    if every % record["corpus_every"]:
        raise SystemExit(f"--corpus-every must be a multiple of the saved {record['corpus_every']}")
    todo = kernels(names or record["sets"], every, sets)
    differ = 0
    start = time.process_time()
    for n, kernel in enumerate(todo, 1):
        old, new = record["kernels"].get(kernel.id), outputs(kernel)
        print(f"\r{n}/{len(todo)} {time.process_time() - start:.0f} s CPU", end="", file=sys.stderr)
        if old == new:
            continue
        differ += 1
        print(f"\n{kernel.id}: differs", file=sys.stderr)
        for key in sorted(set(old or {}) | set(new)):
            if (old or {}).get(key) != new.get(key):
                print(f"  {key}: {first_difference((old or {}).get(key, ''), new.get(key, ''))}", file=sys.stderr)
    print(file=sys.stderr)
    print(f"{len(todo) - differ} of {len(todo)} kernels give the same output"
          f" ({time.process_time() - start:.1f} s CPU)")
    return 1 if differ else 0


def main(argv: list[str] | None = None, sets: KernelSets = SETS, prog: str = "python -m tools.ir_identity") -> int:
    ap = argparse.ArgumentParser(prog=prog)
    ap.add_argument("command", choices=("save", "check"))
    ap.add_argument("file", type=Path)
    ap.add_argument("--sets", help=f"comma-separated (default: {','.join(sets)}; check: the saved ones)")
    ap.add_argument("--corpus-every", type=int,
                    help=f"every N-th corpus kernel (default: save {CORPUS_EVERY}, check the saved N)")
    args = ap.parse_args(argv)
    names = args.sets.split(",") if args.sets else None
    if args.command == "save":
        save(args.file, names or list(sets), args.corpus_every or CORPUS_EVERY, sets)
        return 0
    return check(args.file, names, args.corpus_every, sets)


if __name__ == "__main__":
    sys.exit(main())
