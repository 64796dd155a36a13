"""Preprocessing time of a kernel that includes one header many times.

    python -m benchmarks.pp_includes [--includes 200] [--lines 300] [--repeat 5]

Writes, in a temporary folder, an include-guarded header of `--lines`
inline functions and a small guarded header, and a kernel that includes both
`--includes` times, then prints the median and best seconds of
`preprocess` over `--repeat` runs in this process (the first run lexes the
headers; with `frontend/c/preprocessor/header_tokens.py` the later ones do
not, nor does each `#include` after the first).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path


def write_kernel(folder: Path, includes: int, lines: int) -> Path:
    body = [f"inline int helper_{k}(int x) {{ return x * {k + 1} + (x >> {k % 7}); }} // helper {k}"
            for k in range(lines)]
    (folder / "big.h").write_text("\n".join(["#ifndef BIG_H", "#define BIG_H", *body, "#endif"]) + "\n")
    (folder / "small.h").write_text("#ifndef SMALL_H\n#define SMALL_H\n#define SCALE 3\n#endif\n")
    kernel = folder / "many_includes.cl"
    kernel.write_text('#include "big.h"\n#include "small.h"\n' * includes +
                      "__kernel void k(__global int *a) { int i = get_global_id(0); "
                      "a[i] = helper_5(a[i]) * SCALE + __LINE__; }\n")
    return kernel


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--includes", type=int, default=200)
    parser.add_argument("--lines", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    from oclpy.diagnostics import DiagnosticEngine
    from oclpy.frontend.c.preprocess import preprocess
    from oclpy.frontend.options import parse_build_options

    with tempfile.TemporaryDirectory(prefix="oclpy-pp-includes-") as folder:
        kernel = write_kernel(Path(folder), args.includes, args.lines)
        source, options = kernel.read_text(), parse_build_options("")
        times = []
        for _ in range(args.repeat):
            diags = DiagnosticEngine()
            start = time.perf_counter()
            preprocess(source, str(kernel), options, diags)
            times.append(time.perf_counter() - start)
            if diags.diagnostics:
                raise SystemExit(diags.render())
    print(f"{2 * args.includes} includes of a {args.lines}-line header: median {statistics.median(times) * 1e3:.1f} ms, "
          f"best {min(times) * 1e3:.1f} ms, first {times[0] * 1e3:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
