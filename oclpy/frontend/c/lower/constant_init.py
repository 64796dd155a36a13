"""The IR constants of checked constant initializers: program-scope and static
variables' initial values, in memory types (arrays, vectors, structs, unions
through `const_bytes.reinterpret`; missing elements are zero). A pointer is an
address constant (`sema/address_constants`): null, or the global of the variable
or string literal it points into, which the caller's `resolve` gives (a `ConstOffset`
from it when the address is past its start: `&t[2]`, `&s.f`, or in another space: the
generic address of a global). Laid out
with the target's DataLayout.
"""

from __future__ import annotations

from typing import Callable

from ....ir import types as ir
from ....ir.datalayout import DataLayout
from ....ir.values import ConstAggregate, ConstInt, ConstNull, ConstOffset, ConstZero, GlobalVar, Value
from .. import ast
from .. import c_types as ct
from ..c_types import CType
from ..layout import mem_type, struct_info
from ..sema.address_constants import Address, Base, address_constant, address_integer
from ..sema.folding import fold
from .const_bytes import reinterpret
from .helpers import const_float


Resolve = Callable[[Base], GlobalVar]


def _no_globals(base: Base) -> GlobalVar:
    raise ValueError("an address constant where no global can be named")


def constant_value(init: ast.Expr, t: CType, dl: DataLayout, resolve: Resolve = _no_globals) -> Value:
    """The IR constant (in memory types) of a checked constant initializer."""
    mt = mem_type(t, dl)
    if isinstance(init, ast.InitList):
        return _aggregate(init, t, dl, resolve)
    if isinstance(t, ct.Pointer):
        return _address(address_constant(init, dl), mt, resolve)
    while isinstance(init, ast.ImplicitCast) and init.kind == "splat":
        init = init.operand
    if isinstance(init, ast.VectorLiteral) and isinstance(t, ct.Vector):
        comps: list[Value] = []
        for c in init.components:  # a vector component gives all its elements, in order
            if isinstance(c.ctype, ct.Vector):
                part = constant_value(c, c.ctype, dl, resolve)
                assert isinstance(part, ConstAggregate)
                comps += part.elements
            else:
                comps.append(constant_value(c, ct.Scalar(t.elem), dl, resolve))
        if len(comps) == 1:
            comps = comps * t.count
        return ConstAggregate(mt, comps)
    v = fold(init)
    if v is None and isinstance(mt, ir.IntType):
        v = address_integer(init, dl)     # `(size_t)&((S *)0)->f`, `&t[3] - &t[0]`
    if isinstance(t, ct.Vector):
        return ConstAggregate(mt, [constant_value(init, ct.Scalar(t.elem), dl, resolve)] * t.count)
    if isinstance(mt, ir.FloatType):
        return const_float(mt, float(v or 0.0))
    if isinstance(mt, ir.IntType):
        return ConstInt(mt, int(v or 0))
    return ConstZero(mt)


def _address(at: Address | None, mt: ir.Type, resolve: Resolve) -> Value:
    assert at is not None, "sema accepts only address constants"
    if at.base is None:
        assert not at.offset, "sema refuses an integer address other than null"
        return ConstNull(mt)
    gv = resolve(at.base)
    assert isinstance(mt, ir.PtrType)
    if mt.space is not gv.type.space:  # `generic int *gp = &g;`
        return ConstOffset(gv, at.offset, mt.space)
    return ConstOffset(gv, at.offset) if at.offset else gv


def _aggregate(init: ast.InitList, t: CType, dl: DataLayout, resolve: Resolve) -> Value:
    mt = mem_type(t, dl)
    slots = dict(init.slots)
    if isinstance(t, (ct.Array, ct.Vector)):
        elem = t.elem if isinstance(t, ct.Array) else ct.Scalar(t.elem)
        count = t.count or 0
        return ConstAggregate(mt, [constant_value(slots[i], elem, dl, resolve) if i in slots else ConstZero(mem_type(elem, dl))
                                   for i in range(count)])
    assert isinstance(t, ct.Struct) and isinstance(mt, ir.StructType)
    info = struct_info(t.definition, dl)
    fields = t.definition.fields or []
    if t.definition.is_union:
        chosen = init.slots[-1] if init.slots else None
        return ConstZero(mt) if chosen is None else _union_const(chosen[1], fields[chosen[0]].type, mt, dl, resolve)
    elems: list[Value] = [ConstZero(f) for f in mt.fields]
    for i, f in enumerate(fields):
        if i in slots:
            elems[info.field_index[f.name]] = constant_value(slots[i], f.type, dl, resolve)
    return ConstAggregate(mt, elems)


def _union_const(init: ast.Expr, t: CType, mt: ir.StructType, dl: DataLayout, resolve: Resolve) -> Value:
    """A union's constant: its member's value, as the bytes of the union's storage type."""
    value = constant_value(init, t, dl, resolve)
    if mem_type(t, dl) == mt.fields[0]:
        return ConstAggregate(mt, [value] + [ConstZero(f) for f in mt.fields[1:]])
    return reinterpret(value, mt, dl)
