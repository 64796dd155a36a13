"""Addresses in program-scope data on simt (constant_data.py, simt_program.load_data): the
cpu cases of tests/frontend/test_address_constants.py (`&t[2]`, `t + 1`, `&s.f`,
`"hello" + 2`, tables of pointers; OpenCL C 2.0's program-scope and static pointers) on
simt with the same results as the cpu device, at -O2 and -O0; a table of pointers read
through a helper kept out of line at a per-lane index; a `__global` pointer variable that one
launch points elsewhere and the next reads (the loader relocates once, at the program's first
launch); and the relocations themselves."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.frontend.driver import compile_to_ir
from oclpy.targets.simt.constant_data import layout_data
from oclpy.targets.simt.memory_model import SIMT_LAYOUT
from oclpy.targets.simt.simt_program import Relocation, relocated
from tests.frontend.test_address_constants import CL2, CL2_EXPECTED, EXPECTED, KERNEL, TABLE

TABLE_OF_POINTERS = TABLE + """constant int *constant tab[4] = { &t[0], &t[3], t + 1, &s.c[2] };
__attribute__((noinline)) int get(int i) { return *tab[i & 3] + text[i % 3]; }
kernel void k(global int *o) {
    int g = get_global_id(0);
    o[g] = get(g) * 1000 + *entries[g & 1].p;
}"""

POINTED_ELSEWHERE = """constant int t[4] = {10, 20, 30, 40};
constant int *p = &t[2];
int counter = 0;
global int *pc = &counter;
kernel void k(global int *o, int move) {
    if (move) { p = &t[3]; pc = &counter + 0; }
    *pc += 1;
    o[0] = *p; o[1] = counter;
}"""


def device(kind: str):  # type: ignore[no-untyped-def]
    return next(d for d in cl.get_platforms()[0].get_devices() if d.kind == kind)


def run(kind: str, src: str, n: int, options: str = "", size: int = 1) -> list[int]:
    ctx = cl.Context([device(kind)])
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, src).build(options=options)
    out = np.zeros(max(n, size), np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(queue, (size,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    return out.tolist()


@pytest.mark.parametrize("options", ["", "-cl-opt-disable"])
def test_addresses_past_a_globals_start_on_simt(options: str) -> None:
    assert run("simt", TABLE + KERNEL, 8, options) == EXPECTED == run("cpu", TABLE + KERNEL, 8, options)


@pytest.mark.parametrize("options", ["-cl-std=CL2.0", "-cl-std=CL2.0 -cl-opt-disable"])
def test_opencl_c_2_program_scope_and_static_pointers_on_simt(options: str) -> None:
    assert run("simt", CL2, 5, options) == CL2_EXPECTED == run("cpu", CL2, 5, options)


def test_a_table_of_pointers_through_a_helper_at_a_per_lane_index() -> None:
    got = run("simt", TABLE_OF_POINTERS, 0, size=16)
    texts = [ord(c) for c in "llo"]
    targets = [10, 40, 20, 9]
    want = [(targets[g & 3] + texts[g % 3]) * 1000 + (40 if g % 2 == 0 else 9) for g in range(16)]
    assert got == want == run("cpu", TABLE_OF_POINTERS, 0, size=16)


@pytest.mark.parametrize("kind", ["simt", "cpu"])
def test_a_pointer_variable_moved_by_one_launch_stays_moved(kind: str) -> None:
    """The loader writes the initial addresses once per program: a launch that points `p`
    elsewhere is seen by the next launch, which must not find the initial address again."""
    ctx = cl.Context([device(kind)])
    queue = cl.CommandQueue(ctx)
    prg = cl.Program(ctx, POINTED_ELSEWHERE).build(options="-cl-std=CL2.0")
    out = np.zeros(2, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, out.nbytes)
    seen = []
    for move in (0, 1, 0):
        prg.k(queue, (1,), None, buf, np.int32(move))
        cl.enqueue_copy(queue, out, buf)
        seen.append(out.tolist())
    assert seen == [[30, 1], [40, 2], [40, 3]]


def test_each_address_slot_is_a_relocation() -> None:
    module = compile_to_ir(TABLE + KERNEL).module
    data = layout_data(module, SIMT_LAYOUT)
    at = {gv.name: off for gv, off in data.constant_offsets.items()}
    relocations = set(data.relocations)
    assert Relocation("constant", at["third"], "constant", at["t"] + 8) in relocations
    assert Relocation("constant", at["back"], "constant", at["t"] + 4) in relocations
    assert Relocation("constant", at["field"], "constant", at["s"] + 4) in relocations
    assert Relocation("constant", at["entries"], "constant", at["t"] + 12) in relocations
    assert Relocation("constant", at["entries"] + 16, "constant", at["s"] + 16) in relocations
    assert len(data.relocations) == 8 and not data.globals
    for r in data.relocations:  # the slots are zero until the loader fills them
        assert data.constants[r.offset:r.offset + 8] == bytes(8)


def test_the_loader_writes_base_plus_addend() -> None:
    from oclpy.targets.simt.simt_program import SimtProgram
    from oclpy.targets.simt.machine import MModule
    program = SimtProgram(MModule(), constant_data=bytes(24), global_data=bytes(16),
                          relocations=[Relocation("constant", 0, "global", 0), Relocation("constant", 8, "constant", 20),
                                       Relocation("global", 8, "constant", 4)])
    constants, globals_ = relocated(program, 0x1_0000_0000, 0x5_0000_0000)
    assert np.frombuffer(constants, "<u8").tolist() == [0x5_0000_0000, 0x1_0000_0014, 0]
    assert np.frombuffer(globals_, "<u8").tolist() == [0, 0x1_0000_0004]


def test_an_address_before_its_variable_is_relocated_too() -> None:
    """`t - 1` (an address constant, not dereferenced) points before the block's first byte
    when `t` starts the block: a negative addend, kept through the build cache's record."""
    src = """constant int t[4] = {10, 20, 30, 40};
constant int *constant before = t - 1;
kernel void k(global int *o) { o[0] = before[2]; o[1] = *(before + 4); }"""
    program = compile_to_ir(src).module
    data = layout_data(program, SIMT_LAYOUT)
    assert Relocation("constant", 16, "constant", -4) in data.relocations
    assert run("simt", src, 2) == [20, 40] == run("cpu", src, 2)
