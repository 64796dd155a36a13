"""Lowering of typed expressions to IR: rvalues (`rv`) and lvalues (`lv`).

Dispatch is by AST node class through two tables; each handler is small.
Arithmetic picks its IR opcode from `_BINOPS` by (operator, float?, signed?);
shift counts are masked to the operand width (OpenCL's rule); integer
division guards a zero divisor so a kernel never traps.
"""

from __future__ import annotations

from typing import Callable, Optional

from ....ir import types as ir
from ....ir.builder import add_incoming
from ....ir.values import ConstAggregate, ConstInt, Function, Undef, Value
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..dispatch import cached_table
from ..layout import mem_type, reg_type, struct_info
from .helpers import LValue, ValueOps, const_float, const_of, is_unsigned
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


class ExprLowering(ValueOps):
    module: object
    functions: dict[str, Function]

    def storage(self, decl: ast.Decl) -> Value:
        raise NotImplementedError

    def lower_builtin(self, e: ast.Call) -> Optional[Value]:
        raise NotImplementedError

    # -- dispatch -----------------------------------------------------------
    def rv(self, e: ast.Expr) -> Value:
        handler = cached_table(self, "_rv_table", self._rv_handlers).get(type(e))
        if handler is None:
            raise NotImplementedError(f"cannot lower expression {type(e).__name__}")
        return handler(e)

    def lv(self, e: ast.Expr) -> LValue:
        handler = cached_table(self, "_lv_table", self._lv_handlers).get(type(e))
        if handler is None:
            if isinstance(e.ctype, (ct.Struct, ct.Array)):
                return self.lv_materialized(e)
            raise NotImplementedError(f"expression {type(e).__name__} is not an lvalue")
        return handler(e)

    def lv_materialized(self, e: ast.Expr) -> LValue:
        """An aggregate rvalue (`make().v[2]`, `(c ? s : t).x`) in a temporary, so its
        members and array elements have addresses (C's temporary lifetime)."""
        assert e.ctype is not None
        lv = LValue(self.temporary(e.ctype), e.ctype)
        self.store(lv, self.rv(e))
        return lv

    def _rv_handlers(self) -> dict[type, Callable]:
        return {
            ast.IntLiteral: self.rv_int, ast.FloatLiteral: self.rv_float,
            ast.Identifier: self.rv_identifier, ast.ImplicitCast: self.rv_implicit,
            ast.Cast: self.rv_cast, ast.Unary: self.rv_unary, ast.Binary: self.rv_binary,
            ast.Assign: self.rv_assign, ast.Conditional: self.rv_conditional,
            ast.Call: self.rv_call, ast.Index: self.rv_index, ast.Member: self.rv_member,
            ast.VectorLiteral: self.rv_vector_literal, ast.SizeOf: self.rv_sizeof,
        }

    def _lv_handlers(self) -> dict[type, Callable]:
        return {ast.Identifier: self.lv_identifier, ast.Unary: self.lv_deref,
                ast.Index: self.lv_index, ast.Member: self.lv_member,
                ast.StringLiteral: self.lv_string}

    # -- leaves -------------------------------------------------------------
    def rv_int(self, e: ast.IntLiteral) -> Value:
        return ConstInt(reg_type(e.ctype), e.value)  # type: ignore[arg-type]

    def rv_float(self, e: ast.FloatLiteral) -> Value:
        return const_float(reg_type(e.ctype), e.value)  # type: ignore[arg-type]

    def rv_identifier(self, e: ast.Identifier) -> Value:
        if isinstance(e.decl, ast.EnumConstant):
            return ConstInt(ir.I32, e.decl.value)
        return self.load(self.lv_identifier(e))

    def rv_sizeof(self, e: ast.SizeOf) -> Value:
        v = fold(e)
        return ConstInt(reg_type(e.ctype), int(v or 0))  # type: ignore[arg-type]

    def lv_identifier(self, e: ast.Identifier) -> LValue:
        assert e.decl is not None and e.ctype is not None
        return LValue(self.storage(e.decl), e.ctype)

    def lv_string(self, e: ast.StringLiteral) -> LValue:
        assert e.ctype is not None
        return LValue(self.string_constant(e.value), e.ctype)

    def string_constant(self, data: bytes) -> Value:
        raise NotImplementedError

    # -- casts --------------------------------------------------------------
    def rv_implicit(self, e: ast.ImplicitCast) -> Value:
        assert e.ctype is not None and e.operand.ctype is not None
        if e.kind == "lvalue-to-rvalue":
            return self.load(self.lv(e.operand))
        if e.kind == "array-decay":
            return self.lv(e.operand).addr
        if e.kind == "to-bool" and _is_scalar_test(e.operand):
            return self.test_value(e.operand)  # type: ignore[arg-type]
        return self.convert(self.rv(e.operand), e.operand.ctype, e.ctype)

    def test_value(self, e: ast.Binary) -> Value:
        """A scalar comparison or logical operator as an i1, without the round trip through int."""
        if e.op in ("&&", "||"):
            return self._short_circuit(e, as_int=False)
        return self.compare(e.op, self.rv(e.lhs), self.rv(e.rhs), e.lhs.ctype)  # type: ignore[arg-type]

    def rv_cast(self, e: ast.Cast) -> Value:
        v = self.rv(e.operand)
        assert e.operand.ctype is not None
        if st.is_void(e.to):
            return v
        return self.convert(v, e.operand.ctype, e.to)

    # -- unary --------------------------------------------------------------
    def rv_unary(self, e: ast.Unary) -> Value:
        if e.op in ("++pre", "--pre", "++post", "--post"):
            return self._incdec(e)
        if e.op == "&":
            return self.lv(e.operand).addr
        if e.op == "*":
            return self.load(self.lv_deref(e))
        v = self.rv(e.operand)
        t = e.ctype
        assert t is not None
        if e.op == "+":
            return v
        if e.op == "-":
            return self.b.fneg(v) if v.type.is_float_or_float_vector() else \
                self.b.binop("sub", const_of(v.type, 0), v)
        if e.op == "~":
            return self.b.binop("xor", v, const_of(v.type, -1))
        assert e.op == "!"
        if isinstance(v.type, ir.VectorType):
            zero = const_of(v.type, 0)
            c = self.b.fcmp("oeq", v, zero) if v.type.is_float_or_float_vector() else self.b.icmp("eq", v, zero)
            return self.bool_to_int(c, t)
        return self.bool_to_int(self.b.binop("xor", v, ConstInt(ir.I1, 1)), t)

    def lv_deref(self, e: ast.Unary) -> LValue:
        assert e.ctype is not None
        return LValue(self.rv(e.operand), e.ctype)

    def _incdec(self, e: ast.Unary) -> Value:
        lv = self.lv(e.operand)
        old = self.load(lv)
        t = e.ctype
        assert t is not None
        delta = 1 if e.op.startswith("++") else -1
        if isinstance(t, ct.Pointer):
            new = self.b.gep(mem_type(t.pointee), old, [ConstInt(ir.I64, delta)])
        elif old.type.is_float_or_float_vector():
            new = self.b.binop("fadd", old, const_of(old.type, float(delta)))
        else:
            new = self.b.binop("add", old, const_of(old.type, delta))
        self.store(lv, new)
        return new if e.op.endswith("pre") else old

    # -- binary -------------------------------------------------------------
    def rv_binary(self, e: ast.Binary) -> Value:
        if e.op == ",":
            self.rv(e.lhs)
            return self.rv(e.rhs)
        if e.op in ("&&", "||") and not st.is_vector(e.ctype):  # type: ignore[arg-type]
            return self._short_circuit(e)
        lt, rt = e.lhs.ctype, e.rhs.ctype
        assert lt is not None and rt is not None and e.ctype is not None
        a, b = self.rv(e.lhs), self.rv(e.rhs)
        return self.binary_values(e.op, a, b, lt, rt, e.ctype)

    def binary_values(self, op: str, a: Value, b: Value, lt: CType, rt: CType, res: CType) -> Value:
        if op in _ICMP:
            return self.bool_to_int(self.compare(op, a, b, lt), res)
        if op in ("&&", "||"):
            za, zb = self.nonzero_mask(a), self.nonzero_mask(b)
            c = self.b.binop("and" if op == "&&" else "or", za, zb)
            return self.bool_to_int(c, res)
        if isinstance(lt, ct.Pointer) or isinstance(rt, ct.Pointer):
            return self._pointer_arith(op, a, b, lt, rt)
        return self.arith(op, a, b, lt)

    def nonzero_mask(self, v: Value) -> Value:
        if v.type.scalar() == ir.I1:
            return v
        zero = const_of(v.type, 0)
        return self.b.fcmp("une", v, zero) if v.type.is_float_or_float_vector() else self.b.icmp("ne", v, zero)

    def arith(self, op: str, a: Value, b: Value, t: CType) -> Value:
        is_float = a.type.is_float_or_float_vector()
        opcode = _BINOPS[(op, is_float, is_unsigned(t))]
        if op in ("<<", ">>"):
            bits = a.type.scalar().bits  # type: ignore[attr-defined]
            if isinstance(b, ConstInt):
                b = ConstInt(b.type, b.value & (bits - 1))
            else:
                b = self.b.binop("and", b, const_of(b.type, bits - 1))
        elif opcode in ("sdiv", "udiv", "srem", "urem"):
            b = self._safe_divisor(a, b, opcode.startswith("s"))
        result = self.b.binop(opcode, a, b)
        if opcode in _NO_SIGNED_WRAP and not is_unsigned(t):
            # C: signed overflow is undefined, so (like clang) promise none; this lets
            # LLVM turn `row * n + k` index arithmetic into pointer increments.
            result.attrs["nsw"] = True
        return result

    def _safe_divisor(self, a: Value, d: Value, signed: bool) -> Value:
        """The divisor with the cases that trap on some machines replaced by 1: zero, and -1
        when the dividend is the most negative value (the result then wraps, as the
        hardware-independent answer would). Both are undefined in OpenCL C; a kernel must
        not kill the process that runs it."""
        bits = d.type.scalar().bits  # type: ignore[attr-defined]
        minus_one = (1 << bits) - 1
        if isinstance(d, ConstInt) and d.value != 0 and not (signed and d.value == minus_one):
            return d
        bad = self.b.icmp("eq", d, const_of(d.type, 0))
        if signed:
            overflow = self.b.binop("and", self.b.icmp("eq", d, const_of(d.type, -1)),
                                    self.b.icmp("eq", a, const_of(a.type, 1 << (bits - 1))))
            bad = self.b.binop("or", bad, overflow)
        return self.b.select(bad, const_of(d.type, 1), d)

    def compare(self, op: str, a: Value, b: Value, t: CType) -> Value:
        if a.type.is_float_or_float_vector():
            return self.b.fcmp(_FCMP[op], a, b)
        unsigned = is_unsigned(t) or isinstance(t, ct.Pointer)
        return self.b.icmp(_ICMP[op][1 if unsigned else 0], a, b)

    def _pointer_arith(self, op: str, a: Value, b: Value, lt: CType, rt: CType) -> Value:
        if isinstance(lt, ct.Pointer) and isinstance(rt, ct.Pointer):
            size = _elem_size(lt)
            diff = self.b.binop("sub", self.b.cast("ptrtoint", a, ir.I64), self.b.cast("ptrtoint", b, ir.I64))
            return self.b.binop("sdiv", diff, ConstInt(ir.I64, size)) if size != 1 else diff
        ptr, ptype, n = (a, lt, b) if isinstance(lt, ct.Pointer) else (b, rt, a)
        if op == "-":
            n = self.b.binop("sub", ConstInt(ir.I64, 0), n)
        return self.b.gep(mem_type(ptype.pointee), ptr, [n])  # type: ignore[attr-defined]

    def _short_circuit(self, e: ast.Binary, as_int: bool = True) -> Value:
        rhs_block = self.new_block("land.rhs" if e.op == "&&" else "lor.rhs")
        end = self.new_block("land.end" if e.op == "&&" else "lor.end")
        a = self.rv(e.lhs)
        a_block = self.b.block
        if e.op == "&&":
            self.b.condbr(a, rhs_block, end)
        else:
            self.b.condbr(a, end, rhs_block)
        self.b.position_at_end(rhs_block)
        bval = self.rv(e.rhs)
        b_block = self.b.block
        self.b.br(end)
        self.b.position_at_end(end)
        phi = self.b.phi(ir.I1)
        add_incoming(phi, ConstInt(ir.I1, 1 if e.op == "||" else 0), a_block)  # type: ignore[arg-type]
        add_incoming(phi, bval, b_block)  # type: ignore[arg-type]
        return self.bool_to_int(phi, e.ctype) if as_int else phi  # type: ignore[arg-type]

    # -- assignment ---------------------------------------------------------
    def rv_assign(self, e: ast.Assign) -> Value:
        assert e.ctype is not None
        if e.op == "=":
            v = self.rv(e.value)
            self.store(self.lv(e.target), v)
            return v
        lv = self.lv(e.target)
        old = self.load(lv)
        ctype: CType = getattr(e, "compute_type")
        rt = e.value.ctype
        assert rt is not None
        b = self.rv(e.value)
        a = self.convert(old, e.ctype, ctype)
        res = self.binary_values(e.op[:-1], a, b, ctype, rt, ctype)
        new = self.convert(res, ctype, e.ctype)
        self.store(lv, new)
        return new

    # -- ?: -----------------------------------------------------------------
    def rv_conditional(self, e: ast.Conditional) -> Value:
        assert e.ctype is not None
        if st.is_vector(e.cond.ctype):  # type: ignore[arg-type]
            c = self.rv(e.cond)
            a, b = self.rv(e.then), self.rv(e.else_)
            neg = self.b.icmp("slt", c, const_of(c.type, 0))
            return self.b.select(neg, a, b)
        then_b, else_b, end = self.new_block("cond.true"), self.new_block("cond.false"), self.new_block("cond.end")
        self.b.condbr(self.rv(e.cond), then_b, else_b)
        arms = []
        for block, arm in ((then_b, e.then), (else_b, e.else_)):
            self.b.position_at_end(block)
            v = self.rv(arm)
            arms.append((v, self.b.block))
            self.b.br(end)
        self.b.position_at_end(end)
        if st.is_void(e.ctype):
            return Undef(ir.VOID)
        phi = self.b.phi(reg_type(e.ctype))
        for v, block in arms:
            add_incoming(phi, v, block)  # type: ignore[arg-type]
        return phi

    # -- calls --------------------------------------------------------------
    def rv_call(self, e: ast.Call) -> Value:
        if e.builtin is not None:
            v = self.lower_builtin(e)
            return v if v is not None else Undef(ir.VOID)
        assert isinstance(e.callee, ast.Identifier) and isinstance(e.callee.decl, ast.FunctionDecl)
        fn = self.functions[e.callee.decl.link_name or e.callee.name]
        return self.b.call(fn, [self.rv(a) for a in e.args])

    # -- postfix ------------------------------------------------------------
    def lv_index(self, e: ast.Index) -> LValue:
        assert e.ctype is not None
        bt = e.base.ctype
        if isinstance(bt, ct.Vector):
            base = self.lv(e.base)
            idx = self.rv(e.index)
            vec_t = bt
            if base.swizzle is not None:  # v.zyx[i]: map i through the swizzle's indices
                assert base.vec_type is not None
                table = ConstAggregate(ir.VectorType(ir.I64, len(base.swizzle)),
                                       [ConstInt(ir.I64, max(i, 0)) for i in base.swizzle])
                idx = self.b.extractelement(table, idx)
                vec_t = base.vec_type
            addr = self.b.gep(mem_type(vec_t), base.addr, [ConstInt(ir.I64, 0), idx])
            return LValue(addr, e.ctype)
        assert isinstance(bt, ct.Pointer)
        addr = self.b.gep(mem_type(bt.pointee), self.rv(e.base), [self.rv(e.index)])
        return LValue(addr, e.ctype)

    def rv_index(self, e: ast.Index) -> Value:
        if isinstance(e.base.ctype, ct.Vector) and not e.base.is_lvalue:
            return self.b.extractelement(self.rv(e.base), self.rv(e.index))
        return self.load(self.lv_index(e))

    def lv_member(self, e: ast.Member) -> LValue:
        assert e.ctype is not None
        if e.swizzle is not None:
            base = self.lv(e.base)
            if base.swizzle is not None:
                return LValue(base.addr, e.ctype, tuple(base.swizzle[i] for i in e.swizzle), base.vec_type,
                              base.align)
            return LValue(base.addr, e.ctype, e.swizzle, base.ctype, base.align)
        if e.arrow:
            st_t = e.base.ctype.pointee  # type: ignore[union-attr]
            return self.member_of(LValue(self.rv(e.base), st_t), e)
        return self.member_of(self.lv(e.base), e)

    def member_of(self, outer: LValue, e: ast.Member) -> LValue:
        """The lvalue of field `e.name` of the struct or union object `outer`."""
        st_t = outer.ctype
        assert isinstance(st_t, ct.Struct) and e.ctype is not None
        info = struct_info(st_t.definition)
        align = 1 if st_t.definition.packed else outer.align
        if st_t.definition.is_union:
            return LValue(outer.addr, e.ctype, align=align)
        idx = info.field_index[e.name]
        gep = self.b.gep(info.ir_type, outer.addr, [ConstInt(ir.I32, 0), ConstInt(ir.I32, idx)])
        return LValue(gep, e.ctype, align=align)

    def rv_member(self, e: ast.Member) -> Value:
        if e.base.is_lvalue or e.arrow:
            return self.load(self.lv_member(e))
        base = self.rv(e.base)
        if e.swizzle is not None:
            if len(e.swizzle) == 1:
                return self.b.extractelement(base, ConstInt(ir.I32, e.swizzle[0]))
            return self.b.shufflevector(base, Undef(base.type), e.swizzle)
        # A member of a struct or union value (`f().x`): spill it and read the member.
        assert e.base.ctype is not None
        tmp = self.temporary(e.base.ctype)
        self.store(LValue(tmp, e.base.ctype), base)
        return self.load(self.member_of(LValue(tmp, e.base.ctype), e))

    def temporary(self, t: CType) -> Value:
        raise NotImplementedError

    # -- vector literals ----------------------------------------------------
    def rv_vector_literal(self, e: ast.VectorLiteral) -> Value:
        to = e.ctype
        assert isinstance(to, ct.Vector)
        vals = [self.rv(c) for c in e.components]
        if len(vals) == 1 and not isinstance(vals[0].type, ir.VectorType):
            return self.splat(vals[0], to)
        scalars: list[Value] = []
        for v in vals:
            if isinstance(v.type, ir.VectorType):
                scalars += [self.b.extractelement(v, ConstInt(ir.I32, i)) for i in range(v.type.count)]
            else:
                scalars.append(v)
        vec: Value = Undef(reg_type(to))
        for i, s in enumerate(scalars):
            vec = self.b.insertelement(vec, s, ConstInt(ir.I32, i))
        return vec


def _is_scalar_test(e: ast.Expr) -> bool:
    return isinstance(e, ast.Binary) and (e.op in _ICMP or e.op in ("&&", "||")) and \
        isinstance(e.ctype, ct.Scalar) and not isinstance(e.lhs.ctype, ct.Vector)


def _elem_size(t: ct.Pointer) -> int:
    return size_of(t.pointee) if not st.is_void(t.pointee) else 1
