"""The allocation checker catches planted allocator bugs, with a message naming the instruction and register."""

from __future__ import annotations

import copy

import pytest

from oclpy.targets.simt.alloc_checker import AllocCheckError, assert_allocation, check_allocation
from oclpy.targets.simt.asm_parser import parse_asm
from oclpy.targets.simt.calling_convention import STACK_POINTER
from oclpy.targets.simt.machine import Imm, MFunction, MInstr, PReg, Slot
from oclpy.targets.simt.regalloc import allocate_function
from tests.targets.simt_regalloc_harness import DEFAULT, TINY, calls, diamond, vector_pressure

SMALL = """
kernel @k {
entry:
  v_mov_b32 %v1, 5
  v_mov_b32 %v2, 7
  v_sub_u32 %v3, %v1, %v2
  v_add_u32 %v4, %v3, %v1
  v_mov_b32 %v5, 0
  p_join %v6:64, %v4, %v5
  global_store_b32 %v6:64, %v3, 0
  s_endpgm
}
"""


def allocated(text: str, name: str, files: dict[str, int]) -> tuple[MFunction, MFunction]:
    before = parse_asm(text).function(name)
    after = allocate_function(before, files).function
    assert check_allocation(before, after, files) == []
    return before, copy.deepcopy(after)


def find(fn: MFunction, op: str, nth: int = 0) -> tuple[list[MInstr], int]:
    """The block's instruction list and index of the nth instruction `op`."""
    seen = 0
    for block in fn.blocks:
        for i, instr in enumerate(block.instrs):
            if instr.op == op:
                if seen == nth:
                    return block.instrs, i
                seen += 1
    raise LookupError(op)


def problems(before: MFunction, after: MFunction, files: dict[str, int]) -> str:
    found = check_allocation(before, after, files)
    assert found, "the checker missed a planted bug"
    return "\n".join(found)


def test_swapped_registers_in_one_instruction() -> None:
    before, after = allocated(SMALL, "k", DEFAULT)
    instrs, i = find(after, "v_sub_u32")
    ops = instrs[i].operands
    ops[1], ops[2] = ops[2], ops[1]
    message = problems(before, after, DEFAULT)
    assert f"'v_sub_u32 {ops[0]}, {ops[1]}, {ops[2]}' (for 'v_sub_u32 %v3, %v1, %v2')" in message
    assert f"{ops[1]} should hold %v1 but holds %v2" in message


def test_a_register_reused_while_its_value_is_live() -> None:
    before, after = allocated(SMALL, "k", DEFAULT)
    instrs, i = find(after, "v_mov_b32", 1)  # %v2 written over %v1, which is read later
    v1 = find(after, "v_mov_b32", 0)
    instrs[i].operands[0] = v1[0][v1[1]].operands[0]
    assert "should hold %v1 but holds %v2" in problems(before, after, DEFAULT)


def test_a_dropped_reload() -> None:
    before, after = allocated(vector_pressure(24)[0], "pressure", TINY)
    instrs, i = find(after, "scratch_load_b32", 2)
    dropped = instrs.pop(i)
    message = problems(before, after, TINY)
    assert f"{dropped.operands[0]} should hold" in message and "no known value on some path" in message
    assert f"block 'entry', '{instrs[i].op} " in message  # the instruction that read it


def test_a_spill_stored_to_the_wrong_slot() -> None:
    before, after = allocated(vector_pressure(24)[0], "pressure", TINY)
    instrs, i = find(after, "scratch_store_b32", 1)
    slot = instrs[i].operands[2]
    assert isinstance(slot, Slot)
    other = find(after, "scratch_store_b32", 2)
    instrs[i].operands[2] = other[0][other[1]].operands[2]
    message = problems(before, after, TINY)
    assert "should hold" in message


def test_a_value_left_in_a_caller_saved_register_across_a_call() -> None:
    before, after = allocated(calls(8, 6)[0], "calls", DEFAULT)
    instrs, i = find(after, "s_mul_i32", 1)  # %s20 = group base * 3, read after the call
    kept = instrs[i].operands[0]
    assert isinstance(kept, PReg) and kept.index >= 36  # callee-saved
    clobbered = PReg("s", 20)
    for instr in after.instrs():
        instr.operands = [clobbered if o == kept else o for o in instr.operands]
    message = problems(before, after, DEFAULT)
    assert f"'v_add_u32 v0, v0, s20' (for 'v_add_u32 %v8, %v8, %s20'): s20 should hold %s20 " \
           "but holds no known value on some path" in message


def test_a_missing_restore_of_a_callee_saved_register() -> None:
    before, after = allocated(calls(8, 6)[0], "outer", DEFAULT)
    instrs, i = find(after, "scratch_load_b32", 0)
    while instrs[i].op == "scratch_load_b32" and instrs[i + 1].op != "s_setpc_b64":
        i += 1
    restored = instrs.pop(i).operands[0]
    message = problems(before, after, DEFAULT)
    assert f"callee-saved {restored} should hold its incoming value at the return" in message


def test_the_frame_addressed_after_sp_moved() -> None:
    before, after = allocated(calls(8, 6)[0], "calls", TINY)
    instrs, i = find(after, "scratch_store_b32")
    instrs.insert(i, MInstr("s_add_u32", [STACK_POINTER, STACK_POINTER, Imm(48)]))
    message = problems(before, after, TINY)
    assert "addresses the frame from s32, which holds $s32+48, not the frame base" in message


def test_a_pool_register_holds_a_value_for_one_instruction_only() -> None:
    before = parse_asm("""
kernel @k {
entry:
  v_mov_b32 %v1, 3
  v_add_u32 %v2, %v1, 1
  v_add_u32 %v3, %v1, 2
  global_store_b32 0, %v3, 0
  s_endpgm
}
""").function("k")
    after = parse_asm("""
kernel @k {
  %stack.0 = slot 4, align 4
entry:
  v_mov_b32 v23, 3
  scratch_store_b32 s32, v23, %stack.0
  scratch_load_b32 v23, s32, %stack.0
  v_add_u32 v0, v23, 1
  v_add_u32 v1, v23, 2
  global_store_b32 0, v1, 0
  s_endpgm
}
""").function("k")
    message = problems(before, after, TINY)
    assert "'v_add_u32 v1, v23, 2' (for 'v_add_u32 %v3, %v1, 2'): v23 should hold %v1" in message
    reload = MInstr("scratch_load_b32", [PReg("v", 23), PReg("s", 32), Slot(0)])
    after.blocks[0].instrs.insert(4, reload)
    assert check_allocation(before, after, TINY) == []


def test_an_instruction_the_allocator_could_not_have_written() -> None:
    before, after = allocated(SMALL, "k", DEFAULT)
    after.blocks[0].instrs.insert(1, MInstr("v_mov_b32", [PReg("v", 9), PReg("v", 0)]))
    assert "'v_mov_b32 v9, v0' is neither an original instruction nor spill code" in problems(before, after, DEFAULT)
    with pytest.raises(AllocCheckError, match="register allocation check failed"):
        assert_allocation(before, after, DEFAULT)


def test_a_value_the_original_leaves_unwritten_on_one_path_is_not_an_allocator_bug() -> None:
    before, after = allocated(diamond(6)[0], "diamond", DEFAULT)  # %v8 is unwritten when both sides are skipped
    instrs, i = find(after, "v_xor_b32")
    instrs[i].operands[2] = instrs[i].operands[1]
    assert "should hold %v8" in problems(before, after, DEFAULT)
