"""Lowering of typed expressions to IR: rvalues (`rv_*`) and lvalues (`lv_*`),
initializers and compound literals.

Each handler is a function of the `LoweringContext`; `RV_HANDLERS` and
`LV_HANDLERS` map AST node classes to them (`cx.rv(e)` and `cx.lv(e)`
dispatch through them). Builtin calls go to `builtin_calls.IMPLS`.
Arithmetic picks its IR opcode from `_BINOPS` by (operator, float?, signed?);
shift counts are masked to the operand width (OpenCL's rule); integer
division guards a zero divisor so a kernel never traps.
"""

from __future__ import annotations

from ....ir import types as ir
from ....ir.datalayout import DataLayout
from ....ir.builder import add_incoming
from ....ir.values import ConstAggregate, ConstInt, ConstZero, Undef, Value
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..builtins.gnu_builtins import UNEVALUATED_IMPLS
from ..builtins.table import Builtin
from ..layout import align_of, mem_type, reg_type, struct_info
from .builtin_calls import lower_builtin_call
from .helpers import LValue, bool_to_int, const_float, const_of, convert, is_unsigned, load, scalar_bits, splat, store
from .lowering_context import LoweringContext, LvHandler, RvHandler
from ..sema.folding import fold
from ..layout import size_of

_NO_SIGNED_WRAP = ("add", "sub", "mul")

# (op, is_float, is_unsigned) -> IR opcode
_BINOPS: dict[tuple[str, bool, bool], str] = {}
for _u in (False, True):
    _BINOPS.update({("+", False, _u): "add", ("-", False, _u): "sub", ("*", False, _u): "mul",
                    ("&", False, _u): "and", ("|", False, _u): "or", ("^", False, _u): "xor",
                    ("<<", False, _u): "shl"})
    _BINOPS.update({("+", True, _u): "fadd", ("-", True, _u): "fsub", ("*", True, _u): "fmul",
                    ("/", True, _u): "fdiv", ("%", True, _u): "frem"})
_BINOPS.update({("/", False, False): "sdiv", ("/", False, True): "udiv",
                ("%", False, False): "srem", ("%", False, True): "urem",
                (">>", False, False): "ashr", (">>", False, True): "lshr"})

_ICMP = {"<": ("slt", "ult"), ">": ("sgt", "ugt"), "<=": ("sle", "ule"), ">=": ("sge", "uge"),
         "==": ("eq", "eq"), "!=": ("ne", "ne")}
_FCMP = {"<": "olt", ">": "ogt", "<=": "ole", ">=": "oge", "==": "oeq", "!=": "une"}


# -- dispatch -----------------------------------------------------------
def lv_other(cx: LoweringContext, e: ast.Expr) -> LValue:
    """The lvalue of a node class with no lvalue handler: an aggregate rvalue's temporary."""
    if isinstance(e.ctype, (ct.Struct, ct.Array)):
        return lv_materialized(cx, e)
    raise NotImplementedError(f"expression {type(e).__name__} is not an lvalue")


def lv_materialized(cx: LoweringContext, e: ast.Expr) -> LValue:
    """An aggregate rvalue (`make().v[2]`, `(c ? s : t).x`) in a temporary, so its
    members and array elements have addresses (C's temporary lifetime)."""
    assert e.ctype is not None
    lv = LValue(cx.temporary(e.ctype), e.ctype)
    store(cx.b, cx.layout, lv, cx.rv(e))
    return lv


# -- leaves -------------------------------------------------------------
def rv_int(cx: LoweringContext, e: ast.IntLiteral) -> Value:
    return ConstInt(reg_type(e.ctype, cx.layout), e.value)  # type: ignore[arg-type]


def rv_float(cx: LoweringContext, e: ast.FloatLiteral) -> Value:
    return const_float(reg_type(e.ctype, cx.layout), e.value)  # type: ignore[arg-type]


def rv_identifier(cx: LoweringContext, e: ast.Identifier) -> Value:
    if isinstance(e.decl, ast.EnumConstant):
        return ConstInt(ir.I32, e.decl.value)
    return load(cx.b, cx.layout, lv_identifier(cx, e))


def rv_sizeof(cx: LoweringContext, e: ast.SizeOf) -> Value:
    v = fold(e)
    return ConstInt(reg_type(e.ctype, cx.layout), int(v or 0))  # type: ignore[arg-type]


def lv_identifier(cx: LoweringContext, e: ast.Identifier) -> LValue:
    assert e.decl is not None and e.ctype is not None
    return LValue(cx.storage(e.decl), e.ctype)


def lv_string(cx: LoweringContext, e: ast.StringLiteral) -> LValue:
    assert e.ctype is not None
    return LValue(cx.string_constant(e.value), e.ctype)


# -- casts --------------------------------------------------------------
def rv_implicit(cx: LoweringContext, e: ast.ImplicitCast) -> Value:
    assert e.ctype is not None and e.operand.ctype is not None
    if e.kind == "lvalue-to-rvalue":
        lv = cx.lv(e.operand)
        if st.is_void(e.ctype):  # `p[i];` on a `void *` (GNU C): evaluated, nothing loaded
            return Undef(ir.VOID)
        return load(cx.b, cx.layout, lv)
    if e.kind == "array-decay":
        return cx.lv(e.operand).addr
    if e.kind == "to-bool" and _is_scalar_test(e.operand):
        return test_value(cx, e.operand)  # type: ignore[arg-type]
    return convert(cx.b, cx.rv(e.operand), e.operand.ctype, e.ctype)


def test_value(cx: LoweringContext, e: ast.Binary) -> Value:
    """A scalar comparison or logical operator as an i1, without the round trip through int."""
    if e.op in ("&&", "||"):
        return _short_circuit(cx, e, as_int=False)
    return compare(cx, e.op, cx.rv(e.lhs), cx.rv(e.rhs), e.lhs.ctype)  # type: ignore[arg-type]


def rv_cast(cx: LoweringContext, e: ast.Cast) -> Value:
    v = cx.rv(e.operand)
    assert e.operand.ctype is not None
    if st.is_void(e.to):
        return v
    return convert(cx.b, v, e.operand.ctype, e.to)


# -- unary --------------------------------------------------------------
def rv_unary(cx: LoweringContext, e: ast.Unary) -> Value:
    if e.op in ("++pre", "--pre", "++post", "--post"):
        return _incdec(cx, e)
    if e.op == "&":
        return cx.lv(e.operand).addr
    if e.op == "*":
        return load(cx.b, cx.layout, lv_deref(cx, e))
    v = cx.rv(e.operand)
    t = e.ctype
    assert t is not None
    if e.op == "+":
        return v
    if e.op == "-":
        return cx.b.fneg(v) if v.type.is_float_or_float_vector() else \
            cx.b.binop("sub", const_of(v.type, 0), v)
    if e.op == "~":
        return cx.b.binop("xor", v, const_of(v.type, -1))
    assert e.op == "!"
    if isinstance(v.type, ir.VectorType):
        zero = const_of(v.type, 0)
        c = cx.b.fcmp("oeq", v, zero) if v.type.is_float_or_float_vector() else cx.b.icmp("eq", v, zero)
        return bool_to_int(cx.b, c, t)
    return bool_to_int(cx.b, cx.b.binop("xor", v, ConstInt(ir.I1, 1)), t)


def lv_deref(cx: LoweringContext, e: ast.Unary) -> LValue:
    assert e.ctype is not None
    return LValue(cx.rv(e.operand), e.ctype)


def _incdec(cx: LoweringContext, e: ast.Unary) -> Value:
    lv = cx.lv(e.operand)
    old = load(cx.b, cx.layout, lv)
    t = e.ctype
    assert t is not None
    delta = 1 if e.op.startswith("++") else -1
    if isinstance(t, ct.Pointer):
        new = cx.b.gep(_step_type(t.pointee, cx.layout), old, [ConstInt(ir.I64, delta)])
    elif old.type.is_float_or_float_vector():
        new = cx.b.binop("fadd", old, const_of(old.type, float(delta)))
    else:
        new = cx.b.binop("add", old, const_of(old.type, delta))
    store(cx.b, cx.layout, lv, new)
    return new if e.op.endswith("pre") else old


# -- binary -------------------------------------------------------------
def rv_binary(cx: LoweringContext, e: ast.Binary) -> Value:
    if e.op == ",":
        cx.rv(e.lhs)
        return cx.rv(e.rhs)
    if e.op in ("&&", "||") and not st.is_vector(e.ctype):  # type: ignore[arg-type]
        return _short_circuit(cx, e)
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None and e.ctype is not None
    a, b = cx.rv(e.lhs), cx.rv(e.rhs)
    return binary_values(cx, e.op, a, b, lt, rt, e.ctype)


def binary_values(cx: LoweringContext, op: str, a: Value, b: Value, lt: CType, rt: CType, res: CType) -> Value:
    if op in _ICMP:
        return bool_to_int(cx.b, compare(cx, op, a, b, lt), res)
    if op in ("&&", "||"):
        za, zb = nonzero_mask(cx, a), nonzero_mask(cx, b)
        c = cx.b.binop("and" if op == "&&" else "or", za, zb)
        return bool_to_int(cx.b, c, res)
    if isinstance(lt, ct.Pointer) or isinstance(rt, ct.Pointer):
        return _pointer_arith(cx, op, a, b, lt, rt)
    return arith(cx, op, a, b, lt)


def nonzero_mask(cx: LoweringContext, v: Value) -> Value:
    if v.type.scalar() == ir.I1:
        return v
    zero = const_of(v.type, 0)
    return cx.b.fcmp("une", v, zero) if v.type.is_float_or_float_vector() else cx.b.icmp("ne", v, zero)


def arith(cx: LoweringContext, op: str, a: Value, b: Value, t: CType) -> Value:
    is_float = a.type.is_float_or_float_vector()
    opcode = _BINOPS[(op, is_float, is_unsigned(t))]
    if op in ("<<", ">>"):
        bits = scalar_bits(a.type)
        if isinstance(b, ConstInt):
            b = ConstInt(b.type, b.value & (bits - 1))
        else:
            b = cx.b.binop("and", b, const_of(b.type, bits - 1))
    elif opcode in ("sdiv", "udiv", "srem", "urem"):
        b = _safe_divisor(cx, a, b, opcode.startswith("s"))
    result = cx.b.binop(opcode, a, b)
    if opcode in _NO_SIGNED_WRAP and not is_unsigned(t):
        # C: signed overflow is undefined, so (like clang) promise none; this lets
        # LLVM turn `row * n + k` index arithmetic into pointer increments.
        result.attrs["nsw"] = True
    return result


def _safe_divisor(cx: LoweringContext, a: Value, d: Value, signed: bool) -> Value:
    """The divisor with the cases that trap on some machines replaced by 1: zero, and -1
    when the dividend is the most negative value (the result then wraps, as the
    hardware-independent answer would). OpenCL C makes both an unspecified value, not an
    exception (OpenCL C 1.2 §6.3), so a kernel must not kill the process that runs it; and LLVM's
    division by zero is undefined behaviour, which would let its optimiser delete the code
    around it (PoCL's bug of tools/clsmith/FINDINGS.md, vectors seed 1000112)."""
    bits = scalar_bits(d.type)
    minus_one = (1 << bits) - 1
    if isinstance(d, ConstInt) and d.value != 0 and not (signed and d.value == minus_one):
        return d
    bad = cx.b.icmp("eq", d, const_of(d.type, 0))
    if signed:
        overflow = cx.b.binop("and", cx.b.icmp("eq", d, const_of(d.type, -1)),
                              cx.b.icmp("eq", a, const_of(a.type, 1 << (bits - 1))))
        bad = cx.b.binop("or", bad, overflow)
    return cx.b.select(bad, const_of(d.type, 1), d)


def compare(cx: LoweringContext, op: str, a: Value, b: Value, t: CType) -> Value:
    if a.type.is_float_or_float_vector():
        return cx.b.fcmp(_FCMP[op], a, b)
    unsigned = is_unsigned(t) or isinstance(t, ct.Pointer)
    return cx.b.icmp(_ICMP[op][1 if unsigned else 0], a, b)


def _pointer_arith(cx: LoweringContext, op: str, a: Value, b: Value, lt: CType, rt: CType) -> Value:
    if isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer):
        size = _elem_size(lt, cx.layout)
        diff = cx.b.binop("sub", cx.b.cast("ptrtoint", a, ir.I64), cx.b.cast("ptrtoint", b, ir.I64))
        return cx.b.binop("sdiv", diff, ConstInt(ir.I64, size)) if size != 1 else diff
    ptr, ptype, n = (a, lt, b) if isinstance(lt, ct.Pointer) else (b, rt, a)
    assert isinstance(ptype, ct.Pointer)
    if op == "-":
        n = cx.b.binop("sub", ConstInt(ir.I64, 0), n)
    return cx.b.gep(_step_type(ptype.pointee, cx.layout), ptr, [n])


def _short_circuit(cx: LoweringContext, e: ast.Binary, as_int: bool = True) -> Value:
    rhs_block = cx.new_block("land.rhs" if e.op == "&&" else "lor.rhs")
    end = cx.new_block("land.end" if e.op == "&&" else "lor.end")
    a = cx.rv(e.lhs)
    a_block = cx.current_block()
    if e.op == "&&":
        cx.b.condbr(a, rhs_block, end)
    else:
        cx.b.condbr(a, end, rhs_block)
    cx.b.position_at_end(rhs_block)
    bval = cx.rv(e.rhs)
    b_block = cx.current_block()
    cx.b.br(end)
    cx.b.position_at_end(end)
    phi = cx.b.phi(ir.I1)
    add_incoming(phi, ConstInt(ir.I1, 1 if e.op == "||" else 0), a_block)
    add_incoming(phi, bval, b_block)
    return bool_to_int(cx.b, phi, e.ctype) if as_int else phi  # type: ignore[arg-type]


# -- assignment ---------------------------------------------------------
def rv_assign(cx: LoweringContext, e: ast.Assign) -> Value:
    assert e.ctype is not None
    if e.op == "=":
        v = cx.rv(e.value)
        store(cx.b, cx.layout, cx.lv(e.target), v)
        return v
    lv = cx.lv(e.target)
    old = load(cx.b, cx.layout, lv)
    ctype = e.compute_type
    assert ctype is not None  # sema sets it on every compound assignment
    rt = e.value.ctype
    assert rt is not None
    b = cx.rv(e.value)
    a = convert(cx.b, old, e.ctype, ctype)
    res = binary_values(cx, e.op[:-1], a, b, ctype, rt, ctype)
    new = convert(cx.b, res, ctype, e.ctype)
    store(cx.b, cx.layout, lv, new)
    return new


# -- ?: -----------------------------------------------------------------
def rv_conditional(cx: LoweringContext, e: ast.Conditional) -> Value:
    assert e.ctype is not None
    if st.is_vector(e.cond.ctype):  # type: ignore[arg-type]
        c = cx.rv(e.cond)
        a, b = cx.rv(e.then), cx.rv(e.else_)
        neg = cx.b.icmp("slt", c, const_of(c.type, 0))
        return cx.b.select(neg, a, b)
    then_b, else_b, end = cx.new_block("cond.true"), cx.new_block("cond.false"), cx.new_block("cond.end")
    cx.b.condbr(cx.rv(e.cond), then_b, else_b)
    arms = []
    for block, arm in ((then_b, e.then), (else_b, e.else_)):
        cx.b.position_at_end(block)
        v = cx.rv(arm)
        arms.append((v, cx.current_block()))
        cx.b.br(end)
    cx.b.position_at_end(end)
    if st.is_void(e.ctype):
        return Undef(ir.VOID)
    phi = cx.b.phi(reg_type(e.ctype, cx.layout))
    for v, pred in arms:
        add_incoming(phi, v, pred)
    return phi


# -- calls --------------------------------------------------------------
def rv_call(cx: LoweringContext, e: ast.Call) -> Value:
    if e.builtin is not None:
        sig: Builtin = e.builtin
        unevaluated = sig.impl == "const_nan" or sig.impl in UNEVALUATED_IMPLS
        args = [] if unevaluated else [cx.rv(a) for a in e.args]
        v = lower_builtin_call(cx, sig, args, e)
        return v if v is not None else Undef(ir.VOID)
    assert isinstance(e.callee, ast.Identifier) and isinstance(e.callee.decl, ast.FunctionDecl)
    fn = cx.unit.functions[e.callee.decl.link_name or e.callee.name]
    return cx.b.call(fn, [cx.rv(a) for a in e.args])


# -- postfix ------------------------------------------------------------
def lv_index(cx: LoweringContext, e: ast.Index) -> LValue:
    assert e.ctype is not None
    bt = e.base.ctype
    if isinstance(bt, ct.Vector):
        base = cx.lv(e.base)
        idx = cx.rv(e.index)
        vec_t: CType = bt
        if base.swizzle is not None:  # v.zyx[i]: map i through the swizzle's indices
            assert base.vec_type is not None
            table = ConstAggregate(ir.VectorType(ir.I64, len(base.swizzle)),
                                   [ConstInt(ir.I64, max(i, 0)) for i in base.swizzle])
            idx = cx.b.extractelement(table, idx)
            vec_t = base.vec_type
        addr = cx.b.gep(mem_type(vec_t, cx.layout), base.addr, [ConstInt(ir.I64, 0), idx])
        return LValue(addr, e.ctype)
    assert isinstance(bt, ct.Pointer)
    addr = cx.b.gep(_step_type(bt.pointee, cx.layout), cx.rv(e.base), [cx.rv(e.index)])
    return LValue(addr, e.ctype)


def rv_index(cx: LoweringContext, e: ast.Index) -> Value:
    if isinstance(e.base.ctype, ct.Vector) and not e.base.is_lvalue:
        return cx.b.extractelement(cx.rv(e.base), cx.rv(e.index))
    return load(cx.b, cx.layout, lv_index(cx, e))


def lv_member(cx: LoweringContext, e: ast.Member) -> LValue:
    assert e.ctype is not None
    if e.swizzle is not None:
        base = cx.lv(e.base)
        if base.swizzle is not None:
            return LValue(base.addr, e.ctype, tuple(base.swizzle[i] for i in e.swizzle), base.vec_type,
                          base.align)
        return LValue(base.addr, e.ctype, e.swizzle, base.ctype, base.align)
    if e.arrow:
        st_t = e.base.ctype.pointee  # type: ignore[union-attr]
        return member_of(cx, LValue(cx.rv(e.base), st_t), e)
    return member_of(cx, cx.lv(e.base), e)


def member_of(cx: LoweringContext, outer: LValue, e: ast.Member) -> LValue:
    """The lvalue of field `e.name` of the struct or union object `outer`."""
    st_t = outer.ctype
    assert isinstance(st_t, ct.Struct) and e.ctype is not None
    info = struct_info(st_t.definition, cx.layout)
    align = 1 if st_t.definition.packed else outer.align
    if st_t.definition.is_union:
        return LValue(outer.addr, e.ctype, align=align)
    idx = info.field_index[e.name]
    gep = cx.b.gep(info.ir_type, outer.addr, [ConstInt(ir.I32, 0), ConstInt(ir.I32, idx)])
    return LValue(gep, e.ctype, align=align)


def rv_member(cx: LoweringContext, e: ast.Member) -> Value:
    if e.base.is_lvalue or e.arrow:
        return load(cx.b, cx.layout, lv_member(cx, e))
    base = cx.rv(e.base)
    if e.swizzle is not None:
        if len(e.swizzle) == 1:
            return cx.b.extractelement(base, ConstInt(ir.I32, e.swizzle[0]))
        return cx.b.shufflevector(base, Undef(base.type), e.swizzle)
    # A member of a struct or union value (`f().x`): spill it and read the member.
    assert e.base.ctype is not None
    tmp = cx.temporary(e.base.ctype)
    store(cx.b, cx.layout, LValue(tmp, e.base.ctype), base)
    return load(cx.b, cx.layout, member_of(cx, LValue(tmp, e.base.ctype), e))


# -- vector literals ----------------------------------------------------
def rv_vector_literal(cx: LoweringContext, e: ast.VectorLiteral) -> Value:
    to = e.ctype
    assert isinstance(to, ct.Vector)
    vals = [cx.rv(c) for c in e.components]
    if len(vals) == 1 and not isinstance(vals[0].type, ir.VectorType):
        return splat(cx.b, vals[0], to)
    vec: Value = Undef(reg_type(to, cx.layout))
    for i, s in enumerate(cx.b.scalars(vals)):
        vec = cx.b.insertelement(vec, s, ConstInt(ir.I32, i))
    return vec


# -- initializers and compound literals ---------------------------------
def initialize(cx: LoweringContext, lv: LValue, init: ast.Expr) -> None:
    """Store initializer `init` (an expression, or an InitList with the slots sema chose) into `lv`."""
    if not isinstance(init, ast.InitList):
        store(cx.b, cx.layout, lv, cx.rv(init))
        return
    t = lv.ctype
    cx.b.store(ConstZero(mem_type(t, cx.layout)), lv.addr, align_of(t, cx.layout))
    for index, sub in init.slots:
        if isinstance(t, ct.Vector) and isinstance(sub.ctype, ct.Vector):  # a vector filling several elements
            part = LValue(lv.addr, sub.ctype, tuple(range(index, index + sub.ctype.count)), t)
            initialize(cx, part, sub)
        else:
            initialize(cx, element(cx, lv, index), sub)


def element(cx: LoweringContext, lv: LValue, index: int) -> LValue:
    """Element or member `index` of the aggregate object `lv`."""
    t = lv.ctype
    zero = ConstInt(ir.I32, 0)
    if isinstance(t, ct.Struct):
        d = t.definition
        f = (d.fields or [])[index]
        if d.is_union:
            return LValue(lv.addr, f.type)
        info = struct_info(d, cx.layout)
        idx = ConstInt(ir.I32, info.field_index[f.name])
        return LValue(cx.b.gep(info.ir_type, lv.addr, [zero, idx]), f.type)
    if isinstance(t, ct.Vector):
        return LValue(lv.addr, ct.Scalar(t.elem), (index,), t)
    assert isinstance(t, ct.Array)
    addr = cx.b.gep(mem_type(t, cx.layout), lv.addr, [zero, ConstInt(ir.I64, index)])
    return LValue(addr, t.elem)


def lv_compound_literal(cx: LoweringContext, e: ast.CompoundLiteral) -> LValue:
    """A compound literal's object: a private temporary, initialized each time it is reached."""
    lv = LValue(cx.temporary(e.to), e.to)
    initialize(cx, lv, e.init)
    return lv


def rv_compound_literal(cx: LoweringContext, e: ast.CompoundLiteral) -> Value:
    return load(cx.b, cx.layout, lv_compound_literal(cx, e))


RV_HANDLERS: dict[type, RvHandler] = {
    ast.IntLiteral: rv_int, ast.FloatLiteral: rv_float, ast.Identifier: rv_identifier,
    ast.ImplicitCast: rv_implicit, ast.Cast: rv_cast, ast.Unary: rv_unary, ast.Binary: rv_binary,
    ast.Assign: rv_assign, ast.Conditional: rv_conditional, ast.Call: rv_call, ast.Index: rv_index,
    ast.Member: rv_member, ast.VectorLiteral: rv_vector_literal, ast.SizeOf: rv_sizeof,
    ast.CompoundLiteral: rv_compound_literal,
}
LV_HANDLERS: dict[type, LvHandler] = {
    ast.Identifier: lv_identifier, ast.Unary: lv_deref, ast.Index: lv_index, ast.Member: lv_member,
    ast.StringLiteral: lv_string, ast.CompoundLiteral: lv_compound_literal,
}


def _is_scalar_test(e: ast.Expr) -> bool:
    return isinstance(e, ast.Binary) and (e.op in _ICMP or e.op in ("&&", "||")) and \
        isinstance(e.ctype, ct.Scalar) and not isinstance(e.lhs.ctype, ct.Vector)


def _step_type(pointee: CType, dl: DataLayout) -> ir.Type:
    """What one step of a pointer to `pointee` moves over: a byte for `void *` (GNU C, as clang
    accepts `&p[i]` on a `void *`), else the pointee."""
    return ir.I8 if st.is_void(pointee) else mem_type(pointee, dl)


def _elem_size(t: ct.Pointer, dl: DataLayout) -> int:
    return size_of(t.pointee, dl) if not st.is_void(t.pointee) else 1
