"""The folding rules of `passes/fold.py`, lane by lane."""

import math

import pytest

from oclpy.ir.builder import Builder
from oclpy.ir.types import F16, F32, F64, I8, I32, I64, FunctionType, VectorType
from oclpy.ir.values import ConstAggregate, ConstFloat, ConstInt, ConstZero, Function
from oclpy.passes.fold import INT_FOLDS, fcmp, lanes, make_const, simplify_instr


def _fn() -> Builder:
    fn = Function("f", FunctionType(I32, ()))
    return Builder(fn.add_block("entry"))


@pytest.mark.parametrize("op,a,b,width,want", [
    ("add", 255, 1, 8, 0),
    ("sub", 0, 1, 8, 255),
    ("mul", 1 << 31, 2, 32, 0),
    ("shl", 1, 9, 8, 2),  # 9 mod 8
    ("lshr", 0x80, 7, 8, 1),
    ("ashr", 0x80, 7, 8, -1),
    ("sdiv", (-7) & 0xFF, 2, 8, -3),
    ("srem", (-7) & 0xFF, 2, 8, -1),
    ("sdiv", 0x80, 0xFF, 8, None),  # INT_MIN / -1
    ("sdiv", 1, 0, 8, None),
    ("srem", 1, 0, 8, None),
    ("udiv", 1, 0, 8, None),
    ("urem", 7, 3, 8, 1),
])
def test_int_folds(op, a, b, width, want):
    got = INT_FOLDS[op](a, b, width)
    if want is None:
        assert got is None
    else:
        assert got % (1 << width) == want % (1 << width)


def test_fcmp_nan_rules():
    nan = math.nan
    assert fcmp("olt", 1.0, 2.0) and not fcmp("olt", nan, 2.0)
    assert fcmp("ult", nan, 2.0) and fcmp("uno", nan, 1.0) and not fcmp("ord", nan, 1.0)
    assert fcmp("true", nan, nan) and not fcmp("false", 1.0, 1.0)
    assert fcmp("une", 1.0, 2.0) and not fcmp("oeq", nan, nan)


def test_float_folds_round_in_the_types_precision():
    b = _fn()
    f32 = b.binop("fadd", ConstFloat(F32, 16777216.0), ConstFloat(F32, 1.0))
    assert simplify_instr(f32).value == 16777216.0  # 2**24 + 1 rounds to even in float
    f64 = b.binop("fadd", ConstFloat(F64, 16777216.0), ConstFloat(F64, 1.0))
    assert simplify_instr(f64).value == 16777217.0
    h = b.binop("fmul", ConstFloat(F16, 300.0), ConstFloat(F16, 300.0))
    assert math.isinf(simplify_instr(h).value)  # half overflows at 65504
    nan = b.binop("fsub", ConstFloat(F32, math.inf), ConstFloat(F32, math.inf))
    assert simplify_instr(nan) is None  # NaN results are not folded


def test_casts_that_are_not_folded():
    b = _fn()
    big = b.cast("fptosi", ConstFloat(F32, 3e9), I32)
    assert simplify_instr(big) is None  # out of range: undefined
    huge = b.cast("sitofp", ConstInt(I64, (1 << 62) + 1), F32)
    assert simplify_instr(huge) is None  # past 2**53: avoid double rounding
    ok = b.cast("uitofp", ConstInt(I8, 255), F32)
    assert simplify_instr(ok).value == 255.0


def test_lanes_and_make_const():
    v4 = VectorType(I32, 4)
    assert lanes(ConstZero(v4)) == [0, 0, 0, 0]
    agg = make_const(v4, [1, 2, 3, 4])
    assert isinstance(agg, ConstAggregate) and lanes(agg) == [1, 2, 3, 4]
    assert lanes(ConstInt(I32, -1)) == [0xFFFFFFFF]
    assert lanes(ConstZero(VectorType(F32, 2))) == [0.0, 0.0]


def test_vector_select_with_mixed_condition():
    b = _fn()
    v2 = VectorType(I32, 2)
    cond = make_const(VectorType(ConstInt(I8, 0).type.__class__(1), 2), [1, 0])
    sel = b.select(cond, make_const(v2, [1, 2]), make_const(v2, [3, 4]))
    assert lanes(simplify_instr(sel)) == [1, 4]


def test_extractelement_of_constant():
    b = _fn()
    v = make_const(VectorType(I32, 3), [5, 6, 7])
    e = b.extractelement(v, ConstInt(I32, 2))
    assert simplify_instr(e).value == 7
    out_of_range = b.extractelement(v, ConstInt(I32, 5))
    assert simplify_instr(out_of_range) is None
