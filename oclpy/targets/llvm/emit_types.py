"""Our IR types and constants as `llvmlite.ir` types and constants.

The address-space numbering is not decided here: `TypeMapper` asks the target
(`addrspace_of`), so the cpu target can map every space to 0 and nvptx to its
own numbers. Memory layout (sizes, offsets) is never taken from LLVM: the
emitter computes addresses with our `DataLayout`.
"""

from __future__ import annotations

from typing import Callable

from llvmlite import ir as ll

from ...ir.types import (
    AddressSpace, ArrayType, FloatType, FunctionType, IntType, PtrType, StructType, Type,
    VectorType, VoidType,
)
from ...ir.values import (
    ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Undef, Value,
)


class EmitError(Exception):
    """Our IR holds something the LLVM emitter cannot lower (a compiler bug upstream)."""


_FLOATS: dict[int, Callable[[], ll.Type]] = {
    16: ll.HalfType, 32: ll.FloatType, 64: ll.DoubleType,
}


class TypeMapper:
    """Maps IR types to LLVM types, with pointer address spaces from the target."""

    def __init__(self, addrspace_of: Callable[[AddressSpace], int]) -> None:
        self.addrspace_of = addrspace_of
        self._cache: dict[Type, ll.Type] = {}
        self._rules: dict[type, Callable[[Type], ll.Type]] = {
            VoidType: lambda t: ll.VoidType(),
            IntType: lambda t: ll.IntType(t.bits),
            FloatType: lambda t: _FLOATS[t.bits](),
            PtrType: lambda t: ll.PointerType(addrspace=self.addrspace_of(t.space)),
            VectorType: lambda t: ll.VectorType(self.lltype(t.elem), t.count),
            ArrayType: lambda t: ll.ArrayType(self.lltype(t.elem), t.count),
            StructType: self._struct,
            FunctionType: lambda t: ll.FunctionType(
                self.lltype(t.ret), [self.lltype(p) for p in t.params]),
        }

    def lltype(self, t: Type) -> ll.Type:
        cached = self._cache.get(t)
        if cached is None:
            rule = self._rules.get(type(t))
            if rule is None:
                raise EmitError(f"no LLVM type for IR type {t}")
            cached = self._cache[t] = rule(t)
        return cached

    def _struct(self, t: Type) -> ll.Type:
        assert isinstance(t, StructType)
        return ll.LiteralStructType([self.lltype(f) for f in t.fields], packed=t.packed)

    def constant(self, v: Value) -> ll.Constant:
        """An IR constant as an LLVM constant (GlobalVars are handled by the emitter)."""
        t = self.lltype(v.type)
        if isinstance(v, ConstInt):
            return ll.Constant(t, v.value)
        if isinstance(v, ConstFloat):
            return ll.Constant(t, float(v.value))
        if isinstance(v, (ConstNull, ConstZero)):
            return ll.Constant(t, None)
        if isinstance(v, Undef):
            return ll.Constant(t, ll.Undefined)
        if isinstance(v, ConstAggregate):
            return ll.Constant(t, [self.constant(e) for e in v.elements])
        raise EmitError(f"not a constant: {v!r}")


def is_constant(v: Value) -> bool:
    return isinstance(v, (ConstInt, ConstFloat, ConstNull, ConstZero, Undef, ConstAggregate))
