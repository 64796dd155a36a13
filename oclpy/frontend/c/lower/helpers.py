"""Lowering helpers shared by expression, statement and builtin lowering:
lvalues (addresses, with vector swizzles), loads and stores in memory types,
and the conversions between C types as IR instructions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import ConstFloat, ConstInt, ConstNull, Undef, Value
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..layout import align_of, mem_type, reg_type
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

    def alignment(self) -> int:
        return self.align or align_of(self.vec_type if self.swizzle is not None else self.ctype)  # type: ignore[arg-type]


def is_bool(t: CType) -> bool:
    return isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.BOOL


def is_unsigned(t: CType) -> bool:
    k = st.scalar_kind(t)
    return k is not None and not k.is_float and not k.signed


def const_float(t: ir.Type, value: float) -> ConstFloat:
    return ConstFloat(t, round_float(value, t.bits))  # type: ignore[attr-defined]


def const_of(t: ir.Type, value: float | int) -> Value:
    """A constant of IR type `t` (splatted for vectors)."""
    if isinstance(t, ir.VectorType):
        return ConstAggregate(t, [const_of(t.elem, value) for _ in range(t.count)])
    if isinstance(t, ir.FloatType):
        return const_float(t, float(value))
    return ConstInt(t, int(value))


class ValueOps:
    b: Builder

    # -- memory -------------------------------------------------------------
    def load(self, lv: LValue) -> Value:
        if lv.swizzle is not None:
            assert lv.vec_type is not None
            vec = self.b.load(mem_type(lv.vec_type), lv.addr, lv.alignment())
            if len(lv.swizzle) == 1:
                return self.b.extractelement(vec, ConstInt(ir.I32, lv.swizzle[0]))
            return self.b.shufflevector(vec, vec, lv.swizzle)
        volatile = lv.ctype.volatile
        v = self.b.load(mem_type(lv.ctype), lv.addr, lv.alignment(), volatile=volatile)
        if is_bool(lv.ctype):
            return self.b.icmp("ne", v, ConstInt(ir.I8, 0))
        return v

    def store(self, lv: LValue, value: Value) -> None:
        if lv.swizzle is not None:
            assert lv.vec_type is not None
            vt = mem_type(lv.vec_type)
            vec = self.b.load(vt, lv.addr, lv.alignment())
            for i, idx in enumerate(lv.swizzle):
                if idx < 0:
                    continue
                elt = value if len(lv.swizzle) == 1 else self.b.extractelement(value, ConstInt(ir.I32, i))
                vec = self.b.insertelement(vec, elt, ConstInt(ir.I32, idx))
            self.b.store(vec, lv.addr, lv.alignment())
            return
        if is_bool(lv.ctype) and value.type == ir.I1:
            value = ConstInt(ir.I8, value.value) if isinstance(value, ConstInt) else \
                self.b.cast("zext", value, ir.I8)
        self.b.store(value, lv.addr, lv.alignment(), volatile=lv.ctype.volatile)

    # -- conversions --------------------------------------------------------
    def convert(self, v: Value, frm: CType, to: CType) -> Value:
        """Convert value `v` of C type `frm` to C type `to`."""
        frm, to = frm.unqualified(), to.unqualified()
        if frm == to or st.is_void(to):
            return v
        if is_bool(to):
            return self.to_bool(v, frm)
        if isinstance(to, ct.Vector) and not isinstance(frm, ct.Vector):
            return self.splat(self.convert(v, frm, ct.Scalar(to.elem)), to)
        if st.is_pointer(to) or st.is_pointer(frm):
            return self._pointer_convert(v, frm, to)
        return self._arith_convert(v, frm, to)

    def to_bool(self, v: Value, frm: CType) -> Value:
        if v.type == ir.I1:
            return v
        if isinstance(v, (ConstInt, ConstFloat)):
            return ConstInt(ir.I1, int(v.value != 0))
        if isinstance(v.type, ir.PtrType):
            return self.b.icmp("ne", v, ConstNull(v.type))
        if v.type.is_float():
            return self.b.fcmp("une", v, ConstFloat(v.type, 0.0))
        return self.b.icmp("ne", v, ConstInt(v.type, 0))

    def splat(self, scalar: Value, to: CType) -> Value:
        vt = reg_type(to)
        assert isinstance(vt, ir.VectorType)
        one = self.b.insertelement(Undef(ir.VectorType(vt.elem, 1)), scalar, ConstInt(ir.I32, 0))
        return self.b.shufflevector(one, Undef(one.type), [0] * vt.count)

    def _pointer_convert(self, v: Value, frm: CType, to: CType) -> Value:
        tt = reg_type(to)
        if isinstance(tt, ir.PtrType) and isinstance(v, ConstNull):
            return ConstNull(tt)
        if isinstance(tt, ir.PtrType) and isinstance(v.type, ir.PtrType):
            return v if v.type == tt else self.b.cast("addrspacecast", v, tt)
        if isinstance(tt, ir.PtrType):
            if isinstance(v, ConstInt) and v.value == 0:
                return ConstNull(tt)
            if v.type != ir.I64:
                v = self._arith_convert(v, frm, ct.LONG)
            return self.b.cast("inttoptr", v, tt)
        i = self.b.cast("ptrtoint", v, ir.I64)
        return self._arith_convert(i, ct.LONG, to)

    def _arith_convert(self, v: Value, frm: CType, to: CType) -> Value:
        ft, tt = v.type, reg_type(to)
        if ft == tt:
            return v
        fs, ts = ft.scalar(), tt.scalar()
        folded = self._fold_convert(v, frm, tt)
        if folded is not None:
            return folded
        if isinstance(fs, ir.IntType) and isinstance(ts, ir.IntType):
            if fs.bits > ts.bits:
                return self.b.cast("trunc", v, tt)
            ext = "zext" if is_unsigned(frm) or fs.bits == 1 else "sext"
            return self.b.cast(ext, v, tt)
        if isinstance(fs, ir.IntType):
            op = "uitofp" if is_unsigned(frm) or fs.bits == 1 else "sitofp"
            return self.b.cast(op, v, tt)
        if isinstance(ts, ir.IntType):
            return self.b.cast("fptoui" if is_unsigned(to) else "fptosi", v, tt)
        assert isinstance(fs, ir.FloatType) and isinstance(ts, ir.FloatType)
        return self.b.cast("fpext" if fs.bits < ts.bits else "fptrunc", v, tt)

    @staticmethod
    def _fold_convert(v: Value, frm: CType, tt: ir.Type) -> Optional[Value]:
        """Convert a scalar constant at compile time (None when it cannot)."""
        if isinstance(v, ConstInt):
            n = v.value if is_unsigned(frm) or v.type == ir.I1 else v.signed()
            return ConstInt(tt, n) if isinstance(tt, ir.IntType) else \
                const_float(tt, float(n)) if isinstance(tt, ir.FloatType) else None
        if isinstance(v, ConstFloat) and isinstance(tt, ir.FloatType):
            return const_float(tt, v.value)
        return None

    def bool_to_int(self, c: Value, to: CType) -> Value:
        """An i1 (or vector of i1) as C's 0/1 int, or OpenCL's 0/-1 vector."""
        tt = reg_type(to)
        return self.b.cast("sext" if isinstance(tt, ir.VectorType) else "zext", c, tt)
