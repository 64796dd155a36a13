"""print -> parse -> print is the identity, and parsing gives back what the builder made."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmodules import ALL_MODULES
from oclpy.ir.parser import parse_module
from oclpy.ir.printer import Names, print_instr, print_module
from oclpy.ir.types import F16, F32, F64, AddressSpace, IntType
from oclpy.ir.values import ConstFloat, ConstInt, Function, GlobalVar, Module


@pytest.mark.parametrize("name", sorted(ALL_MODULES))
def test_print_parse_print_is_identity(name):
    text = print_module(ALL_MODULES[name]())
    assert print_module(parse_module(text)) == text


def _comparable_attrs(attrs: dict) -> dict:
    return {k: (v.name if isinstance(v, Function) else v) for k, v in attrs.items()}


@pytest.mark.parametrize("name", sorted(ALL_MODULES))
def test_parsed_module_matches_the_built_one(name):
    built = ALL_MODULES[name]()
    parsed = parse_module(print_module(built))
    assert parsed.name == built.name
    assert [g.name for g in parsed.globals] == [g.name for g in built.globals]
    for g1, g2 in zip(built.globals, parsed.globals):
        assert (g1.value_type, g1.space, g1.constant, g1.align) == \
            (g2.value_type, g2.space, g2.constant, g2.align)
    assert [f.name for f in parsed.functions] == [f.name for f in built.functions]
    for f1, f2 in zip(built.functions, parsed.functions):
        assert (f1.type, f1.is_kernel, f1.attrs) == (f2.type, f2.is_kernel, f2.attrs) or \
            "intrinsic" in f2.attrs and "intrinsic" not in f1.attrs
        assert [a.attrs for a in f1.args] == [a.attrs for a in f2.args]
        assert len(f1.blocks) == len(f2.blocks)
        n1, n2 = Names(f1), Names(f2)
        for i1, i2 in zip(f1.instructions(), f2.instructions()):
            assert (i1.op, i1.type) == (i2.op, i2.type)
            assert _comparable_attrs(i1.attrs) == _comparable_attrs(i2.attrs), print_instr(i1, n1)
            assert print_instr(i1, n1) == print_instr(i2, n2)
            assert [n1.local(b) for b in i1.targets + i1.blocks] == \
                [n2.local(b) for b in i2.targets + i2.blocks]


def test_parsed_values_are_linked():
    m = parse_module(print_module(ALL_MODULES["loop"]()))
    fn = m.functions[0]
    loop = fn.blocks[1]
    phi_i = loop.instrs[0]
    assert phi_i.blocks[0] is fn.blocks[0] and phi_i.blocks[1] is fn.blocks[2]
    increment = fn.blocks[2].instrs[1]
    assert phi_i.operands[1] is increment and increment.operands[0] is phi_i
    assert all(i.parent is b for b in fn.blocks for i in b.instrs)
    assert all(b.parent is fn for b in fn.blocks)


def _one_global(t, value) -> Module:
    m = Module()
    m.add_global(GlobalVar("g", t, AddressSpace.GLOBAL, value))
    return m


@settings(max_examples=150, deadline=None)
@given(st.integers(min_value=0, max_value=2**64 - 1), st.sampled_from([F16, F32, F64]))
def test_float_constants_keep_their_exact_bits(bits, t):
    value = struct.unpack(">d", bits.to_bytes(8, "big"))[0]
    parsed = parse_module(print_module(_one_global(t, ConstFloat(t, value))))
    back = parsed.globals[0].initializer.value
    assert struct.pack(">d", back) == struct.pack(">d", value)  # NaN payloads included


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([1, 8, 16, 32, 64, 128]), st.integers(min_value=0))
def test_int_constants_keep_their_value(bits, raw):
    t = IntType(bits)
    c = ConstInt(t, raw)
    parsed = parse_module(print_module(_one_global(t, c)))
    assert parsed.globals[0].initializer.value == c.value
