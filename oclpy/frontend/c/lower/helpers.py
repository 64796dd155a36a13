"""Lowering helpers shared by expression, statement and builtin lowering:
lvalues (addresses, with vector swizzles), and functions of an IR builder that
emit loads and stores in memory types and the conversions between C types.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.datalayout import DataLayout
from ....ir.values import ConstFloat, ConstInt, ConstNull, Undef, Value
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..layout import align_of, mem_type, plain_type
from ..opaque_types import is_event, is_sampler
from ..sema.folding import round_float
from ....ir.values import ConstAggregate


@dataclass
class LValue:
    """An object in memory: its address and C type; `swizzle` selects elements of the
    vector of type `vec_type` stored at `addr`."""

    addr: Value
    ctype: CType
    swizzle: Optional[tuple[int, ...]] = None
    vec_type: Optional[CType] = None
    align: int = 0  # 0: the natural alignment of `ctype` (members of packed structs use 1)

    def alignment(self, dl: DataLayout) -> int:
        t = self.vec_type if self.swizzle is not None else self.ctype
        return self.align or align_of(t, dl)  # type: ignore[arg-type]


def is_bool(t: CType) -> bool:
    return isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.BOOL


def is_unsigned(t: CType) -> bool:
    k = st.scalar_kind(t)
    return k is not None and not k.is_float and not k.signed


def const_float(t: ir.Type, value: float) -> ConstFloat:
    assert isinstance(t, ir.FloatType)
    return ConstFloat(t, round_float(value, t.bits))


def scalar_bits(t: ir.Type) -> int:
    """The width of integer or float type `t`, or of its elements."""
    s = t.scalar()
    assert isinstance(s, (ir.IntType, ir.FloatType)), f"{t} has no width"
    return s.bits


def vector_type(t: ir.Type) -> ir.VectorType:
    """`t`, which the caller knows is a vector type."""
    assert isinstance(t, ir.VectorType), f"{t} is not a vector type"
    return t


def const_of(t: ir.Type, value: float | int) -> Value:
    """A constant of IR type `t` (splatted for vectors)."""
    if isinstance(t, ir.VectorType):
        return ConstAggregate(t, [const_of(t.elem, value) for _ in range(t.count)])
    if isinstance(t, ir.FloatType):
        return const_float(t, float(value))
    return ConstInt(t, int(value))


# -- memory ---------------------------------------------------------------

def load(b: Builder, dl: DataLayout, lv: LValue) -> Value:
    """The value of the object `lv`, in its register type (`dl`: the target's layout)."""
    if lv.swizzle is not None:
        assert lv.vec_type is not None
        vec = b.load(mem_type(lv.vec_type, dl), lv.addr, lv.alignment(dl))
        if len(lv.swizzle) == 1:
            return b.extractelement(vec, ConstInt(ir.I32, lv.swizzle[0]))
        return b.shufflevector(vec, vec, lv.swizzle)
    volatile = lv.ctype.volatile
    v = b.load(mem_type(lv.ctype, dl), lv.addr, lv.alignment(dl), volatile=volatile)
    if is_bool(lv.ctype):
        return b.icmp("ne", v, ConstInt(ir.I8, 0))
    return v


def store(b: Builder, dl: DataLayout, lv: LValue, value: Value) -> None:
    """Store `value` (a register-typed value) into the object `lv` (`dl`: the target's layout)."""
    if lv.swizzle is not None:
        assert lv.vec_type is not None
        vt = mem_type(lv.vec_type, dl)
        vec = b.load(vt, lv.addr, lv.alignment(dl))
        for i, idx in enumerate(lv.swizzle):
            if idx < 0:
                continue
            elt = value if len(lv.swizzle) == 1 else b.extractelement(value, ConstInt(ir.I32, i))
            vec = b.insertelement(vec, elt, ConstInt(ir.I32, idx))
        b.store(vec, lv.addr, lv.alignment(dl))
        return
    if is_bool(lv.ctype) and value.type == ir.I1:
        value = ConstInt(ir.I8, value.value) if isinstance(value, ConstInt) else \
            b.cast("zext", value, ir.I8)
    b.store(value, lv.addr, lv.alignment(dl), volatile=lv.ctype.volatile)


# -- conversions ----------------------------------------------------------

def convert(b: Builder, v: Value, frm: CType, to: CType) -> Value:
    """Convert value `v` of C type `frm` to C type `to`."""
    frm, to = frm.unqualified(), to.unqualified()
    if frm == to or st.is_void(to):
        return v
    if is_bool(to):
        return to_bool(b, v, frm)
    if is_sampler(to):  # a sampler's bits are a uint
        return _arith_convert(b, v, frm, ct.UINT)
    if isinstance(to, ct.Vector) and not isinstance(frm, ct.Vector):
        return splat(b, convert(b, v, frm, ct.Scalar(to.elem)), to)
    if st.is_pointer(to) or st.is_pointer(frm):
        return _pointer_convert(b, v, frm, to)
    if is_event(to):  # the null event, from an integer 0 (sema allows no other): an i32 handle
        return _arith_convert(b, v, frm, ct.INT)
    return _arith_convert(b, v, frm, to)


def to_bool(b: Builder, v: Value, frm: CType) -> Value:
    if v.type == ir.I1:
        return v
    if isinstance(v, (ConstInt, ConstFloat)):
        return ConstInt(ir.I1, int(v.value != 0))
    if isinstance(v.type, ir.PtrType):
        return b.icmp("ne", v, ConstNull(v.type))
    if v.type.is_float():
        return b.fcmp("une", v, ConstFloat(v.type, 0.0))
    return b.icmp("ne", v, ConstInt(v.type, 0))


def splat(b: Builder, scalar: Value, to: CType) -> Value:
    vt = plain_type(to)
    assert isinstance(vt, ir.VectorType)
    one = b.insertelement(Undef(ir.VectorType(vt.elem, 1)), scalar, ConstInt(ir.I32, 0))
    return b.shufflevector(one, Undef(one.type), [0] * vt.count)


def _pointer_convert(b: Builder, v: Value, frm: CType, to: CType) -> Value:
    tt = plain_type(to)
    if isinstance(tt, ir.PtrType) and isinstance(v, ConstNull):
        return ConstNull(tt)
    if isinstance(tt, ir.PtrType) and isinstance(v.type, ir.PtrType):
        return v if v.type == tt else b.cast("addrspacecast", v, tt)
    if isinstance(tt, ir.PtrType):
        if isinstance(v, ConstInt) and v.value == 0:
            return ConstNull(tt)
        if v.type != ir.I64:
            v = _arith_convert(b, v, frm, ct.LONG)
        return b.cast("inttoptr", v, tt)
    i = b.cast("ptrtoint", v, ir.I64)
    return _arith_convert(b, i, ct.LONG, to)


def _arith_convert(b: Builder, v: Value, frm: CType, to: CType) -> Value:
    ft, tt = v.type, plain_type(to)
    if ft == tt:
        return v
    fs, ts = ft.scalar(), tt.scalar()
    folded = _fold_convert(v, frm, tt)
    if folded is not None:
        return folded
    if isinstance(fs, ir.IntType) and isinstance(ts, ir.IntType):
        if fs.bits > ts.bits:
            return b.cast("trunc", v, tt)
        ext = "zext" if is_unsigned(frm) or fs.bits == 1 else "sext"
        return b.cast(ext, v, tt)
    if isinstance(fs, ir.IntType):
        op = "uitofp" if is_unsigned(frm) or fs.bits == 1 else "sitofp"
        return b.cast(op, v, tt)
    if isinstance(ts, ir.IntType):
        return b.cast("fptoui" if is_unsigned(to) else "fptosi", v, tt)
    assert isinstance(fs, ir.FloatType) and isinstance(ts, ir.FloatType)
    if fs.bits == 64 and ts.bits == 16:
        return b.cast("fptrunc", round_to_odd_float(b, v), tt)
    return b.cast("fpext" if fs.bits < ts.bits else "fptrunc", v, tt)


def round_to_odd_float(b: Builder, x: Value) -> Value:
    """Double x rounded to float with round-to-odd (toward zero, low bit set when
    inexact): rounding that float to half again gives x correctly rounded to half
    (24 bits >= 11 + 2), without an f64 -> f16 conversion, which targets lack (the
    cpu's is a runtime-library call) and which two nearest roundings would get wrong."""
    count = x.type.count if isinstance(x.type, ir.VectorType) else 0
    ft: ir.Type = ir.VectorType(ir.F32, count) if count else ir.F32
    it: ir.Type = ir.VectorType(ir.I32, count) if count else ir.I32
    lt: ir.Type = ir.VectorType(ir.I64, count) if count else ir.I64
    r = b.cast("fptrunc", x, ft)
    bits = b.cast("bitcast", r, it)
    wide = b.cast("fpext", r, x.type)
    mask = const_of(lt, (1 << 63) - 1)
    ax, aw = (b.binop("and", b.cast("bitcast", v, lt), mask) for v in (x, wide))  # |x|, |wide| as integers
    one = const_of(it, 1)
    bits = b.select(b.icmp("ugt", aw, ax), b.binop("sub", bits, one), bits)
    bits = b.select(b.fcmp("one", wide, x), b.binop("or", bits, one), bits)
    return b.cast("bitcast", bits, ft)


def _fold_convert(v: Value, frm: CType, tt: ir.Type) -> Optional[Value]:
    """Convert a scalar constant at compile time (None when it cannot)."""
    if isinstance(v, ConstInt):
        n = v.value if is_unsigned(frm) or v.type == ir.I1 else v.signed()
        return ConstInt(tt, n) if isinstance(tt, ir.IntType) else \
            const_float(tt, float(n)) if isinstance(tt, ir.FloatType) else None
    if isinstance(v, ConstFloat) and isinstance(tt, ir.FloatType):
        return const_float(tt, v.value)
    return None


def bool_to_int(b: Builder, c: Value, to: CType) -> Value:
    """An i1 (or vector of i1) as C's 0/1 int, or OpenCL's 0/-1 vector."""
    tt = plain_type(to)
    return b.cast("sext" if isinstance(tt, ir.VectorType) else "zext", c, tt)
