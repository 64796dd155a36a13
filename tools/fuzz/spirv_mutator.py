"""A structure-aware SPIR-V mutator, and a fuzz loop over oclpy's SPIR-V frontend.

Bit flips mostly break the header or a word count, which the binary parser
refuses at once. This mutator works on instruction records instead, so a
mutant is a well-formed word stream whose *meaning* is wrong, the input that
reaches the reader, the translator and the code generator: an operand
dropped or added, an id swapped for another (a type for a value, a label for
a constant) or pushed past the id bound, an instruction deleted, duplicated,
moved or given another opcode, a literal (a decoration's alignment, a type's
width, a constant, a mask) replaced by an interesting value, a decoration
added, the header's id bound lowered.

`fuzz(seeds, cases, seed)` mutates the seed modules (1 to 3 mutations per
case) and builds each mutant with `compile_spirv` (and, when `backend` is
set, the modules that translate go on through the cpu target's LLVM code
generation); a case's outcome is "ok" (it built), "diagnostic" (a clean
build error) or "internal" (anything else: an exception, or a log saying
internal compiler error), with the first reproducer of each internal kind
kept; from the command line each case runs in a worker process with a time
limit ("hang" and "died" are findings too: the loop is `driver.py`'s). Run
offline with

    python -m tools.fuzz.spirv_mutator --cases 100000 [--jobs 2] [--backend] [--minutes M]

(from the repository root); the tests run it for a few thousand cases.
"""

from __future__ import annotations

import argparse
import functools
import random
import sys
from pathlib import Path
from typing import Callable, Iterator

from .driver import FuzzReport, add_arguments, campaign, internal_detail, run_here, run_in_worker, saver

MAGIC = 0x07230203
INTERESTING = (0, 1, 2, 3, 4, 7, 8, 15, 16, 31, 32, 33, 63, 64, 65, 128, 255, 0x7FFF, 0xFFFF,
               0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 1 << 20, 1 << 30)
DECORATIONS = ((44, 1), (11, 1), (6, 1), (35, 1), (38, 1), (39, 1), (40, 1), (21, 0), (22, 0),
               (19, 0), (10, 0), (28, 0), (4469, 0), (4470, 0), (41, 2))  # (decoration, literals)

Record = tuple[int, list[int]]  # (opcode, operand words)


def split(data: bytes) -> tuple[list[int], list[Record]]:
    """(header words, instruction records) of a little-endian module; stops at a bad count."""
    words = [int.from_bytes(data[k:k + 4], "little") for k in range(0, len(data) - len(data) % 4, 4)]
    header, records, i = words[:5], [], 5
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0 or i + count > len(words):
            break
        records.append((opcode, words[i + 1:i + count]))
        i += count
    return header, records


def join(header: list[int], records: list[Record]) -> bytes:
    words = list(header)
    for opcode, ops in records:
        words.append(((len(ops) + 1) & 0xFFFF) << 16 | opcode)
        words += ops
    return b"".join((w & 0xFFFFFFFF).to_bytes(4, "little") for w in words)


class Mutator:
    """Mutations of one module's records, choosing ids among those the module uses."""

    def __init__(self, rng: random.Random, donors: list[list[Record]]) -> None:
        self.rng = rng
        self.donors = donors
        self.table: list[Callable[[list[int], list[Record]], None]] = [
            self.drop_operand, self.add_operand, self.swap_id, self.id_past_bound,
            self.delete, self.duplicate, self.move, self.change_opcode, self.literal,
            self.decorate, self.lower_bound, self.transplant, self.truncate_operands,
        ]

    def mutate(self, data: bytes, count: int) -> bytes:
        header, records = split(data)
        for _ in range(count):
            if records:
                self.rng.choice(self.table)(header, records)
        return join(header, records)

    # -- helpers ----------------------------------------------------------------------
    def pick(self, records: list[Record], need_ops: bool = True) -> int:
        choices = [k for k, (_, ops) in enumerate(records) if ops or not need_ops]
        return self.rng.choice(choices) if choices else -1

    def some_id(self, header: list[int], records: list[Record]) -> int:
        """An id the module defines or uses, usually, else any id below the bound."""
        k = self.pick(records)
        if k >= 0 and self.rng.random() < 0.8:
            ops = records[k][1]
            return self.rng.choice(ops) % max(header[3], 1) or 1
        return self.rng.randrange(1, max(header[3], 2))

    # -- mutations --------------------------------------------------------------------
    def drop_operand(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records)
        if k >= 0:
            records[k][1].pop(self.rng.randrange(len(records[k][1])))

    def add_operand(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records, need_ops=False)
        if k >= 0:
            ops = records[k][1]
            value = self.some_id(header, records) if self.rng.random() < 0.7 else self.rng.choice(INTERESTING)
            ops.insert(self.rng.randrange(len(ops) + 1), value)

    def swap_id(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records)
        if k >= 0:
            ops = records[k][1]
            ops[self.rng.randrange(len(ops))] = self.some_id(header, records)

    def id_past_bound(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records)
        if k >= 0:
            ops = records[k][1]
            ops[self.rng.randrange(len(ops))] = header[3] + self.rng.choice((0, 1, 1000))

    def truncate_operands(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records)
        if k >= 0:
            del records[k][1][self.rng.randrange(len(records[k][1])):]

    def delete(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records, need_ops=False)
        if k >= 0:
            records.pop(k)

    def duplicate(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records, need_ops=False)
        if k >= 0:
            opcode, ops = records[k]
            records.insert(self.rng.randrange(len(records) + 1), (opcode, list(ops)))

    def move(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records, need_ops=False)
        if k >= 0:
            record = records.pop(k)
            near = max(0, min(len(records), k + self.rng.randint(-8, 8)))
            records.insert(near if self.rng.random() < 0.8 else self.rng.randrange(len(records) + 1), record)

    def change_opcode(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records, need_ops=False)
        if k >= 0:
            if self.rng.random() < 0.5:
                opcode = self.rng.choice(records)[0]  # one the module uses: more often meaningful
            else:
                opcode = self.rng.choice(self.rng.choice(self.donors))[0]
            records[k] = (opcode, records[k][1])

    def literal(self, header: list[int], records: list[Record]) -> None:
        k = self.pick(records)
        if k >= 0:
            ops = records[k][1]
            i = self.rng.randrange(len(ops))
            ops[i] = self.rng.choice(INTERESTING) if self.rng.random() < 0.8 else ops[i] ^ (1 << self.rng.randrange(32))

    def decorate(self, header: list[int], records: list[Record]) -> None:
        dec, literals = self.rng.choice(DECORATIONS)
        ops = [self.some_id(header, records), dec] + [self.rng.choice(INTERESTING) for _ in range(literals)]
        first_type = next((k for k, (op, _) in enumerate(records) if 19 <= op <= 39), len(records))
        records.insert(first_type, (71, ops))

    def lower_bound(self, header: list[int], records: list[Record]) -> None:
        header[3] = self.rng.randrange(1, max(header[3], 2))

    def transplant(self, header: list[int], records: list[Record]) -> None:
        donor = self.rng.choice(self.donors)
        if donor:
            opcode, ops = self.rng.choice(donor)
            records.insert(self.rng.randrange(len(records) + 1), (opcode, list(ops)))


def build_one(data: bytes, backend: bool = False) -> tuple[str, str]:
    """("ok" | "diagnostic" | "internal", detail) of building one module."""
    from oclpy.compiler import host_target
    from oclpy.compiler.toolchain import compile_program
    from oclpy.diagnostics import CompileError
    from oclpy.frontend.spirv.spirv_driver import compile_spirv

    try:
        if backend:
            compile_program(data, "", host_target(), filename="f.spv")  # no build cache: every case compiles
        else:
            compile_spirv(data, filename="f.spv")
    except CompileError as exc:
        if "internal compiler error" in exc.log or not exc.log.startswith(("f.spv: error: ", "error: ")):
            return "internal", exc.log.splitlines()[0][:200]
        return "diagnostic", ""
    except RecursionError:
        return "internal", "RecursionError"
    except Exception as exc:  # the point of the exercise: any of these is a bug
        return "internal", internal_detail(exc)
    return "ok", ""


def build_case(data: bytes, backend: bool = False) -> tuple[str, str]:
    """`build_one` of a case (the driver's form)."""
    return build_one(data, backend)


def mutants(seeds: list[bytes], cases: int, seed: int) -> Iterator[bytes]:
    """`cases` mutants of `seeds`, the same for the same `seed`."""
    rng = random.Random(seed)
    mutator = Mutator(rng, [split(s)[1] for s in seeds])
    for _ in range(cases):
        yield mutator.mutate(rng.choice(seeds), rng.choice((1, 1, 2, 3)))


def fuzz(seeds: list[bytes], cases: int, seed: int = 0, backend: bool = False,
         time_limit: float | None = None) -> FuzzReport:
    """In this process: no time limit per case (the tests' way)."""
    return run_here(mutants(seeds, cases, seed), functools.partial(build_case, backend=backend), time_limit)


def default_seeds() -> list[bytes]:
    """SPIR-V of the kernels the SPIR-V tests run (LLVM IR -> llvmlite's SPIR-V backend)."""
    root = Path(__file__).resolve().parents[2]
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    from tests.e2e import test_spirv_kernels as kernels
    from tests.frontend.spirv.spirv_helpers import from_llvm, kernel_module

    texts = [getattr(kernels, name) for name in ("INTS", "FLOATS", "REDUCE", "MIXED", "MISC", "HALVES",
                                                 "BYVAL_HELPER", "KERNEL_CALLS", "FENCES", "ATOMICS",
                                                 "ASYNC_COPY", "PRINTF")]
    return [from_llvm(t) for t in texts] + [kernel_module()]


def _job(chunk: tuple) -> FuzzReport:
    cases, seed, time_limit, save, backend, timeout = chunk
    return run_in_worker(mutants(default_seeds(), cases, seed), functools.partial(build_case, backend=backend),
                         timeout, time_limit, saver(save, str(seed), _save))


def _save(path: Path, kind: str, data: bytes) -> None:
    path.with_suffix(".spv").write_bytes(data)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_arguments(parser)
    args = parser.parse_args(argv)
    return campaign(args, _job, (args.backend, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
