"""What the disk build cache keeps per program, and how long a program takes to load from it.

    python -m benchmarks.cache_entries [--repeat 20] [--out FILE]

For each kernel of tests/frontend/kernels/ (the end-to-end kernels; those
the cpu target does not build are skipped) in a fresh cache folder:

- `full`: the program built and every kernel's native code made (as after a
  first launch of each), so its entry holds object code only;
- `partial` (programs of more than one kernel): only the first kernel's code
  made, so the entry holds that kernel's object code and the LLVM IR the
  others compile from.

Recorded per row: the entry file's bytes, with its JSON and blob parts,
and the median seconds (over `--repeat`) of `entry` (`cache.load_entry`: read,
check the signature, decode) and of `build` (`compiler.build` with the
memory cache emptied: the key, the entry, the object code loaded into LLVM,
what a relaunch in a new process pays). JSON with the machine goes to
benchmarks/results/cache-entries-<date>.json.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]
RESULTS = Path(__file__).resolve().parent / "results"


def _median_seconds(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def measure(path: Path, partial: bool, repeat: int) -> dict[str, Any] | None:
    from oclpy.compiler import build, cache
    from oclpy.diagnostics import CompileError

    source = path.read_text()
    cache.clear_memory()
    try:
        program = build(source, "").program
    except CompileError:
        return None
    names = list(program.kernels)
    if partial and len(names) < 2:
        return None
    program.compile_kernels(names[:1] if partial else None)
    folder = cache.cache_dir() / cache.PROGRAMS
    entries = list(folder.glob("*.bin"))
    if len(entries) != 1:
        raise RuntimeError(f"{path.name}: {len(entries)} entries in {folder}")
    key = entries[0].stem
    found = cache.load_entry(cache.PROGRAMS, key)
    if found is None:
        raise RuntimeError(f"{path.name}: the entry does not load")
    data, blob = found

    def rebuild() -> None:
        cache.clear_memory()
        build(source, "")

    row = {"kernel": path.name, "state": "partial" if partial else "full", "kernels": len(names),
           "entry_bytes": entries[0].stat().st_size, "json_bytes": len(json.dumps(data, separators=(",", ":"))),
           "blob_bytes": len(blob),
           "entry_seconds": _median_seconds(lambda: cache.load_entry(cache.PROGRAMS, key), repeat),
           "build_seconds": _median_seconds(rebuild, repeat)}
    entries[0].unlink()
    return row


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from .report import machine, software

    rows = []
    with tempfile.TemporaryDirectory(prefix="oclpy-cache-entries-") as folder:
        os.environ["OCLPY_CACHE_DIR"] = folder
        os.environ.pop("OCLPY_NO_CACHE", None)
        for path in sorted((ROOT / "tests" / "frontend" / "kernels").glob("*.cl")):
            for partial in (False, True):
                row = measure(path, partial, args.repeat)
                if row is not None:
                    rows.append(row)
                    print(f"{row['kernel']:20s} {row['state']:8s} entry {row['entry_bytes']:7d} B "
                          f"(json {row['json_bytes']:5d}, blob {row['blob_bytes']:7d})  "
                          f"load entry {row['entry_seconds'] * 1e3:6.3f} ms  build {row['build_seconds'] * 1e3:6.2f} ms",
                          flush=True)
    for state in ("full", "partial"):
        some = [r for r in rows if r["state"] == state]
        if some:
            print(f"{state}: {len(some)} entries, mean {statistics.mean(r['entry_bytes'] for r in some) / 1024:.2f} KiB, "
                  f"median entry load {statistics.median(r['entry_seconds'] for r in some) * 1e3:.3f} ms, "
                  f"median build from disk {statistics.median(r['build_seconds'] for r in some) * 1e3:.2f} ms")
    out = args.out or RESULTS / f"cache-entries-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps({"machine": machine(), "software": software(), "rows": rows}, indent=1))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
