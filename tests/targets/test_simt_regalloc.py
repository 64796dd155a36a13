"""The simt register allocator: allocated kernels run on the simulator as their virtual versions do.

Each kernel runs three ways: with virtual registers (the simulator gives
each its own place), allocated for the default register files and allocated
for the smallest files the ABI allows (which forces spills); all three give
the NumPy result, and every allocated function passes the checker.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest

from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.calling_convention import callee_saved, spill_pool
from oclpy.targets.simt.frame_lowering import lower_frames
from oclpy.targets.simt.linear_scan import AllocError
from oclpy.targets.simt.pseudo_lowering import lower_pseudos
from oclpy.targets.simt.regalloc import allocate_function
from oclpy.targets.simt.machine import PReg
from tests.targets.simt_regalloc_harness import (
    DEFAULT, TINY, RandomKernel, Reference, allocate_checked, calls, diamond, inputs, loop, run, scalar_pressure,
    vector_pressure, wide,
)

PROGRAMS: dict[str, Callable[[], tuple[str, Reference]]] = {
    "vector_pressure": lambda: vector_pressure(24),
    "scalar_pressure": lambda: scalar_pressure(40),
    "wide": lambda: wide(6, 3),
    "loop": lambda: loop(20, 5),
    "diamond": lambda: diamond(18),
    "calls": lambda: calls(8, 6),
}
KERNELS = {"vector_pressure": "pressure", "scalar_pressure": "scalars", "wide": "wide", "loop": "loop",
           "diamond": "diamond", "calls": "calls"}


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_allocated_code_computes_what_the_virtual_code_does(program: str) -> None:
    text, reference = PROGRAMS[program]()
    x = inputs()
    want = reference(x, np.arange(len(x)) // 64 * 64).astype(np.uint32)
    name = KERNELS[program]
    for files in (DEFAULT, TINY):
        virtual, allocated = allocate_checked(text, files)
        lower_frames(allocated)  # the rest of the pipeline: SP moves past each frame, slots resolved
        lower_pseudos(allocated, files)
        np.testing.assert_array_equal(run(virtual, name, x, files), want)
        np.testing.assert_array_equal(run(allocated, name, x, files), want, err_msg=f"files {files}")


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_tiny_files_spill_and_default_files_do_not(program: str) -> None:
    text, _ = PROGRAMS[program]()
    _, small = allocate_checked(text, TINY)
    _, large = allocate_checked(text, DEFAULT)
    assert sum(int(f.attrs["spill_slots"]) for f in small.functions) > 0
    assert all(f.attrs["spill_slots"] == 0 for f in large.functions)


def registers(module_fn) -> list[PReg]:  # type: ignore[no-untyped-def]
    return [r for i in module_fn.instrs() for r in i.registers() if isinstance(r, PReg)]


@pytest.mark.parametrize("files", [DEFAULT, TINY], ids=["default", "tiny"])
def test_pairs_and_tuples_stay_aligned_under_pressure(files: dict[str, int]) -> None:
    _, allocated = allocate_checked(wide(6, 3)[0], files)
    regs = registers(allocated.functions[0])
    assert any(r.width == 128 and r.file == "v" for r in regs)
    for r in regs:
        assert r.problem() is None, r
        assert r.index + r.count <= files[r.file]


def test_spilled_operands_of_one_instruction_take_different_pool_registers() -> None:
    _, allocated = allocate_checked(vector_pressure(30)[0], TINY)
    pool = set(spill_pool("v", TINY["v"]))
    fn = allocated.functions[0]
    reloads_before: list[PReg] = []
    for instr in fn.instrs():
        if instr.op.startswith("scratch_load"):
            reloads_before.append(instr.operands[0])  # type: ignore[arg-type]
            continue
        if instr.op.startswith("scratch_store"):
            continue
        assert len(set(reloads_before)) == len(reloads_before), instr
        for reg in reloads_before:
            assert set(reg.units()) <= pool
        reloads_before = []
    assert fn.attrs["spill_slots"] > 0


def test_values_live_across_calls_sit_in_callee_saved_registers_and_are_saved() -> None:
    _, allocated = allocate_checked(calls(8, 6)[0], DEFAULT)
    outer = allocated.function("outer")
    saved = set(callee_saved("v", DEFAULT["v"]))
    uses_saved = {u for r in registers(outer) if r.file == "v" for u in r.units() if u in saved}
    assert len(uses_saved) >= 6
    entry = outer.blocks[0].instrs
    stores = [i for i in entry if i.op == "scratch_store_b32"]
    assert {i.operands[1].index for i in stores} >= uses_saved  # type: ignore[union-attr]
    assert allocated.function("madd").attrs["frame_bytes"] == 0  # a leaf using only caller-saved ones


@pytest.mark.parametrize("seed", range(12))
def test_random_kernels_give_the_same_bits_allocated_and_virtual(seed: int) -> None:
    text = RandomKernel(seed, size=30).text()
    x = inputs(groups=2, seed=seed)
    for files in (DEFAULT, TINY):
        virtual, allocated = allocate_checked(text, files)
        want = run(virtual, "random", x, files)
        np.testing.assert_array_equal(run(allocated, "random", x, files), want, err_msg=f"files {files}")


def test_bad_input_is_an_alloc_error_that_says_why() -> None:
    fn = parse_asm("kernel @k {\nentry:\n  v_mov_b32 v20, 1\n  s_endpgm\n}\n").function("k")
    with pytest.raises(AllocError, match="names v20, a register of the spill pool"):
        allocate_function(fn, TINY)
    with pytest.raises(AllocError, match="vector register file of 20 registers: must be a multiple of 4 and at least 24"):
        allocate_function(fn, {"s": 48, "v": 20})
    allocate_function(fn, DEFAULT, check=True)


@pytest.mark.parametrize("program", sorted(PROGRAMS))
def test_live_sets_from_block_summaries_are_the_backward_walks(program: str) -> None:
    """The dataflow solves each block through its summary (what it reads first, what each exit
    finds written); a plain backward walk over every instruction to the fixed point agrees."""
    from oclpy.targets.simt.asm_parser import parse_asm as parse
    from oclpy.targets.simt.live_intervals import block_numbers, effects, exits, solve_live_sets

    for fn in parse(PROGRAMS[program]()[0]).functions:
        per = [effects(i, DEFAULT) for i in fn.instrs()]
        firsts = block_numbers(fn)
        names = [b.name for b in fn.blocks]
        live_in: dict[str, set] = {n: set() for n in names}
        changed = True
        while changed:
            changed = False
            for k in reversed(range(len(names))):
                branches, fall = exits(fn, k)
                live = set(live_in[fall]) if fall else set()
                for j in reversed(range(len(fn.blocks[k].instrs))):
                    live |= set().union(*(live_in[t] for at, t in branches if at == j))
                    uses, defs = per[firsts[k] + j]
                    live = (live - set(defs)) | set(uses)
                if live != live_in[names[k]]:
                    live_in[names[k]], changed = live, True
        assert solve_live_sets(fn, per, firsts)[0] == [live_in[n] for n in names]
