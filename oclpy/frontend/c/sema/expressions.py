"""Semantic analysis of expressions: types, lvalues, implicit casts, diagnostics.

`ExprChecker.check(e)` fills `e.ctype` and `e.is_lvalue` (and `Identifier.decl`,
`Member.swizzle`, `Call.builtin`, `Assign.compute_type`) and returns the node
to use in its place; `value(e)` also converts the result to an rvalue. Every
error gives the expression `ErrorType`, which later checks pass over silently.
"""

from __future__ import annotations

from typing import Callable, Optional

from ....diagnostics import DiagnosticEngine
from ....ir.types import AddressSpace
from .. import ast
from ..ast import start_loc
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType, ScalarKind as K
from ..dispatch import cached_table
from ..gnu_types import resolve_typeof
from .conversions import assign_convert, convert, to_rvalue
from .calls import CallChecker
from .casts import CastChecker
from .folding import fold_int
from .conversions import is_null_constant

ARITH_OPS = {"+", "-", "*", "/"}
INT_OPS = {"%", "&", "|", "^"}
SHIFT_OPS = {"<<", ">>"}
REL_OPS = {"<", ">", "<=", ">=", "==", "!="}
LOGIC_OPS = {"&&", "||"}

_BOOL_CONSTANTS = {"true": 1, "false": 0}
_UNSIGNED_SUFFIX = {"u", "ul", "ull", "lu", "llu"}
_LONG_SUFFIX = {"l", "ll", "ul", "ull", "lu", "llu"}


class ExprChecker(CastChecker, CallChecker):
    diags: DiagnosticEngine
    options: object

    def lookup(self, name: str) -> Optional[ast.Decl]:
        raise NotImplementedError

    # -- entry points -------------------------------------------------------
    @property
    def default_space(self) -> AddressSpace:
        """Where an unqualified pointer points: private in OpenCL C 1.x, generic from 2.0."""
        return AddressSpace.GENERIC if getattr(self.options, "opencl_c_version", 120) >= 200 \
            else AddressSpace.PRIVATE

    def spaces(self, t: CType) -> CType:
        """A declared type as sema uses it: `__typeof__` resolved, default address spaces filled in."""
        return st.default_spaces(resolve_typeof(t, self.type_of), self.default_space)

    def type_of(self, e: ast.Expr) -> CType:
        """`__typeof__(e)`: e's type, qualifiers kept, arrays not decayed; e is not evaluated."""
        e = self.check(e)
        return e.ctype if e.ctype is not None else st.ERROR

    def check(self, e: ast.Expr) -> ast.Expr:
        if e.ctype is not None:  # already checked (initializers may look at an item twice)
            return e
        handler = cached_table(self, "_expr_table", self._handlers).get(type(e))
        if handler is None:
            self.diags.error(e.loc, f"unsupported expression '{type(e).__name__}'")
            e.ctype = st.ERROR
            return e
        return handler(e)

    def value(self, e: ast.Expr) -> ast.Expr:
        e = self.check(e)
        if isinstance(e.ctype, ct.FunctionType):  # a function used other than by calling it
            return self.error(e, "function pointers are not supported in OpenCL")
        return to_rvalue(e)

    def condition(self, e: ast.Expr) -> ast.Expr:
        """A controlling expression: a scalar converted to bool."""
        e = self.value(e)
        if st.is_error(e.ctype):
            return e
        if not st.is_scalar(e.ctype):  # type: ignore[arg-type]
            self.diags.error(e.loc, f"statement requires expression of scalar type ('{e.ctype}' invalid)")
            e.ctype = st.ERROR
            return e
        return convert(e, ct.BOOL)

    def _handlers(self) -> dict[type, Callable[[ast.Expr], ast.Expr]]:
        return {
            ast.IntLiteral: self.check_int_literal, ast.FloatLiteral: self.check_float_literal,
            ast.StringLiteral: self.check_string, ast.Identifier: self.check_identifier,
            ast.Unary: self.check_unary, ast.Binary: self.check_binary,
            ast.Assign: self.check_assign, ast.Conditional: self.check_conditional,
            ast.Call: self.check_call, ast.Index: self.check_index, ast.Member: self.check_member,
            ast.Cast: self.check_cast, ast.VectorLiteral: self.check_vector_literal,
            ast.SizeOf: self.check_sizeof, ast.ImplicitCast: lambda e: e,
            ast.InitList: self.check_stray_init_list,
        }

    def error(self, e: ast.Expr, message: str) -> ast.Expr:
        self.diags.error(e.loc, message)
        e.ctype = st.ERROR
        return e

    # -- leaves -------------------------------------------------------------
    def check_int_literal(self, e: ast.IntLiteral) -> ast.Expr:
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

    def check_float_literal(self, e: ast.FloatLiteral) -> ast.Expr:
        s = e.suffix.lower()
        if s == "f" or (s == "" and getattr(self.options, "single_precision_constant", False)):
            e.ctype = ct.FLOAT
        elif s == "h":
            e.ctype = ct.HALF
        else:
            e.ctype = ct.DOUBLE
        return e

    def check_string(self, e: ast.StringLiteral) -> ast.Expr:
        e.ctype = ct.Array(ct.Scalar(K.CHAR, const=True), len(e.value) + 1, space=AddressSpace.CONSTANT)
        e.is_lvalue = True
        return e

    def check_identifier(self, e: ast.Identifier) -> ast.Expr:
        decl = self.lookup(e.name)
        if decl is None and e.name in _BOOL_CONSTANTS:  # OpenCL C's true and false are the ints 1 and 0
            decl = ast.EnumConstant(e.loc, e.name, _BOOL_CONSTANTS[e.name])
        if decl is None:
            return self.error(e, f"use of undeclared identifier '{e.name}'")
        e.decl = decl
        if isinstance(decl, ast.EnumConstant):
            e.ctype = ct.INT
        elif isinstance(decl, (ast.VarDecl, ast.ParamDecl)):
            e.ctype = decl.ctype
            e.is_lvalue = True
        elif isinstance(decl, ast.FunctionDecl):
            e.ctype = decl.ctype
        else:
            return self.error(e, f"unexpected type name '{e.name}': expected expression")
        return e

    def check_stray_init_list(self, e: ast.InitList) -> ast.Expr:
        return self.error(e, "initializer list cannot be used here")

    # -- unary --------------------------------------------------------------
    def check_unary(self, e: ast.Unary) -> ast.Expr:
        if e.op in ("++pre", "--pre", "++post", "--post"):
            return self._check_incdec(e)
        if e.op == "&":
            return self._check_addr(e)
        e.operand = self.value(e.operand)
        t = e.operand.ctype
        if st.is_error(t):
            e.ctype = st.ERROR
            return e
        assert t is not None
        if e.op == "*":
            if not isinstance(t, ct.Pointer) or st.is_void(t.pointee):
                return self.error(e, f"indirection requires pointer operand ('{t}' invalid)")
            e.ctype, e.is_lvalue = t.pointee, True
            return e
        if e.op == "!":
            if st.is_vector(t):
                e.ctype = st.relational_result(t)
                return e
            if not st.is_scalar(t):
                return self._bad_unary(e, t)
            e.operand = convert(e.operand, ct.BOOL)
            e.ctype = ct.INT
            return e
        ok = st.is_int_or_int_vector(t) if e.op == "~" else st.is_arith_or_vector(t)
        if not ok:
            return self._bad_unary(e, t)
        res = t if st.is_vector(t) else st.promote(t)
        e.operand = convert(e.operand, res)
        e.ctype = res
        return e

    def _bad_unary(self, e: ast.Unary, t: CType) -> ast.Expr:
        return self.error(e, f"invalid argument type '{t}' to unary expression")

    def _check_addr(self, e: ast.Unary) -> ast.Expr:
        e.operand = self.check(e.operand)
        t = e.operand.ctype
        if st.is_error(t):
            e.ctype = st.ERROR
            return e
        assert t is not None
        if self._is_vector_element(e.operand):
            return self.error(e, "address of vector element requested")
        if not e.operand.is_lvalue:
            return self.error(e, f"cannot take the address of an rvalue of type '{t}'")
        e.ctype = ct.Pointer(t.with_space(t.space or AddressSpace.PRIVATE))
        return e

    @staticmethod
    def _is_vector_element(e: ast.Expr) -> bool:
        if isinstance(e, ast.Member) and e.swizzle is not None:
            return True
        return isinstance(e, ast.Index) and st.is_vector(e.base.ctype or st.ERROR)

    def modifiable(self, target: ast.Expr, loc_expr: ast.Expr) -> bool:
        t = target.ctype
        if st.is_error(t):
            return False
        assert t is not None
        loc = loc_expr.loc  # clang puts the caret on the assignment operator
        if not target.is_lvalue:
            self.diags.error(loc, "expression is not assignable")
            return False
        if isinstance(t, ct.Array):
            self.diags.error(loc, f"array type '{t}' is not assignable")
            return False
        if t.const or (t.space is AddressSpace.CONSTANT):
            if isinstance(target, ast.Identifier):
                diag = self.diags.error(loc, f"cannot assign to variable '{target.name}' with "
                                        f"const-qualified type '{t}'")
                if target.decl is not None:
                    self.diags.note(diag, target.decl.loc, f"variable '{target.name}' declared const here")
            else:
                self.diags.error(loc, "read-only variable is not assignable")
            return False
        if isinstance(target, ast.Member) and target.swizzle is not None and \
                len(set(target.swizzle)) != len(target.swizzle):
            self.diags.error(loc, "vector is not assignable (contains duplicate components)")
            return False
        return True

    def _check_incdec(self, e: ast.Unary) -> ast.Expr:
        e.operand = self.check(e.operand)
        t = e.operand.ctype
        if not self.modifiable(e.operand, e):
            e.ctype = st.ERROR
            return e
        assert t is not None
        if not (st.is_arith_or_vector(t) or st.is_pointer(t)):
            return self.error(e, f"cannot increment value of type '{t}'")
        e.ctype = t.unqualified()
        return e

    # -- binary -------------------------------------------------------------
    def check_binary(self, e: ast.Binary) -> ast.Expr:
        e.lhs, e.rhs = self.value(e.lhs), self.value(e.rhs)
        return self.type_binary(e)

    def type_binary(self, e: ast.Binary) -> ast.Expr:
        """Type a binary expression whose operands are already checked rvalues."""
        lt, rt = e.lhs.ctype, e.rhs.ctype
        if st.is_error(lt) or st.is_error(rt):
            e.ctype = st.ERROR
            return e
        if e.op == ",":
            e.ctype = rt
            return e
        if e.op in LOGIC_OPS:
            return self._check_logic(e)
        if e.op in REL_OPS:
            return self._check_relational(e)
        if e.op in ("+", "-") and (st.is_pointer(lt) or st.is_pointer(rt)):  # type: ignore[arg-type]
            return self._check_pointer_arith(e)
        if e.op in SHIFT_OPS:
            return self._check_shift(e)
        return self._check_arith(e)

    def invalid_operands(self, e: ast.Expr, lt: CType, rt: CType) -> ast.Expr:
        return self.error(e, f"invalid operands to binary expression ('{lt}' and '{rt}')")

    def common_operands(self, e: ast.Binary) -> Optional[CType]:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        if not (st.is_arith_or_vector(lt) and st.is_arith_or_vector(rt)):
            return None
        common = st.arith_conversion(lt, rt)
        if common is None:
            return None
        e.lhs, e.rhs = convert(e.lhs, common), convert(e.rhs, common)
        return common

    def _check_arith(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        common = self.common_operands(e)
        if common is None or (e.op in INT_OPS and not st.is_int_or_int_vector(common)):
            return self.invalid_operands(e, lt, rt)
        if e.op in ("/", "%") and st.is_integer(common) and fold_int(e.rhs) == 0:
            self.diags.warning(start_loc(e.rhs), f"{'division' if e.op == '/' else 'remainder'} by zero is undefined")
        e.ctype = common
        return e

    def _check_shift(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        if not (st.is_int_or_int_vector(lt) and st.is_int_or_int_vector(rt)):
            return self.invalid_operands(e, lt, rt)
        if st.is_vector(rt) and not st.is_vector(lt):
            return self.invalid_operands(e, lt, rt)
        res = lt if st.is_vector(lt) else st.promote(lt)
        if st.is_vector(rt) and st.is_vector(lt) and lt.count != rt.count:  # type: ignore[attr-defined]
            return self.invalid_operands(e, lt, rt)
        e.lhs = convert(e.lhs, res)
        e.rhs = convert(e.rhs, res)
        e.ctype = res
        return e

    def _check_relational(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        if st.is_pointer(lt) or st.is_pointer(rt):
            return self._check_pointer_compare(e)
        common = self.common_operands(e)
        if common is None:
            return self.invalid_operands(e, lt, rt)
        e.ctype = st.relational_result(common)
        return e

    def _check_pointer_compare(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        if is_null_constant(e.rhs):  # `0`, or `(void *)0` (NULL) in any space
            e.rhs = convert(e.rhs, lt)  # type: ignore[arg-type]
        elif is_null_constant(e.lhs):
            e.lhs = convert(e.lhs, rt)  # type: ignore[arg-type]
        elif not (isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer)):
            return self.invalid_operands(e, lt, rt)  # type: ignore[arg-type]
        elif st.pointee_space(lt) != st.pointee_space(rt):
            if st.pointee_space(lt) is AddressSpace.GENERIC:
                e.rhs = convert(e.rhs, lt)
            elif st.pointee_space(rt) is AddressSpace.GENERIC:
                e.lhs = convert(e.lhs, rt)
            else:
                return self.error(e, f"comparison between ('{lt}' and '{rt}') which are pointers to "
                                  "non-overlapping address spaces")
        e.ctype = ct.INT
        return e

    def _check_pointer_arith(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        if isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer):
            if e.op != "-" or not st.same_unqualified(lt.pointee, rt.pointee):
                return self.invalid_operands(e, lt, rt)
            e.ctype = ct.LONG
            return e
        if e.op == "-" and not isinstance(lt, ct.Pointer):
            return self.invalid_operands(e, lt, rt)
        ptr, other = (lt, rt) if isinstance(lt, ct.Pointer) else (rt, lt)
        if not st.is_integer(other) or not st.is_complete_object(ptr.pointee):  # type: ignore[attr-defined]
            return self.invalid_operands(e, lt, rt)
        if isinstance(lt, ct.Pointer):
            e.rhs = convert(e.rhs, ct.LONG)
        else:
            e.lhs = convert(e.lhs, ct.LONG)
        e.ctype = ptr
        return e

    def _check_logic(self, e: ast.Binary) -> ast.Expr:
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None
        if st.is_vector(lt) or st.is_vector(rt):
            common = self.common_operands(e)
            if common is None:
                return self.invalid_operands(e, lt, rt)
            e.ctype = st.relational_result(common)
            return e
        if not (st.is_scalar(lt) and st.is_scalar(rt)):
            return self.invalid_operands(e, lt, rt)
        e.lhs, e.rhs = convert(e.lhs, ct.BOOL), convert(e.rhs, ct.BOOL)
        e.ctype = ct.INT
        return e

    # -- assignment and ?: --------------------------------------------------
    def check_assign(self, e: ast.Assign) -> ast.Expr:
        e.target = self.check(e.target)
        e.value = self.value(e.value)
        t = e.target.ctype
        if not self.modifiable(e.target, e) or st.is_error(e.value.ctype):
            e.ctype = st.ERROR
            return e
        assert t is not None
        if e.op == "=":
            e.value = assign_convert(e.value, t, "assign", self.diags, e.loc)
            e.ctype = t.unqualified()
            return e
        return self._check_compound(e, t)

    def _check_compound(self, e: ast.Assign, t: CType) -> ast.Expr:
        op = e.op[:-1]
        probe = ast.Binary(e.loc, op, ast.ImplicitCast(e.target.loc, "lvalue-to-rvalue", e.target,
                                                       ctype=t.unqualified()), e.value)
        probe = self.type_binary(probe)
        if st.is_error(probe.ctype):
            e.ctype = st.ERROR
            return e
        assert isinstance(probe, ast.Binary)
        e.value = probe.rhs
        # The operation's type: the converted left operand's (a pointer for p += n).
        e.compute_type = probe.lhs.ctype  # type: ignore[attr-defined]
        vector_mismatch = st.is_vector(probe.ctype) and not st.same_unqualified(probe.ctype, t)  # type: ignore[arg-type]
        pointer_mismatch = st.is_pointer(probe.ctype) != st.is_pointer(t)  # type: ignore[arg-type]
        if vector_mismatch or pointer_mismatch:  # `v4 += v2`, `i += p`
            return self.error(e, f"assigning to '{t.unqualified()}' from incompatible type '{probe.ctype}'")
        e.ctype = t.unqualified()
        return e

    def check_conditional(self, e: ast.Conditional) -> ast.Expr:
        e.cond = self.value(e.cond)
        e.then, e.else_ = self.value(e.then), self.value(e.else_)
        ct_, a, b = e.cond.ctype, e.then.ctype, e.else_.ctype
        if st.is_error(ct_) or st.is_error(a) or st.is_error(b):
            e.ctype = st.ERROR
            return e
        assert a is not None and b is not None and ct_ is not None
        if st.is_vector(ct_):
            return self._vector_conditional(e, ct_, a, b)
        if not st.is_scalar(ct_):
            return self.error(e.cond, f"used type '{ct_}' where arithmetic or pointer type is required")
        e.cond = convert(e.cond, ct.BOOL)
        res = self._conditional_type(e, a, b)
        if res is None:
            return self.error(e, f"incompatible operand types ('{a}' and '{b}')")
        e.then, e.else_ = convert(e.then, res), convert(e.else_, res)
        e.ctype = res
        return e

    def _conditional_type(self, e: ast.Conditional, a: CType, b: CType) -> Optional[CType]:
        if st.is_arith_or_vector(a) and st.is_arith_or_vector(b):
            return st.arith_conversion(a, b)
        if st.is_pointer(a) and st.is_integer(b) and is_null_constant(e.else_):
            return a
        if st.is_pointer(b) and st.is_integer(a) and is_null_constant(e.then):
            return b
        if st.same_unqualified(a, b):
            return a.unqualified()
        if isinstance(a, ct.Pointer) and isinstance(b, ct.Pointer) and \
                st.pointee_space(a) == st.pointee_space(b) and (st.is_void(a.pointee) or st.is_void(b.pointee)):
            return a if st.is_void(a.pointee) else b
        return None

    def _vector_conditional(self, e: ast.Conditional, c: CType, a: CType, b: CType) -> ast.Expr:
        res = st.arith_conversion(a, b) if st.is_arith_or_vector(a) and st.is_arith_or_vector(b) else None
        if res is None or not st.is_int_or_int_vector(c):
            return self.error(e, f"incompatible operand types ('{a}' and '{b}')")
        if not st.is_vector(res):
            res = ct.Vector(st.scalar_kind(res), c.count)  # type: ignore[arg-type, attr-defined]
        if res.count != c.count or res.elem.size != c.elem.size:  # type: ignore[attr-defined]
            return self.error(e, f"vector condition type '{c}' and result type '{res}' do not have "
                              "elements of the same size")
        e.then, e.else_ = convert(e.then, res), convert(e.else_, res)
        e.ctype = res
        return e

    # -- postfix ------------------------------------------------------------
    def check_index(self, e: ast.Index) -> ast.Expr:
        e.base = self.check(e.base)
        bt = e.base.ctype
        if st.is_vector(bt or st.ERROR):
            e.index = self.value(e.index)
            if not st.is_error(e.index.ctype) and not st.is_integer(e.index.ctype):  # type: ignore[arg-type]
                return self.error(e.index, "array subscript is not an integer")
            e.index = convert(e.index, ct.LONG)
            e.ctype = st.object_type(st.element_type(bt), bt.space, bt.const)  # type: ignore[union-attr, arg-type]
            e.is_lvalue = e.base.is_lvalue
            return e
        e.base = to_rvalue(e.base)
        e.index = self.value(e.index)
        bt, it = e.base.ctype, e.index.ctype
        if st.is_error(bt) or st.is_error(it):
            e.ctype = st.ERROR
            return e
        if isinstance(it, ct.Pointer) and st.is_integer(bt):  # type: ignore[arg-type]
            e.base, e.index = e.index, e.base
            bt, it = it, bt
        if not isinstance(bt, ct.Pointer):
            self.diags.error(start_loc(e.base), "subscripted value is not an array, pointer, or vector")
            e.ctype = st.ERROR
            return e
        if not st.is_integer(it):  # type: ignore[arg-type]
            return self.error(e.index, "array subscript is not an integer")
        e.index = convert(e.index, ct.LONG)
        e.ctype, e.is_lvalue = bt.pointee, True
        return e

    def check_member(self, e: ast.Member) -> ast.Expr:
        e.base = self.value(e.base) if e.arrow else self.check(e.base)
        bt = e.base.ctype
        if st.is_error(bt):
            e.ctype = st.ERROR
            return e
        assert bt is not None
        if e.arrow:
            if not isinstance(bt, ct.Pointer):
                return self.error(e, f"member reference type '{bt}' is not a pointer")
            bt = bt.pointee
            lvalue = True
        else:
            lvalue = e.base.is_lvalue
        if isinstance(bt, ct.Vector) and not e.arrow:
            return self._check_swizzle(e, bt)
        if not isinstance(bt, ct.Struct):
            return self.error(e, f"member reference base type '{bt}' is not a structure or union")
        f = bt.definition.field(e.name)
        if f is None:
            path = bt.definition.anonymous_path(e.name)
            if path is None:
                return self.error(e, f"no member named '{e.name}' in '{bt.unqualified()}'")
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
