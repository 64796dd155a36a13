"""Warm build times, measured in a fresh process: `python -m benchmarks.warmbuild`.

Reads a JSON list of sources on stdin, builds each once with oclpy (its disk
cache should answer) and, when `--pocl` is given, with PyOpenCL on PoCL (its
kernel cache and PyOpenCL's binary cache should answer); prints
`{"oclpy": [seconds...], "pocl": [seconds...]}`.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from .impl import oclpy_impl, pocl_impl


def _times(impl, sources: list[str]) -> list[float]:  # type: ignore[no-untyped-def]
    out = []
    for src in sources:
        t0 = time.perf_counter()
        impl.cl.Program(impl.ctx, src).build()
        out.append(time.perf_counter() - t0)
    return out


def main() -> int:
    sources = json.load(sys.stdin)
    result = {"oclpy": _times(oclpy_impl(), sources)}
    if "--pocl" in sys.argv:
        pocl, _ = pocl_impl()
        if pocl is not None:
            result["pocl"] = _times(pocl, sources)
    json.dump(result, sys.stdout)
    return 0


def measure(sources: list[str], with_pocl: bool) -> dict[str, list[float]]:
    """Run this module in a new Python process and return its timings ({} on failure)."""
    cmd = [sys.executable, "-m", "benchmarks.warmbuild"] + (["--pocl"] if with_pocl else [])
    proc = subprocess.run(cmd, input=json.dumps(sources), capture_output=True, text=True,
                          timeout=600)
    if proc.returncode != 0:
        sys.stderr.write(f"warm build measurement failed:\n{proc.stderr[-2000:]}\n")
        return {}
    return json.loads(proc.stdout)


if __name__ == "__main__":
    sys.exit(main())
