"""simt machine code: the opcode table, the data, and the text form (round trip and errors)."""

from __future__ import annotations

import pytest

from oclpy.targets.simt.asm_parser import AsmParseError, parse_asm
from oclpy.targets.simt.asm_printer import format_module
from oclpy.targets.simt.calling_convention import (
    RETURN_ADDRESS, ArgClass, allocatable, assign_arguments, assign_returns, callee_saved, caller_saved,
    kernarg_size, spill_pool,
)
from oclpy.targets.simt.isa import OPS, signature
from oclpy.targets.simt.machine import (
    EXEC, Imm, Label, MInstr, PReg, Slot, VReg, frame_layout, instr_problems, successors,
)
from oclpy.targets.simt.memory_model import NULL32, SIMT_LAYOUT, from_generic, to_generic
from oclpy.ir.types import AddressSpace, PtrType

TEXT = """\
kernel @k kernarg_bytes=24 note="two words" {
  %stack.0 = slot 16, align 16
  %stack.1 = slot 4, align 4
entry:
  s_load_b128 s[4:7], s[0:1], 0
  s_load_b32 s8, s[0:1], 16
  v_add_f32 %v1, v0, 0.5
  v_mul_f32 %v1, %v1, -inf
  v_cndmask_b32 %v2, %v1, nan, s[10:11]
  v_add_u64 %v3:64, %v3:64, -1
  scratch_store_b32 s32, %v1, %stack.1
  v_cmp_olt_f32 %s4:64, %v1, 1e-07
  s_and_saveexec_b64 %s5:64, %s4:64
  s_cbranch_execz done
then:
  s_call_b64 s[30:31], @f uses[s0, v[0:1]] defs[v0]
  p_join %v6:128, %v3:64, v[0:1]
done:
  s_mov_b64 exec, %s5:64
  s_endpgm
}

func @f {
entry:
  p_split %v1, %v2, v[0:1]
  p_copy %v3, %s7
  p_undef %s8:256
  s_setpc_b64 s[30:31]
}
"""


def test_the_text_form_round_trips() -> None:
    module = parse_asm(TEXT)
    assert format_module(module) == TEXT
    assert format_module(parse_asm(format_module(module))) == TEXT


def test_parsed_operands_are_plain_data() -> None:
    fn = parse_asm(TEXT).function("k")
    assert fn.kind == "kernel" and fn.attrs == {"kernarg_bytes": 24, "note": "two words"}
    instrs = fn.instrs()
    assert instrs[0].operands == [PReg("s", 4, 128), PReg("s", 0, 64), Imm(0)]
    assert instrs[2].operands == [VReg("v", 1), PReg("v", 0), Imm(0.5)]
    assert instrs[6].operands[2] == Slot(1)
    assert instrs[9].operands == [Label("done")]
    call = instrs[10]
    assert call.implicit_uses == [PReg("s", 0), PReg("v", 0, 64)] and call.implicit_defs == [PReg("v", 0)]
    assert [b.name for b in fn.blocks] == ["entry", "then", "done"]
    assert successors(fn, 0) == ["done", "then"] and successors(fn, 1) == ["done"] and successors(fn, 2) == []
    assert frame_layout(fn) == ([0, 16], 32)


def test_defs_and_uses_for_an_allocator_and_a_checker() -> None:
    fn = parse_asm(TEXT).function("k")
    saveexec = fn.instrs()[8]
    assert saveexec.defs() == [(0, VReg("s", 5, 64))] and saveexec.uses() == [(1, VReg("s", 4, 64))]
    assert OPS["s_and_saveexec_b64"].exec == "both" and OPS["s_and_saveexec_b64"].scc == "def"
    assert saveexec.reads() == [VReg("s", 4, 64), EXEC] and saveexec.writes() == [VReg("s", 5, 64), EXEC]
    call = fn.instrs()[10]
    assert call.reads() == [PReg("s", 0), PReg("v", 0, 64)] and call.writes() == [PReg("s", 30, 64), PReg("v", 0)]
    saveexec.set_operand(0, PReg("s", 12, 64))
    assert str(saveexec.operands[0]) == "s[12:13]" and instr_problems(saveexec) == []
    split = parse_asm(TEXT).function("f").instrs()[0]
    assert [i for i, _ in split.defs()] == [0, 1] and [i for i, _ in split.uses()] == [2]
    join = fn.instrs()[11]
    assert [i for i, _ in join.defs()] == [0] and [i for i, _ in join.uses()] == [1, 2]


def test_the_table_states_widths_and_alignment() -> None:
    assert [f.bits for f in OPS["s_load_b128"].fields] == [128, 64, 32]
    assert [f.type for f in OPS["v_fma_f64"].fields] == ["f64"] * 4
    assert OPS["global_atomic_cmpswap_b64"].memory.atomic == "cmpswap"
    assert len(OPS["global_atomic_cmpswap_b64"].fields) == 5
    assert OPS["s_branch"].terminator and not OPS["s_cbranch_scc1"].terminator
    assert signature(OPS["v_add_f32"]).split() == [
        "v_add_f32", "valu", "d:f32[vreg],", "s:f32[imm|slot|sreg|vreg],", "s:f32[imm|slot|sreg|vreg]", "exec=use"]
    assert PReg("s", 5, 64).problem() == "register s[5:6] must start at a multiple of 2"
    assert PReg("v", 6, 128).problem() == "register v[6:9] must start at a multiple of 4"
    assert instr_problems(MInstr("s_mov_b64", [EXEC, Imm(-1)])) == []
    assert instr_problems(MInstr("v_add_u32", [PReg("s", 1), PReg("v", 1), PReg("v", 2)])) == [
        "operand 1 of v_add_u32: expected a vector register, found a scalar register 's1'"]


def test_the_calling_convention_table() -> None:
    args = [ArgClass("s", 32), ArgClass("s", 64), ArgClass("v", 32), ArgClass("v", 128), ArgClass("s", 128)]
    places, stack = assign_arguments(args)
    assert [str(p.reg) for p in places] == ["s0", "s[2:3]", "v0", "v[4:7]", "s[4:7]"] and stack == 0
    places, stack = assign_arguments([ArgClass("v", 64)] * 9 + [ArgClass("v", 32)])
    assert [p.stack_offset for p in places[8:]] == [0, 8] and stack == 16
    assert assign_returns([ArgClass("v", 128)] * 5) is None
    assert RETURN_ADDRESS == PReg("s", 30, 64)
    assert callee_saved("s", 48) == (32, 33, 34, 36, 37, 38, 39)
    assert list(spill_pool("s", 48)) == list(range(40, 48))
    assert 30 in caller_saved("s", 48) and 35 in caller_saved("s", 48) and 32 not in caller_saved("s", 48)
    assert 30 not in allocatable("s", 128) and 119 in allocatable("s", 128) and 120 not in allocatable("s", 128)
    assert kernarg_size(28) == 112


def test_the_memory_model() -> None:
    assert SIMT_LAYOUT.size_of(PtrType(AddressSpace.PRIVATE)) == 4
    assert SIMT_LAYOUT.size_of(PtrType(AddressSpace.GENERIC)) == 8
    assert SIMT_LAYOUT.null_value[AddressSpace.LOCAL] == NULL32
    assert to_generic(AddressSpace.LOCAL, NULL32) == 0 and to_generic(AddressSpace.LOCAL, 0) == 0x1_0000_0000_0000
    assert from_generic(AddressSpace.PRIVATE, 0) == NULL32
    assert from_generic(AddressSpace.PRIVATE, to_generic(AddressSpace.PRIVATE, 12)) == 12
    assert from_generic(AddressSpace.LOCAL, to_generic(AddressSpace.PRIVATE, 12)) == NULL32
    assert from_generic(AddressSpace.GLOBAL, to_generic(AddressSpace.LOCAL, 8)) == 0


# Malformed text: each error names the line and column, and says what is wrong.
BAD = [
    ("kernel @k {\nentry:\n  v_frob v1, v2\n  s_endpgm\n}\n", 3, 3, "unknown opcode 'v_frob'"),
    ("kernel @k {\nentry:\n  v_add_f32 v1, v0, done\n  s_endpgm\ndone:\n  s_endpgm\n}\n", 3, 21,
     "operand 3 of v_add_f32: expected a vector register or a scalar register or an immediate, "
     "found a block label 'done'"),
    ("kernel @k {\nentry:\n  v_add_u64 v[2:3], v4, 1\n  s_endpgm\n}\n", 3, 21,
     "operand 2 of v_add_u64: expected a 64-bit operand, found 32-bit v4"),
    ("kernel @k {\nentry:\n  s_mov_b64 s[5:6], 0\n  s_endpgm\n}\n", 3, 13,
     "register s[5:6] must start at a multiple of 2"),
    ("kernel @k {\nentry:\n  s_mov_b64 s[7:6], 0\n  s_endpgm\n}\n", 3, 13, "register range s[7:6] runs backwards"),
    ("kernel @k {\nentry:\n  s_load_b128 s[4:7], s[0:1]\n  s_endpgm\n}\n", 3, 3,
     "s_load_b128 takes 3 operands, found 2"),
    ("kernel @k {\nentry:\n  s_branch nowhere\n}\n", 3, 12, "branch to unknown block 'nowhere'"),
    ("kernel @k {\nentry:\n  s_call_b64 s[30:31], @g\n  s_endpgm\n}\n", 3, 24, "call to unknown function '@g'"),
    ("kernel @k {\nentry:\n  s_nop\nentry:\n  s_endpgm\n}\n", 4, 1, "block 'entry' is defined twice"),
    ("kernel @k {\n  s_nop\n}\n", 2, 3, "an instruction before the first block label"),
    ("kernel @k {\nentry:\n  s_nop\n}\n", 4, 1, "function '@k' may run off the end of its last block"),
    ("kernel @k {\nentry:\n  v_mov_b32 %v1, 0\n  v_mov_b64 %v1:64, 0\n  s_endpgm\n}\n", 4, 13,
     "virtual register %v1 is 64 bits here but 32 bits at line 3"),
    ("kernel @k {\n  %stack.1 = slot 4, align 4\nentry:\n  s_endpgm\n}\n", 2, 3,
     "frame slot %stack.1 declared out of order (expected %stack.0)"),
    ("kernel @k {\n  %stack.0 = slot 4, align 3\nentry:\n  s_endpgm\n}\n", 2, 28,
     "a frame slot's alignment must be a power of two"),
    ("kernel @k {\nentry:\n  s_mov_b32 s1, %stack.0\n  s_endpgm\n}\n", 5, 1,
     "s_mov_b32 names frame slot %stack.0 that is not declared"),
    ("kernel @k {\ns5:\n  s_endpgm\n}\n", 2, 1, "'s5' cannot name a block (it reads as an operand or keyword)"),
    ("kernel @k {\nentry:\n  s_mov_b32 s1, 2 # 3\n  s_endpgm\n}\n", 3, 19, "unexpected character '#'"),
    ("kernel @k {\nentry:\n  p_copy %v1:64, %v2\n  s_endpgm\n}\n", 3, 3,
     "p_copy: the parts (32 bits) do not make the whole (64 bits)"),
    ("kernel @k {\nentry:\n  p_copy %s1, %v2\n  s_endpgm\n}\n", 3, 3,
     "p_copy cannot copy a vector register to a scalar one (use v_readfirstlane_b32)"),
    ("kernel @k {\nentry:\n  v_add_u32 v1, v1, 1.5\n  s_endpgm\n}\n", 3, 21,
     "operand 3 of v_add_u32: a float immediate cannot stand for a u32 operand"),
    ("kernel @k {\nentry:\n  s_mov_b32 s1, 0x1ffffffff\n  s_endpgm\n}\n", 3, 17,
     "operand 2 of s_mov_b32: immediate 8589934591 does not fit in 32 bits"),
    ("kernel @k {\nentry:\n  s_mov_b32 exec, 0\n  s_endpgm\n}\n", 3, 13,
     "operand 1 of s_mov_b32: expected a 32-bit operand, found 64-bit exec"),
    ("kernel @k {\nentry:\n  s_call_b64 s[30:31], @k uses[s0, 3]\n  s_endpgm\n}\n", 3, 36,
     "expected a register in uses[...], found '3'"),
    ("kernel @k {\nentry:\n  s_endpgm\n}\nkernel @k {\nentry:\n  s_endpgm\n}\n", 5, 8,
     "function '@k' is defined twice"),
    ("module @k {\n}\n", 1, 1, "expected 'kernel' or 'func', found 'module'"),
    ("kernel @k {\nentry:\n  s_mov_b32 s1, 2 s2\n  s_endpgm\n}\n", 3, 19, "expected end of line, found 's2'"),
]


@pytest.mark.parametrize(("text", "line", "col", "message"), BAD, ids=[b[3][:40] for b in BAD])
def test_malformed_text_is_an_error_at_its_place(text: str, line: int, col: int, message: str) -> None:
    with pytest.raises(AsmParseError) as info:
        parse_asm(text, "k.s")
    assert (info.value.loc.line, info.value.loc.col, info.value.message) == (line, col, message)
    assert str(info.value).startswith(f"k.s:{line}:{col}: error: {message}\n")
