"""The opcode table drives the parser, the printer, the verifier and the builder:
every opcode is exercised, and an opcode added as one row works everywhere."""

from __future__ import annotations

from typing import Iterator

import pytest

from irmodules import ALL_MODULES, new_function
from oclpy.ir.builder import Builder, IRBuildError
from oclpy.ir.ops import COMMA, OPS, TYPED, Kind, OpInfo
from oclpy.ir.parser import IRParseError, parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.types import F32, I1, I32, VOID, VectorType
from oclpy.ir.values import ConstInt, Module
from oclpy.ir.verifier import module_problems


def test_every_opcode_is_in_the_shared_modules():
    used = {i.op for make in ALL_MODULES.values() for fn in make().functions
            for i in fn.instructions()}
    assert used == set(OPS)


def test_rows_are_consistent():
    for name, row in OPS.items():
        assert row.name == name
        if row.terminator:
            assert row.result is not None and row.result([], {}) == VOID
        if row.pure:
            assert not (row.reads_memory or row.writes_memory or row.terminator)
    assert [op for op, row in OPS.items() if row.convergent] == ["call"]


@pytest.mark.parametrize("call, message", [
    (lambda b, a, x: b.binop("add", a, x), "add: operand types differ (i32 vs float)"),
    (lambda b, a, x: b.binop("fadd", a, a), "fadd: operands must be float scalars or vectors, not i32"),
    (lambda b, a, x: b.cast("trunc", a, F32), "trunc: cannot cast i32 to float"),
    (lambda b, a, x: b.extractelement(a, a), "extractelement: operand must be a vector, not i32"),
    (lambda b, a, x: b.load(I32, a), "load: address must be a pointer, not i32"),
    (lambda b, a, x: b.icmp("lt", a, a), "icmp: unknown predicate 'lt'"),
    (lambda b, a, x: b.gep(I32, a, []), "getelementptr: getelementptr needs a base pointer and at "
                                        "least one index"),
])
def test_the_builder_applies_the_rows_rules(call, message):
    m = Module()
    f = new_function(m, "f", VOID, [I32, F32], ["a", "x"])
    b = Builder(f.add_block("entry"))
    with pytest.raises(IRBuildError) as info:
        call(b, *f.args)
    assert str(info.value) == message
    assert f.blocks[0].instrs == [] and f.args[0].users == []


def test_the_builder_derives_result_types_from_the_row():
    m = Module()
    f = new_function(m, "f", VOID, [VectorType(F32, 4), I32], ["v", "i"])
    b = Builder(f.add_block("entry"))
    assert b.extractelement(f.args[0], f.args[1]).type == F32
    assert b.fcmp("olt", f.args[0], f.args[0]).type == VectorType(I1, 4)
    assert b.shufflevector(f.args[0], f.args[0], [0, 1]).type == VectorType(F32, 2)


def test_the_builder_spreads_vectors_into_their_scalars():
    m = Module()
    f = new_function(m, "f", VOID, [VectorType(F32, 2), F32], ["v", "x"])
    b = Builder(f.add_block("entry"))
    v, x = f.args
    out = b.scalars([x, v, x])
    assert out[0] is x and out[3] is x and [o.type for o in out] == [F32] * 4
    assert [(o.op, o.operands[0], o.operands[1].value) for o in out[1:3]] == \
        [("extractelement", v, 0), ("extractelement", v, 1)]
    assert b.scalars([]) == []


def test_a_derived_result_type_that_cannot_be_is_a_parse_error_at_its_operand():
    with pytest.raises(IRParseError) as info:
        parse_module("define void @f() {\n  %x = insertelement float 1.0, float 2.0, i32 0\n}")
    assert (info.value.loc.line, info.value.loc.col) == (2, 22)
    assert info.value.message == "expected a vector, found float"


# -- one row is all a regular opcode needs ------------------------------------------------


def _check_fmuladd(i, c) -> Iterator[str]:
    if len({v.type for v in i.operands}) != 1:
        yield "operand types differ"


FMULADD = OpInfo("fmuladd", Kind.BINARY, (TYPED, COMMA, TYPED, COMMA, TYPED), _check_fmuladd,
                 result=lambda ops, attrs: ops[0].type, operands=3, pure=True)

TEXT = """define float @f(float %a, float %b) {
entry:
  %r = fmuladd float %a, float %b, float 1.0
  ret float %r
}
"""


def test_a_new_opcode_is_one_row(monkeypatch):
    monkeypatch.setitem(OPS, "fmuladd", FMULADD)
    m = parse_module(TEXT)
    assert print_module(m) == TEXT
    assert module_problems(m) == []
    r = m.functions[0].entry.instrs[0]
    assert r.type == F32 and r.info.pure and m.functions[0].args[0].users == [r]
    r.set_operand(2, ConstInt(I32, 1))
    assert module_problems(m) == ["in function @f, block %entry: instruction "
                                  "'%r = fmuladd float %a, float %b, i32 1': operand types differ"]
    b = Builder(m.functions[0].entry)
    b.position_before(r)
    a, x = m.functions[0].args
    assert b.make("fmuladd", [a, x, a]).type == F32
    with pytest.raises(IRBuildError, match="fmuladd: operand types differ"):
        b.make("fmuladd", [a, x, ConstInt(I32, 1)])
