"""The kernel sets the compile-time measures use (`tools/compile_stages.py` runs them).

A `Kernel` is a program source with its build options. The sets:
- `real`: the programs of the real suite (`benchmarks/real`), as each case builds them;
- `corpus`: every `every`-th kernel of the fetched corpus (`tools/corpus`,
  `~/.cache/oclpy-corpus`), in the manifest's order;
- `generated`: `compile_time.py`'s generators (lines, accesses, functions, switch)
  at 1,000 and 4,000 lines.

`run_stages` (oclpy's cpu compile path stage by stage, timed) and `Kernel` live
in tools/compile_stages.py, below both the benchmarks and tools/ir_identity.py.
"""

from __future__ import annotations

from typing import Callable

from tools.compile_stages import Kernel, corpus_kernels

from . import compile_time

GENERATED = ("lines", "accesses", "functions", "switch")
GENERATED_SIZES = (1000, 4000)


def real_kernels() -> list[Kernel]:
    from .real.suite import MAKERS

    out = []
    for name, make in MAKERS.items():
        case = make(True)
        out.append(Kernel("real", name, case.source, case.options))
    return out


def generated_kernels(sizes: tuple[int, ...] = GENERATED_SIZES) -> list[Kernel]:
    out = []
    for name in GENERATED:
        make = compile_time.CASES[name][0]
        out += [Kernel("generated", f"{name}-{n}", make(n), "") for n in sizes]
    return out


SETS: dict[str, Callable[[], list[Kernel]]] = {
    "real": real_kernels,
    "corpus": corpus_kernels,
    "generated": generated_kernels,
}
