"""Use-lists: every instruction, argument, global and function knows its users;
the builder, the operand setters, erasing and replace_all_uses_with keep the
lists right, and the verifier checks that they agree with the operands."""

from __future__ import annotations

import pytest

from irmodules import ALL_MODULES, new_function
from oclpy.ir.builder import Builder, add_incoming, i32
from oclpy.ir.parser import parse_module
from oclpy.ir.types import I32, VOID, AddressSpace
from oclpy.ir.values import ConstInt, GlobalVar, Module
from oclpy.ir.verifier import module_problems

LOOP = """
define i32 @f(i32 %n) {
entry:
  br label %loop

loop:
  %i = phi i32 [ 0, %entry ], [ %next, %loop ]
  %next = add i32 %i, 1
  %sq = mul i32 %i, %i
  %c = icmp slt i32 %next, %n
  condbr i1 %c, label %loop, label %exit

exit:
  ret i32 %sq
}
"""


def _values(text: str = LOOP) -> dict[str, object]:
    fn = parse_module(text).functions[0]
    found: dict[str, object] = {a.name: a for a in fn.args}
    found.update((i.name, i) for i in fn.instructions() if i.name)
    return found


def test_users_of_parsed_values_including_forward_references():
    v = _values()
    assert v["i"].users == [v["next"], v["sq"]]  # type: ignore[attr-defined]
    assert v["next"].users == [v["i"], v["c"]]  # the phi used %next before its definition
    assert v["n"].users == [v["c"]]
    assert v["sq"].uses[0][1] == 0  # type: ignore[attr-defined]
    assert v["sq"].use_count(v["sq"].users[0]) == 1  # type: ignore[attr-defined]


def test_an_operand_used_twice_is_counted_twice():
    v = _values()
    sq = v["sq"]
    assert v["i"].use_count(sq) == 2  # type: ignore[attr-defined]
    assert v["i"].uses == [(v["next"], 0), (sq, 0), (sq, 1)]  # type: ignore[attr-defined]


def test_constants_keep_no_use_list():
    one = ConstInt(I32, 1)
    assert not one.keeps_uses
    with pytest.raises(TypeError):
        one.users


def test_setters_move_uses():
    v = _values()
    i, n, sq = v["i"], v["n"], v["sq"]
    sq.set_operand(1, n)  # type: ignore[attr-defined]
    assert i.use_count(sq) == 1 and n.use_count(sq) == 1  # type: ignore[attr-defined]
    sq.operands = [n, n]  # type: ignore[attr-defined]
    assert sq not in i.users and n.use_count(sq) == 2  # type: ignore[attr-defined]
    with pytest.raises(TypeError):
        sq.operands[0] = i  # type: ignore[index]  # a tuple: only the setters change operands


def test_replace_all_uses_with_touches_only_the_users():
    v = _values()
    i, n = v["i"], v["n"]
    i.replace_all_uses_with(n)  # type: ignore[attr-defined]
    assert i.users == []  # type: ignore[attr-defined]
    assert v["next"].operands[0] is n and v["sq"].operands == (n, n)  # type: ignore[attr-defined]
    assert n.users == [v["c"], v["next"], v["sq"]]  # type: ignore[attr-defined]


def test_erase_drops_the_operands():
    v = _values()
    sq = v["sq"]
    sq.replace_all_uses_with(ConstInt(I32, 0))  # type: ignore[attr-defined]
    sq.erase()  # type: ignore[attr-defined]
    assert sq.parent is None and sq.operands == ()  # type: ignore[attr-defined]
    assert v["i"].users == [v["next"]]  # type: ignore[attr-defined]


def test_erase_instrs_and_phi_incoming():
    m = Module()
    f = new_function(m, "f", VOID, [I32], ["x"])
    entry, body = f.add_block("entry"), f.add_block("body")
    b = Builder(entry)
    a = b.binop("add", f.args[0], i32(1), "a")
    b.br(body)
    b.position_at_end(body)
    phi = b.phi(I32, "p")
    add_incoming(phi, a, entry)
    assert a.users == [phi]
    body.erase_instrs({phi})
    assert a.users == [] and phi.parent is None
    entry.erase_instrs()
    assert f.args[0].users == [] and entry.instrs == []


def test_builder_registers_uses_and_keeps_a_rejected_instruction_out():
    m = Module()
    f = new_function(m, "f", VOID, [I32], ["x"])
    b = Builder(f.add_block("entry"))
    s = b.binop("add", f.args[0], f.args[0], "s")
    assert f.args[0].use_count(s) == 2
    with pytest.raises(Exception):
        b.binop("fadd", f.args[0], f.args[0])
    assert f.args[0].users == [s]


def test_globals_know_their_users():
    m = parse_module("@g = addrspace(global) global i32\n"
                     "define void @f() {\n  store i32 1, ptr<global> @g\n  ret void\n}")
    g, fn = m.globals[0], m.functions[0]
    assert g.users == [fn.entry.instrs[0]]
    fn.erase_body()
    assert g.users == []


@pytest.mark.parametrize("name", sorted(set(ALL_MODULES) - {"naming"}))
def test_built_modules_have_consistent_use_lists(name):
    assert module_problems(ALL_MODULES[name]()) == []


# -- the verifier's check ---------------------------------------------------------------


def test_verifier_finds_a_user_left_outside_the_function():
    m = parse_module(LOOP)
    fn = m.functions[0]
    sq = next(i for i in fn.instructions() if i.name == "sq")
    fn.blocks[1].instrs.remove(sq)  # detached, not erased: still a user of %i
    sq.parent = None
    found = [p for p in module_problems(m) if "use-list" in p]
    assert found == ["in function @f, block %loop: instruction '%i = phi i32 [ 0, %entry ], "
                     "[ %next, %loop ]': use-list names '%?sq = mul i32 %i, %i', which is not "
                     "in any block"]


def test_verifier_finds_use_lists_that_disagree_with_operands():
    m = parse_module(LOOP)
    fn = m.functions[0]
    sq = next(i for i in fn.instructions() if i.name == "sq")
    sq._operands = (fn.args[0], fn.args[0])  # behind the setter's back
    found = [p.split("': ", 1)[1] for p in module_problems(m) if "use-list" in p]
    assert found == ["use-list names '%sq = mul i32 %n, %n', which does not use it",
                     "the use-list of operand %n counts 0 uses by this instruction, not 2"]


def test_verifier_finds_a_global_used_by_a_deleted_function():
    m = parse_module("@g = addrspace(local) global i32\n"
                     "define void @f() {\n  store i32 1, ptr<local> @g\n  ret void\n}\n"
                     "define void @h() {\n  ret void\n}")
    m.functions.pop(0)  # without erasing its body
    assert module_problems(m) == ["global @g: use-list names 'store i32 1, ptr<local> @g', "
                                  "which is in no function of this module"]


def test_an_unused_global_is_fine():
    m = Module()
    m.add_global(GlobalVar("g", I32, AddressSpace.GLOBAL))
    assert module_problems(m) == [] and m.globals[0].users == []
