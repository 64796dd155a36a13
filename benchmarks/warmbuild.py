"""Warm build times: a build of a source that was built before, served by disk caches.

PoCL: in a fresh process (`python -m benchmarks.warmbuild --pocl` reads a
JSON list of sources on stdin and prints `{"pocl": [seconds...]}`), where
PoCL's kernel cache and PyOpenCL's binary cache answer.

oclpy: in this process with the build cache's memory emptied, so the disk
cache answers (`in_process`). A fresh process would compute a different compiler
version whenever a file of the oclpy package changed in between (the cache
key includes it, so a stale entry is never served): in a checkout that is
being edited that is a miss, not a warm build.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from .impl import pocl_impl


def _times(impl, sources: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for src in sources:
        t0 = time.perf_counter()
        impl.cl.Program(impl.ctx, src).build()
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    sources = json.load(sys.stdin)
    result = {}
    if "--pocl" in sys.argv:
        pocl, _ = pocl_impl()
        if pocl is not None:
            result["pocl"] = _times(pocl, sources)
    json.dump(result, sys.stdout)
    return 0


def in_process(impl, source: str) -> float:  # type: ignore[no-untyped-def]
    """oclpy's build of `source` with the in-memory caches emptied (the disk cache answers)."""
    from oclpy.compiler import cache

    cache.clear_memory()
    return _times(impl, [source])[0]


def measure(sources: list[str], with_pocl: bool) -> dict[str, list[float]]:
    """PoCL's warm builds, from a new Python process ({} on failure or without PoCL)."""
    if not with_pocl:
        return {}
    cmd = [sys.executable, "-m", "benchmarks.warmbuild", "--pocl"]
    proc = subprocess.run(cmd, input=json.dumps(sources), capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        sys.stderr.write(f"warm build measurement failed:\n{proc.stderr[-2000:]}\n")
        return {}
    return json.loads(proc.stdout)


if __name__ == "__main__":
    sys.exit(main())
