"""Semantic analysis of expressions: types, lvalues, implicit casts, diagnostics.

The `check_*` functions of a `SemaContext`, one per expression node class
(`EXPR_HANDLERS`, with the casts of `casts` and the calls of `calls`), fill
`e.ctype` and `e.is_lvalue` (and `Identifier.decl`, `Member.swizzle`,
`Call.builtin`, `Assign.compute_type`) and return the node to use in its
place; `cx.check(e)` dispatches to them and `cx.value(e)` also converts the
result to an rvalue. Every error gives the expression `ErrorType`, which
later checks pass over silently.
"""

from __future__ import annotations

from typing import Optional

from ....ir.types import AddressSpace
from .. import ast
from ..ast import start_loc
from ..builtins.cl20_atomics import AtomicScalar
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType, ScalarKind as K
from .conversions import assign_convert, convert, to_rvalue
from .calls import check_call
from .casts import check_cast, check_sizeof, check_swizzle, check_vector_literal
from .sema_context import ExprHandler, SemaContext
from .folding import fold_int
from .conversions import is_null_constant
from .half_uses import check_half_literal, check_half_store

ARITH_OPS = {"+", "-", "*", "/"}
INT_OPS = {"%", "&", "|", "^"}
SHIFT_OPS = {"<<", ">>"}
REL_OPS = {"<", ">", "<=", ">=", "==", "!="}
LOGIC_OPS = {"&&", "||"}

_BOOL_CONSTANTS = {"true": 1, "false": 0}
_UNSIGNED_SUFFIX = {"u", "ul", "ull", "lu", "llu"}
_LONG_SUFFIX = {"l", "ll", "ul", "ull", "lu", "llu"}


# -- leaves -------------------------------------------------------------
def check_int_literal(cx: SemaContext, e: ast.IntLiteral) -> ast.Expr:
    s = e.suffix.lower()
    v = e.value
    based = getattr(e, "radix", 10) != 10  # hex and octal literals may become unsigned
    if s in _UNSIGNED_SUFFIX:
        order = [K.UINT, K.ULONG] if s not in _LONG_SUFFIX else [K.ULONG]
    elif s in _LONG_SUFFIX:
        order = [K.LONG, K.ULONG]
    else:
        order = [K.INT, K.UINT, K.LONG, K.ULONG] if based else [K.INT, K.LONG, K.ULONG]
    if not based and s not in _UNSIGNED_SUFFIX:
        order = [k for k in order if k.signed] + [K.ULONG]
    kind = next((k for k in order if v < 2 ** (k.size * 8 - (1 if k.signed else 0))), K.ULONG)
    e.ctype = ct.Scalar(kind)
    return e


def check_float_literal(cx: SemaContext, e: ast.FloatLiteral) -> ast.Expr:
    s = e.suffix.lower()
    if s == "f" or (s == "" and getattr(cx.options, "single_precision_constant", False)):
        e.ctype = ct.FLOAT
    elif s == "h":
        e.ctype = ct.HALF if check_half_literal(cx, e) else st.ERROR
    else:
        e.ctype = ct.DOUBLE
    return e


def check_string(cx: SemaContext, e: ast.StringLiteral) -> ast.Expr:
    # `__constant char[N]`, as clang types it in OpenCL C: not const (so no qualifier is
    # discarded passing one to `constant char *`); the constant space forbids writes
    e.ctype = ct.Array(ct.Scalar(K.CHAR), len(e.value) + 1, space=AddressSpace.CONSTANT)
    e.is_lvalue = True
    return e


def _function_name(cx: SemaContext, e: ast.Identifier) -> ast.Expr:
    """C99's `__func__` (and GNU's `__FUNCTION__`): the function's name, as clang's
    `const __constant char[N]` (a string literal, so also a constant's initializer)."""
    assert cx.current_function is not None
    name = ast.StringLiteral(e.loc, cx.current_function.name.encode())
    check_string(cx, name)
    assert isinstance(name.ctype, ct.Array)
    name.ctype = ct.Array(ct.Scalar(K.CHAR, const=True), name.ctype.count, space=AddressSpace.CONSTANT)
    return name


def check_identifier(cx: SemaContext, e: ast.Identifier) -> ast.Expr:
    decl = cx.lookup(e.name)
    if decl is None and e.name in _BOOL_CONSTANTS:  # OpenCL C's true and false are the ints 1 and 0
        decl = ast.EnumConstant(e.loc, e.name, _BOOL_CONSTANTS[e.name])
    if decl is None and e.name in ("__func__", "__FUNCTION__") and cx.current_function is not None:
        return _function_name(cx, e)
    if decl is None:
        return cx.error(e, f"use of undeclared identifier '{e.name}'")
    e.decl = decl
    if isinstance(decl, ast.EnumConstant):
        e.ctype = ct.INT
    elif isinstance(decl, (ast.VarDecl, ast.ParamDecl)):
        e.ctype = decl.ctype
        e.is_lvalue = True
    elif isinstance(decl, ast.FunctionDecl):
        e.ctype = decl.ctype
    else:
        return cx.error(e, f"unexpected type name '{e.name}': expected expression")
    return e


def check_stray_init_list(cx: SemaContext, e: ast.InitList) -> ast.Expr:
    return cx.error(e, "initializer list cannot be used here")


# -- unary --------------------------------------------------------------
def check_unary(cx: SemaContext, e: ast.Unary) -> ast.Expr:
    if e.op in ("++pre", "--pre", "++post", "--post"):
        return _check_incdec(cx, e)
    if e.op == "&":
        return _check_addr(cx, e)
    e.operand = cx.value(e.operand)
    t = e.operand.ctype
    if st.is_error(t):
        e.ctype = st.ERROR
        return e
    assert t is not None
    if e.op == "*":
        if not isinstance(t, ct.Pointer) or st.is_void(t.pointee):
            return cx.error(e, f"indirection requires pointer operand ('{t}' invalid)")
        e.ctype, e.is_lvalue = t.pointee, True
        return e
    if e.op == "!":
        if st.is_vector(t):
            e.ctype = st.relational_result(t)
            return e
        if not st.is_scalar(t):
            return _bad_unary(cx, e, t)
        e.operand = convert(e.operand, ct.BOOL)
        e.ctype = ct.INT
        return e
    ok = st.is_int_or_int_vector(t) if e.op == "~" else st.is_arith_or_vector(t)
    if not ok:
        return _bad_unary(cx, e, t)
    res = t if st.is_vector(t) else st.promote(t)
    e.operand = convert(e.operand, res)
    e.ctype = res
    return e


def _bad_unary(cx: SemaContext, e: ast.Unary, t: CType) -> ast.Expr:
    return cx.error(e, f"invalid argument type '{t}' to unary expression")


def _check_addr(cx: SemaContext, e: ast.Unary) -> ast.Expr:
    e.operand = cx.check(e.operand)
    t = e.operand.ctype
    if st.is_error(t):
        e.ctype = st.ERROR
        return e
    assert t is not None
    if _is_vector_element(e.operand):
        return cx.error(e, "address of vector element requested")
    if not e.operand.is_lvalue:
        return cx.error(e, f"cannot take the address of an rvalue of type '{t}'")
    e.ctype = ct.Pointer(t.with_space(t.space or AddressSpace.PRIVATE))
    return e


def _is_vector_element(e: ast.Expr) -> bool:
    if isinstance(e, ast.Member) and e.swizzle is not None:
        return True
    return isinstance(e, ast.Index) and st.is_vector(e.base.ctype or st.ERROR)


def modifiable(cx: SemaContext, target: ast.Expr, loc_expr: ast.Expr) -> bool:
    t = target.ctype
    if st.is_error(t):
        return False
    assert t is not None
    loc = loc_expr.loc  # clang puts the caret on the assignment operator
    if not target.is_lvalue:
        cx.diags.error(loc, "expression is not assignable")
        return False
    if isinstance(t, ct.Array):
        cx.diags.error(loc, f"array type '{t}' is not assignable")
        return False
    if st.is_incomplete_struct(t) or st.is_void(t):
        cx.diags.error(loc, f"incomplete type '{t}' is not assignable")
        return False
    if t.const or (t.space is AddressSpace.CONSTANT):
        if isinstance(target, ast.Identifier):
            diag = cx.diags.error(loc, f"cannot assign to variable '{target.name}' with "
                                  f"const-qualified type '{t}'")
            if target.decl is not None:
                cx.diags.note(diag, target.decl.loc, f"variable '{target.name}' declared const here")
        else:
            cx.diags.error(loc, "read-only variable is not assignable")
        return False
    if isinstance(target, ast.Member) and target.swizzle is not None and \
            len(set(target.swizzle)) != len(target.swizzle):
        cx.diags.error(loc, "vector is not assignable (contains duplicate components)")
        return False
    return True


def _check_incdec(cx: SemaContext, e: ast.Unary) -> ast.Expr:
    e.operand = cx.check(e.operand)
    t = e.operand.ctype
    if not modifiable(cx, e.operand, e):
        e.ctype = st.ERROR
        return e
    assert t is not None
    if isinstance(t, AtomicScalar):  # only the atomic functions access an atomic object
        return _bad_unary(cx, e, t)
    if not (st.is_arith_or_vector(t) or st.is_pointer(t)):
        return cx.error(e, f"cannot increment value of type '{t}'")
    if isinstance(t, ct.Pointer) and st.is_unsized_object(t.pointee):
        return incomplete_arithmetic(cx, e, t)
    e.ctype = t.unqualified()
    return e


# -- binary -------------------------------------------------------------
def check_binary(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    e.lhs, e.rhs = cx.value(e.lhs), cx.value(e.rhs)
    return type_binary(cx, e)


def type_binary(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    """Type a binary expression whose operands are already checked rvalues."""
    lt, rt = e.lhs.ctype, e.rhs.ctype
    if st.is_error(lt) or st.is_error(rt):
        e.ctype = st.ERROR
        return e
    if e.op == ",":
        e.ctype = rt
        return e
    if isinstance(lt, AtomicScalar) or isinstance(rt, AtomicScalar):  # as clang: no operator takes one
        return invalid_operands(cx, e, lt, rt)  # type: ignore[arg-type]
    if e.op in LOGIC_OPS:
        return _check_logic(cx, e)
    if e.op in REL_OPS:
        return _check_relational(cx, e)
    if e.op in ("+", "-") and (st.is_pointer(lt) or st.is_pointer(rt)):  # type: ignore[arg-type]
        return _check_pointer_arith(cx, e)
    if e.op in SHIFT_OPS:
        return _check_shift(cx, e)
    return _check_arith(cx, e)


def invalid_operands(cx: SemaContext, e: ast.Expr, lt: CType, rt: CType) -> ast.Expr:
    return cx.error(e, f"invalid operands to binary expression ('{lt}' and '{rt}')")


def common_operands(cx: SemaContext, e: ast.Binary) -> Optional[CType]:
    """The operands converted to their common type; None when they have none, the error
    type after clang's error for a scalar that outranks the vector's element."""
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    if not (st.is_arith_or_vector(lt) and st.is_arith_or_vector(rt)):
        return None
    common = st.arith_conversion(lt, rt)
    if common is None:
        return None
    if scalar_outranks_vector(cx, e, lt, rt):
        return st.ERROR
    e.lhs, e.rhs = convert(e.lhs, common), convert(e.rhs, common)
    return common


def scalar_outranks_vector(cx: SemaContext, e: ast.Expr, lt: CType, rt: CType) -> bool:
    """clang's error for `float2 + 0.5` or `char2 + 1` (OpenCL C 6.2.6), reported at `e`."""
    vector, scalar = (lt, rt) if st.is_vector(lt) else (rt, lt)
    if not isinstance(vector, ct.Vector) or st.is_vector(scalar):
        return False
    kind = st.scalar_kind(scalar)
    if kind is None or not st.outranks_element(vector.elem, kind):
        return False
    cx.error(e, f"scalar operand type has greater rank than the type of the vector element. ('{lt.unqualified()}' "
                f"and '{rt.unqualified()}')")
    return True


def _check_arith(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    common = common_operands(cx, e)
    if common is st.ERROR:
        return e
    if common is None or (e.op in INT_OPS and not st.is_int_or_int_vector(common)):
        return invalid_operands(cx, e, lt, rt)
    if e.op in ("/", "%") and st.is_integer(common) and fold_int(e.rhs) == 0:
        cx.diags.warning(start_loc(e.rhs), f"{'division' if e.op == '/' else 'remainder'} by zero is undefined")
    e.ctype = common
    return e


def _check_shift(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    if not (st.is_int_or_int_vector(lt) and st.is_int_or_int_vector(rt)):
        return invalid_operands(cx, e, lt, rt)
    if st.is_vector(rt) and not st.is_vector(lt):
        return invalid_operands(cx, e, lt, rt)
    res = lt if st.is_vector(lt) else st.promote(lt)
    if isinstance(rt, ct.Vector) and isinstance(lt, ct.Vector) and lt.count != rt.count:
        return invalid_operands(cx, e, lt, rt)
    e.lhs = convert(e.lhs, res)
    e.rhs = convert(e.rhs, res)
    e.ctype = res
    return e


def _check_relational(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    if st.is_pointer(lt) or st.is_pointer(rt):
        return _check_pointer_compare(cx, e)
    common = common_operands(cx, e)
    if common is st.ERROR:
        return e
    if common is None:
        return invalid_operands(cx, e, lt, rt)
    e.ctype = st.relational_result(common)
    return e


def _check_pointer_compare(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    if is_null_constant(e.rhs):  # `0`, or `(void *)0` (NULL) in any space
        e.rhs = convert(e.rhs, lt)  # type: ignore[arg-type]
    elif is_null_constant(e.lhs):
        e.lhs = convert(e.lhs, rt)  # type: ignore[arg-type]
    elif isinstance(lt, ct.Pointer) and st.is_integer(rt) or \
            isinstance(rt, ct.Pointer) and st.is_integer(lt):  # type: ignore[arg-type]
        ordered = "ordered " if e.op in ("<", ">", "<=", ">=") else ""
        cx.diags.warning(e.loc, f"{ordered}comparison between pointer and integer ('{lt}' and '{rt}')")  # clang's
        if isinstance(lt, ct.Pointer):
            e.rhs = convert(e.rhs, lt)
        else:
            e.lhs = convert(e.lhs, rt)  # type: ignore[arg-type]
    elif not (isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer)):
        return invalid_operands(cx, e, lt, rt)  # type: ignore[arg-type]
    elif st.pointee_space(lt) != st.pointee_space(rt):
        if st.pointee_space(lt) is AddressSpace.GENERIC:
            e.rhs = convert(e.rhs, lt)
        elif st.pointee_space(rt) is AddressSpace.GENERIC:
            e.lhs = convert(e.lhs, rt)
        else:
            return cx.error(e, f"comparison between ('{lt}' and '{rt}') which are pointers to "
                            "non-overlapping address spaces")
    e.ctype = ct.INT
    return e


def _check_pointer_arith(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    if isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer):
        if e.op != "-" or not st.same_unqualified(lt.pointee, rt.pointee):
            return invalid_operands(cx, e, lt, rt)
        if st.is_unsized_object(lt.pointee):
            return incomplete_arithmetic(cx, e, lt)
        e.ctype = ct.LONG
        return e
    if e.op == "-" and not isinstance(lt, ct.Pointer):
        return invalid_operands(cx, e, lt, rt)
    ptr, other = (lt, rt) if isinstance(lt, ct.Pointer) else (rt, lt)
    assert isinstance(ptr, ct.Pointer)
    if st.is_integer(other) and st.is_unsized_object(ptr.pointee):
        return incomplete_arithmetic(cx, e, ptr)
    if not st.is_integer(other) or not (st.is_complete_object(ptr.pointee) or st.is_void(ptr.pointee)):
        # a `void *` steps in bytes (GNU C, which clang accepts)
        return invalid_operands(cx, e, lt, rt)
    if isinstance(lt, ct.Pointer):
        e.rhs = convert(e.rhs, ct.LONG)
    else:
        e.lhs = convert(e.lhs, ct.LONG)
    e.ctype = ptr
    return e


def incomplete_arithmetic(cx: SemaContext, e: ast.Expr, ptr: ct.Pointer) -> ast.Expr:
    """A step over a pointer to an undefined struct: it has no size (clang's words)."""
    return cx.error(e, f"arithmetic on a pointer to an incomplete type '{ptr.pointee}'")


def _check_logic(cx: SemaContext, e: ast.Binary) -> ast.Expr:
    lt, rt = e.lhs.ctype, e.rhs.ctype
    assert lt is not None and rt is not None
    if getattr(cx.options, "opencl_c_version", 120) < 120 and \
            any(st.is_floating(st.element_type(t)) for t in (lt, rt) if st.is_arith_or_vector(t)):
        return invalid_operands(cx, e, lt, rt)  # floats in && and || came with OpenCL C 1.2
    if st.is_vector(lt) or st.is_vector(rt):
        common = common_operands(cx, e)
        if common is st.ERROR:
            return e
        if common is None:
            return invalid_operands(cx, e, lt, rt)
        e.ctype = st.relational_result(common)
        return e
    if not (st.is_scalar(lt) and st.is_scalar(rt)):
        return invalid_operands(cx, e, lt, rt)
    e.lhs, e.rhs = convert(e.lhs, ct.BOOL), convert(e.rhs, ct.BOOL)
    e.ctype = ct.INT
    return e


# -- assignment and ?: --------------------------------------------------
def check_assign(cx: SemaContext, e: ast.Assign) -> ast.Expr:
    e.target = cx.check(e.target)
    e.value = cx.value(e.value)
    t = e.target.ctype
    if not modifiable(cx, e.target, e) or st.is_error(e.value.ctype):
        e.ctype = st.ERROR
        return e
    assert t is not None
    if e.op == "=" and (isinstance(t, AtomicScalar) or isinstance(e.value.ctype, AtomicScalar)):
        return cx.error(e, "atomic variable can be assigned to a variable only in global address space")  # clang's
    if not check_half_store(cx, e.target, e.loc):
        e.ctype = st.ERROR
        return e
    if e.op == "=":
        e.value = assign_convert(e.value, t, "assign", cx.diags, e.loc)
        e.ctype = t.unqualified()
        return e
    return _check_compound(cx, e, t)


def _check_compound(cx: SemaContext, e: ast.Assign, t: CType) -> ast.Expr:
    op = e.op[:-1]
    binary = ast.Binary(e.loc, op, ast.ImplicitCast(e.target.loc, "lvalue-to-rvalue", e.target,
                                                    ctype=t.unqualified()), e.value)
    probe = type_binary(cx, binary)
    if st.is_error(probe.ctype):
        e.ctype = st.ERROR
        return e
    assert isinstance(probe, ast.Binary)
    e.value = probe.rhs
    # The operation's type: the converted left operand's (a pointer for p += n).
    e.compute_type = probe.lhs.ctype
    vector_mismatch = st.is_vector(probe.ctype) and not st.same_unqualified(probe.ctype, t)  # type: ignore[arg-type]
    pointer_mismatch = st.is_pointer(probe.ctype) != st.is_pointer(t)  # type: ignore[arg-type]
    if vector_mismatch or pointer_mismatch:  # `v4 += v2`, `i += p`
        return cx.error(e, f"assigning to '{t.unqualified()}' from incompatible type '{probe.ctype}'")
    e.ctype = t.unqualified()
    return e


def check_conditional(cx: SemaContext, e: ast.Conditional) -> ast.Expr:
    e.cond = cx.value(e.cond)
    e.then, e.else_ = cx.value(e.then), cx.value(e.else_)
    ct_, a, b = e.cond.ctype, e.then.ctype, e.else_.ctype
    if st.is_error(ct_) or st.is_error(a) or st.is_error(b):
        e.ctype = st.ERROR
        return e
    assert a is not None and b is not None and ct_ is not None
    if isinstance(ct_, ct.Vector):
        return _vector_conditional(cx, e, ct_, a, b)
    if not st.is_scalar(ct_):
        return cx.error(e.cond, f"used type '{ct_}' where arithmetic or pointer type is required")
    e.cond = convert(e.cond, ct.BOOL)
    res = _conditional_type(cx, e, a, b)
    if res is st.ERROR:
        return e
    if res is None and isinstance(a, ct.Pointer) and isinstance(b, ct.Pointer) and \
            st.same_unqualified(a.pointee, b.pointee):  # clang's words, its two spaces included
        return cx.error(e, f"conditional operator with the second and third operands of type  ('{a}' and "
                           f"'{b}') which are pointers to non-overlapping address spaces")
    if res is None:
        return cx.error(e, f"incompatible operand types ('{a}' and '{b}')")
    e.then, e.else_ = convert(e.then, res), convert(e.else_, res)
    e.ctype = res
    return e


def _conditional_type(cx: SemaContext, e: ast.Conditional, a: CType, b: CType) -> Optional[CType]:
    if st.is_arith_or_vector(a) and st.is_arith_or_vector(b):
        common = st.arith_conversion(a, b)
        return st.ERROR if common is not None and scalar_outranks_vector(cx, e, a, b) else common
    if st.is_pointer(a) and st.is_integer(b) and is_null_constant(e.else_):
        return a
    if st.is_pointer(b) and st.is_integer(a) and is_null_constant(e.then):
        return b
    if st.same_unqualified(a, b):
        return a.unqualified()
    if isinstance(a, ct.Pointer) and isinstance(b, ct.Pointer) and \
            st.pointee_space(a) == st.pointee_space(b) and (st.is_void(a.pointee) or st.is_void(b.pointee)):
        return a if st.is_void(a.pointee) else b
    if isinstance(a, ct.Pointer) and isinstance(b, ct.Pointer) and st.same_unqualified(a.pointee, b.pointee):
        return _composite_pointer(a, b)
    if isinstance(a, ct.Pointer) and isinstance(b, ct.Pointer):  # clang: a warning, and void * in their space
        common = _composite_pointer(ct.Pointer(_as_void(a.pointee)), ct.Pointer(_as_void(b.pointee)))
        if common is not None:
            cx.diags.warning(e.loc, f"pointer type mismatch ('{a}' and '{b}')")
        return common
    return None


def _as_void(t: CType) -> CType:
    return ct.Void(const=getattr(t, "const", False), volatile=getattr(t, "volatile", False),
                   space=getattr(t, "space", None))


def _composite_pointer(a: ct.Pointer, b: ct.Pointer) -> Optional[CType]:
    """The type of `c ? a : b` for pointers to one type: the qualifiers of both, and the
    common address space (generic, when one is generic and the other a named space
    generic includes, as clang's OpenCL C 2.0 rules say); None for disjoint spaces."""
    sa, sb = st.pointee_space(a), st.pointee_space(b)
    if sa != sb:
        named = sb if sa is AddressSpace.GENERIC else sa
        if AddressSpace.GENERIC not in (sa, sb) or named is AddressSpace.CONSTANT:
            return None
        sa = AddressSpace.GENERIC
    pa, pb = a.pointee, b.pointee
    return ct.Pointer(st.object_type(pa.unqualified(), sa, const=pa.const or pb.const,
                                     volatile=pa.volatile or pb.volatile))


def _vector_conditional(cx: SemaContext, e: ast.Conditional, c: ct.Vector, a: CType, b: CType) -> ast.Expr:
    res = st.arith_conversion(a, b) if st.is_arith_or_vector(a) and st.is_arith_or_vector(b) else None
    if res is None or not st.is_int_or_int_vector(c):
        return cx.error(e, f"incompatible operand types ('{a}' and '{b}')")
    if not isinstance(res, ct.Vector):
        kind = st.scalar_kind(res)
        assert kind is not None
        res = ct.Vector(kind, c.count)
    if res.count != c.count or res.elem.size != c.elem.size:
        return cx.error(e, f"vector condition type '{c}' and result type '{res}' do not have "
                        "elements of the same size")
    e.then, e.else_ = convert(e.then, res), convert(e.else_, res)
    e.ctype = res
    return e


# -- postfix ------------------------------------------------------------
def check_index(cx: SemaContext, e: ast.Index) -> ast.Expr:
    e.base = cx.check(e.base)
    bt = e.base.ctype
    if st.is_vector(bt or st.ERROR):
        e.index = cx.value(e.index)
        if not st.is_error(e.index.ctype) and not st.is_integer(e.index.ctype):  # type: ignore[arg-type]
            return cx.error(e.index, "array subscript is not an integer")
        e.index = convert(e.index, ct.LONG)
        e.ctype = st.object_type(st.element_type(bt), bt.space, bt.const)  # type: ignore[union-attr, arg-type]
        e.is_lvalue = e.base.is_lvalue
        return e
    e.base = to_rvalue(e.base)
    e.index = cx.value(e.index)
    bt, it = e.base.ctype, e.index.ctype
    if st.is_error(bt) or st.is_error(it):
        e.ctype = st.ERROR
        return e
    if isinstance(it, ct.Pointer) and st.is_integer(bt):  # type: ignore[arg-type]
        e.base, e.index = e.index, e.base
        bt, it = it, bt
    if not isinstance(bt, ct.Pointer):
        cx.diags.error(start_loc(e.base), "subscripted value is not an array, pointer, or vector")
        e.ctype = st.ERROR
        return e
    if not st.is_integer(it):  # type: ignore[arg-type]
        return cx.error(e.index, "array subscript is not an integer")
    if st.is_unsized_object(bt.pointee):
        return cx.error(e, f"subscript of pointer to incomplete type '{bt.pointee}'")
    e.index = convert(e.index, ct.LONG)
    e.ctype, e.is_lvalue = bt.pointee, True
    return e


def check_member(cx: SemaContext, e: ast.Member) -> ast.Expr:
    e.base = cx.value(e.base) if e.arrow else cx.check(e.base)
    bt = e.base.ctype
    if st.is_error(bt):
        e.ctype = st.ERROR
        return e
    assert bt is not None
    if e.arrow:
        if not isinstance(bt, ct.Pointer):
            return cx.error(e, f"member reference type '{bt}' is not a pointer")
        bt = bt.pointee
        lvalue = True
    else:
        lvalue = e.base.is_lvalue
    if isinstance(bt, ct.Vector) and not e.arrow:
        return check_swizzle(cx, e, bt)
    if not isinstance(bt, ct.Struct):
        return cx.error(e, f"member reference base type '{bt}' is not a structure or union")
    f = bt.definition.field(e.name)
    if f is None:
        path = bt.definition.anonymous_path(e.name)
        if path is None:
            return cx.error(e, f"no member named '{e.name}' in '{bt.unqualified()}'")
        for anonymous in path:  # s.x where x is in an anonymous member: s.<anon>.x
            inner = ast.Member(e.loc, base=e.base, name=anonymous.name, arrow=e.arrow)
            inner.ctype = st.object_type(anonymous.type, bt.space, bt.const, bt.volatile)
            inner.is_lvalue = lvalue
            e.base, e.arrow = inner, False
            bt = inner.ctype
            assert isinstance(bt, ct.Struct)
        f = bt.definition.field(e.name)
        assert f is not None
    e.ctype = st.object_type(f.type, bt.space, bt.const, bt.volatile)
    e.is_lvalue = lvalue
    return e


def _check_implicit_cast(cx: SemaContext, e: ast.ImplicitCast) -> ast.Expr:
    return e


EXPR_HANDLERS: dict[type, ExprHandler] = {
    ast.IntLiteral: check_int_literal, ast.FloatLiteral: check_float_literal, ast.StringLiteral: check_string,
    ast.Identifier: check_identifier, ast.Unary: check_unary, ast.Binary: check_binary,
    ast.Assign: check_assign, ast.Conditional: check_conditional, ast.Call: check_call,
    ast.Index: check_index, ast.Member: check_member, ast.Cast: check_cast,
    ast.VectorLiteral: check_vector_literal, ast.SizeOf: check_sizeof,
    ast.ImplicitCast: _check_implicit_cast, ast.InitList: check_stray_init_list,
}
