"""OpenCL C 2.0 C11-style atomics (OpenCL C spec 6.13.11), from -cl-std=CL2.0 on.

This module owns the atomic types, the overload table of the atomic
functions and their lowering:

- Types: `atomic_int`, `atomic_uint`, `atomic_long`, `atomic_ulong`,
  `atomic_float`, `atomic_double` are `AtomicScalar`s, scalars of their own
  class, so an `int *` does not match an `atomic_int *` parameter;
  `atomic_intptr_t`, `atomic_uintptr_t`, `atomic_size_t`, `atomic_ptrdiff_t`
  name the 64-bit ones and `atomic_flag` is `atomic_int` (as in clang).
  `ATOMIC_VAR_INIT` and `ATOMIC_FLAG_INIT` are macros (preprocess.py).
- Functions: `atomic_init`, `atomic_store`, `atomic_load`, `atomic_exchange`,
  `atomic_compare_exchange_strong`/`_weak`, `atomic_fetch_<op>` for
  add/sub/or/xor/and/min/max on integers and add/sub on `atomic_float` and
  `atomic_double` (cl_ext_float_atomics' fetch_add), `atomic_flag_test_and_set`,
  `atomic_flag_clear`, each with `_explicit` forms taking a memory_order
  (two for compare-exchange) and optionally a memory_scope, on generic,
  global, local and private objects.
- Lowering, onto the IR's `atomicrmw`/`cmpxchg` only: a load is
  `atomicrmw or p, 0`, a store an `atomicrmw xchg` whose result is unused,
  compare-exchange a `cmpxchg` whose old value goes to `*expected` when it
  failed and whose success is the result, a float fetch_add an `atomicrmw
  fadd` (fetch_sub adds the negated operand). Floating
  objects are accessed through the same-sized integer where the IR needs one.
  A constant memory_order/memory_scope maps to the IR's ordering/scope; one
  known only at run time gets the strongest (seq_cst, all_svm_devices).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

from ....ir import types as ir
from ....ir.types import AddressSpace
from ....ir.values import ConstFloat, ConstInt, Value
from .. import ast
from .. import c_types as ct
from .table import Builtin
from ..c_types import CType, ScalarKind as K
from ..layout import plain_type
from .builtin_context import BuiltinContext, BuiltinImpl


@dataclass(frozen=True)
class AtomicScalar(ct.Scalar):
    """An atomic scalar type (`atomic_int`, ...): only the atomic functions access it."""

    def __str__(self) -> str:
        q = self.qualifiers_str()
        base = f"atomic_{self.kind.spelling}"
        return f"{q} {base}" if q else base


def atomic_type_names() -> dict[str, CType]:
    """The atomic type names OpenCL C 2.0 predefines."""
    names: dict[str, CType] = {f"atomic_{k.spelling}": AtomicScalar(k)
                               for k in (K.INT, K.UINT, K.LONG, K.ULONG, K.FLOAT, K.DOUBLE)}
    names.update({"atomic_intptr_t": AtomicScalar(K.LONG), "atomic_uintptr_t": AtomicScalar(K.ULONG),
                  "atomic_size_t": AtomicScalar(K.ULONG), "atomic_ptrdiff_t": AtomicScalar(K.LONG),
                  "atomic_flag": AtomicScalar(K.INT)})
    return names


# -- the overload table -------------------------------------------------------

_ORDER, _SCOPE = ct.Enum("memory_order"), ct.Enum("memory_scope")
_INT_KINDS = (K.INT, K.UINT, K.LONG, K.ULONG)
_ALL_KINDS = _INT_KINDS + (K.FLOAT, K.DOUBLE)
_SPACES = (AddressSpace.GENERIC, AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.PRIVATE)
FETCH_OPS = ("add", "sub", "or", "xor", "and", "min", "max")
FLOAT_FETCH_OPS = ("add", "sub")  # cl_ext_float_atomics' atomic_fetch_add/sub on atomic_float and atomic_double


def _object_ptr(kind: K, space: AddressSpace) -> ct.Pointer:
    return ct.Pointer(AtomicScalar(kind, volatile=True, space=space))


def _with_explicit_forms(table: dict[str, list[Builtin]], name: str, ret: CType,
                         params: tuple[CType, ...], impl: str, orders: int = 1) -> None:
    """`name(params)`, `name_explicit(params, order...)` and `name_explicit(params, order..., scope)`."""
    explicit = name + "_explicit"
    table.setdefault(name, []).append(Builtin(name, ret, params, impl))
    with_orders = params + (_ORDER,) * orders
    table.setdefault(explicit, []).append(Builtin(explicit, ret, with_orders, impl))
    table.setdefault(explicit, []).append(Builtin(explicit, ret, with_orders + (_SCOPE,), impl))


def _add_access(table: dict[str, list[Builtin]], kind: K, space: AddressSpace) -> None:
    p, c = _object_ptr(kind, space), ct.Scalar(kind)
    table.setdefault("atomic_init", []).append(Builtin("atomic_init", ct.VOID, (p, c), "c11_init"))
    _with_explicit_forms(table, "atomic_store", ct.VOID, (p, c), "c11_store")
    _with_explicit_forms(table, "atomic_load", c, (p,), "c11_load")
    _with_explicit_forms(table, "atomic_exchange", c, (p, c), "c11_exchange")
    for expected_space in _SPACES:
        expected = ct.Pointer(ct.Scalar(kind, space=expected_space))
        for strength in ("strong", "weak"):
            _with_explicit_forms(table, f"atomic_compare_exchange_{strength}", ct.BOOL, (p, expected, c),
                                 "c11_compare_exchange", orders=2)


def _add_fetch(table: dict[str, list[Builtin]], kind: K, space: AddressSpace) -> None:
    p, c = _object_ptr(kind, space), ct.Scalar(kind)
    for op in (FLOAT_FETCH_OPS if kind.is_float else FETCH_OPS):
        _with_explicit_forms(table, f"atomic_fetch_{op}", c, (p, c), f"c11_fetch_{op}")


def _add_flag(table: dict[str, list[Builtin]], space: AddressSpace) -> None:
    p = _object_ptr(K.INT, space)
    _with_explicit_forms(table, "atomic_flag_test_and_set", ct.BOOL, (p,), "c11_flag_test_and_set")
    _with_explicit_forms(table, "atomic_flag_clear", ct.VOID, (p,), "c11_flag_clear")


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    table: dict[str, list[Builtin]] = {}
    for space in _SPACES:
        for kind in _ALL_KINDS:
            _add_access(table, kind, space)
        for kind in _ALL_KINDS:
            _add_fetch(table, kind, space)
        _add_flag(table, space)
    return table


def atomic_overloads(name: str) -> list[Builtin]:
    """The C11-style atomic overloads of `name` (empty for other names)."""
    return _table().get(name, [])


# -- lowering -----------------------------------------------------------------

_IR_ORDERING = {0: "monotonic", 1: "acquire", 2: "acquire", 3: "release", 4: "acq_rel", 5: "seq_cst"}
_IR_SCOPE = {0: "work_item", 1: "work_group", 2: "device", 3: "all_svm_devices", 4: "sub_group"}


def _ordering(v: Optional[Value]) -> str:
    """The IR ordering of a memory_order argument (seq_cst when absent or not constant)."""
    if isinstance(v, ConstInt):
        return _IR_ORDERING.get(v.value, "seq_cst")
    return "seq_cst"


def _scope(v: Optional[Value]) -> str:
    """The IR scope of a memory_scope argument (device when absent, the widest when not constant)."""
    if v is None:
        return "device"
    if isinstance(v, ConstInt):
        return _IR_SCOPE.get(v.value, "all_svm_devices")
    return "all_svm_devices"


def _order_and_scope(args: list[Value], first: int) -> tuple[str, str]:
    """Ordering and scope from the explicit arguments starting at `first` (if any)."""
    order = args[first] if len(args) > first else None
    scope = args[first + 1] if len(args) > first + 1 else None
    return _ordering(order), _scope(scope)


def _as_int(cx: BuiltinContext, v: Value) -> Value:
    """`v` as the integer of its width (floats are bitcast; the IR's cmpxchg wants integers)."""
    if isinstance(v.type, ir.IntType):
        return v
    assert isinstance(v.type, ir.FloatType)
    return cx.b.cast("bitcast", v, ir.IntType(v.type.bits))


def _from_int(cx: BuiltinContext, v: Value, t: ir.Type) -> Value:
    return v if v.type == t else cx.b.cast("bitcast", v, t)


def _bool(cx: BuiltinContext, cond: Value) -> Value:
    t = plain_type(ct.BOOL)
    return cond if cond.type == t else cx.b.cast("zext", cond, t)


def b_init(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    cx.b.store(args[1], args[0])
    return None


def b_store(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    ordering, scope = _order_and_scope(args, 2)
    cx.b.atomicrmw("xchg", args[0], args[1], ordering=ordering, scope=scope)
    return None


def b_load(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    ordering, scope = _order_and_scope(args, 1)
    t = plain_type(sig.ret)
    assert isinstance(t, (ir.IntType, ir.FloatType))
    int_t = t if isinstance(t, ir.IntType) else ir.IntType(t.bits)
    old = cx.b.atomicrmw("or", args[0], ConstInt(int_t, 0), ordering=ordering, scope=scope)
    return _from_int(cx, old, t)


def b_exchange(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    ordering, scope = _order_and_scope(args, 2)
    return cx.b.atomicrmw("xchg", args[0], args[1], ordering=ordering, scope=scope)


def b_compare_exchange(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    obj, expected_ptr, desired = args[0], args[1], args[2]
    ordering, scope = _order_and_scope(args, 3)  # the failure order (args[4]) is implied by it
    t = desired.type
    expected = cx.b.load(t, expected_ptr)
    expected_bits = _as_int(cx, expected)
    old = cx.b.cmpxchg(obj, expected_bits, _as_int(cx, desired), ordering=ordering, scope=scope)
    ok = cx.b.icmp("eq", old, expected_bits)
    _store_unless(cx, ok, _from_int(cx, old, t), expected_ptr)
    return _bool(cx, ok)


def _store_unless(cx: BuiltinContext, cond: Value, value: Value, ptr: Value) -> None:
    """`if (!cond) *ptr = value;` (a failed compare-exchange updates `*expected`)."""
    failed, done = cx.new_block("cmpxchg.failed"), cx.new_block("cmpxchg.done")
    cx.b.condbr(cond, done, failed)
    cx.b.position_at_end(failed)
    cx.b.store(value, ptr)
    cx.b.br(done)
    cx.b.position_at_end(done)


def _fetch_binop(op: str, value_type: CType) -> str:
    unsigned = isinstance(value_type, ct.Scalar) and not value_type.kind.signed
    return "u" + op if op in ("min", "max") and unsigned else op


def b_fetch(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    op = _fetch_binop(sig.impl[len("c11_fetch_"):], sig.ret)
    ordering, scope = _order_and_scope(args, 2)
    operand = args[1]
    if operand.type.is_float_or_float_vector():
        if op == "sub":
            operand = cx.b.binop("fsub", ConstFloat(operand.type, -0.0), operand)
        op = "fadd"
    return cx.b.atomicrmw(op, args[0], operand, ordering=ordering, scope=scope)


def b_flag_test_and_set(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Value:
    ordering, scope = _order_and_scope(args, 1)
    old = cx.b.atomicrmw("xchg", args[0], ConstInt(ir.I32, 1), ordering=ordering, scope=scope)
    return _bool(cx, cx.b.icmp("ne", old, ConstInt(ir.I32, 0)))


def b_flag_clear(cx: BuiltinContext, sig: Builtin, args: list[Value], e: Optional[ast.Call]) -> Optional[Value]:
    ordering, scope = _order_and_scope(args, 1)
    cx.b.atomicrmw("xchg", args[0], ConstInt(ir.I32, 0), ordering=ordering, scope=scope)
    return None


ATOMIC_IMPLS: dict[str, BuiltinImpl] = {
    "c11_init": b_init, "c11_store": b_store, "c11_load": b_load, "c11_exchange": b_exchange,
    "c11_compare_exchange": b_compare_exchange, "c11_flag_test_and_set": b_flag_test_and_set,
    "c11_flag_clear": b_flag_clear, **{f"c11_fetch_{op}": b_fetch for op in FETCH_OPS},
}
