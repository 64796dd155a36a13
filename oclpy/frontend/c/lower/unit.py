"""Lowering of a checked translation unit to an IR module.

`lower(tu, options) -> ir.Module`. Every function becomes an IR `Function`
(kernels with `is_kernel=True` and clGetKernelArgInfo attributes on their
arguments); every local variable and parameter gets an `alloca` in the entry
block (mem2reg promotes them); kernel-scope `__local` variables become
`GlobalVar`s named `<kernel>.<var>` in local space; program-scope
`__constant` variables become constant `GlobalVar`s with constant
initializers. Expressions, statements and builtins are lowered by the mixins
in `lower_expr`, `lower_stmt` and `lower_builtins`.
"""

from __future__ import annotations

from typing import Any, Optional

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import (Argument, ConstAggregate, ConstInt, ConstZero, Function, GlobalVar, Module, Undef, Value)
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..layout import align_of, mem_type, reg_type, struct_info
from .builtin_calls import BuiltinLowering
from .exprs import ExprLowering
from .gnu_lowering import CaseRangeLowering, GnuLowering
from .stmts import StmtLowering
from .const_bytes import reinterpret
from .helpers import LValue, const_float
from ..sema.folding import fold


def link_name(d: ast.FunctionDecl) -> str:
    """The IR name of a function: its C name, or the mangled name sema gave an overload."""
    return d.link_name or d.name


def kernel_arg_attrs(p: ast.ParamDecl) -> dict[str, Any]:
    """What clGetKernelArgInfo reports for one kernel parameter."""
    t = p.ctype
    quals: set[str] = set()
    if isinstance(t, ct.Pointer):
        space = st.pointee_space(t).value
        name = f"{_type_name(t.pointee.unqualified())}*"
        if t.pointee.const:
            quals.add("const")
        if t.pointee.volatile:
            quals.add("volatile")
        if t.restrict:
            quals.add("restrict")
    else:
        space, name = "private", _type_name(t.unqualified())
    if p.type_name is not None:
        name = p.type_name
    return {"type_name": name, "address_qualifier": space, "access_qualifier": "none",
            "type_qualifiers": quals, "name": p.name}


def _type_name(t: CType) -> str:
    if isinstance(t, ct.Pointer):
        return f"{_type_name(t.pointee.unqualified())}*"
    return str(t)


class FunctionLowering(BuiltinLowering, ExprLowering, StmtLowering, GnuLowering, CaseRangeLowering):
    def __init__(self, unit: "UnitLowering", decl: ast.FunctionDecl, fn: Function) -> None:
        StmtLowering.__init__(self)
        self.unit, self.decl, self.fn = unit, decl, fn
        self.module = unit.module
        self.options = unit.options
        self.functions = unit.functions
        entry = fn.add_block("entry")
        self.allocas = Builder(entry)
        self.allocas.index = 0
        self.b = Builder(entry)
        self.locals: dict[int, Value] = {}
        self.local_names: set[str] = set()

    def _rv_handlers(self) -> dict[type, Any]:
        return {**super()._rv_handlers(), ast.StmtExpr: self.rv_stmt_expr,
                ast.CompoundLiteral: lambda e: self.load(self.lv_compound_literal(e))}

    def _lv_handlers(self) -> dict[type, Any]:
        return {**super()._lv_handlers(), ast.CompoundLiteral: self.lv_compound_literal}

    def lv_compound_literal(self, e: ast.CompoundLiteral) -> LValue:
        """A compound literal's object: a private temporary, initialized each time it is reached."""
        lv = LValue(self.temporary(e.to), e.to)
        self.initialize(lv, e.init)
        return lv

    def storage(self, decl: ast.Decl) -> Value:
        addr = self.locals.get(id(decl)) or self.unit.globals.get(id(decl))
        if addr is None:
            raise KeyError(f"no storage for '{decl.name}'")
        return addr

    def alloca(self, t: CType, name: str, align: int = 0) -> Value:
        return self.allocas.alloca(mem_type(t), max(align, align_of(t)), name=self._unique(name))

    def string_constant(self, data: bytes) -> Value:
        return self.unit.string_global(data)

    def temporary(self, t: CType) -> Value:
        return self.alloca(t, "tmp")

    def _unique(self, name: str) -> str:
        base, n = name, 1
        while name in self.local_names:
            name, n = f"{base}.{n}", n + 1
        self.local_names.add(name)
        return name

    def declare_local(self, d: ast.VarDecl) -> Optional[Value]:
        if d.ctype.space is ir.AddressSpace.LOCAL:
            gv = self.unit.local_global(self.decl.name, d)
            self.locals[id(d)] = gv
            return None
        if d.storage == "static" or d.ctype.space is ir.AddressSpace.CONSTANT:
            gv = self.unit.constant_global(d, f"{link_name(self.decl)}.{d.name}")
            self.locals[id(d)] = gv
            return None
        addr = self.alloca(d.ctype, d.name, int(d.attributes.get("aligned", 0) or 0))
        self.locals[id(d)] = addr
        return addr

    def lower_body(self) -> None:
        assert self.decl.body is not None
        for p, arg in zip(self.decl.params, self.fn.args):
            addr = self.alloca(p.ctype, f"{p.name or 'arg'}.addr")
            self.locals[id(p)] = addr
            self.store(LValue(addr, p.ctype), arg)
        self.stmt(self.decl.body)
        if not self.terminated():
            ret = self.fn.type.ret
            self.b.ret(None if ret == ir.VOID else Undef(ret))
        remove_unreachable(self.fn)


def remove_unreachable(fn: Function) -> None:
    """Delete blocks no path from the entry reaches (left after returns and breaks)."""
    seen = {id(fn.entry)}
    work = [fn.entry]
    while work:
        for succ in work.pop().successors():
            if id(succ) not in seen:
                seen.add(id(succ))
                work.append(succ)
    dead = [bl for bl in fn.blocks if id(bl) not in seen]
    fn.blocks = [bl for bl in fn.blocks if id(bl) in seen]
    for bl in fn.blocks:
        for phi in bl.phis():
            keep = [(v, p) for v, p in phi.incoming() if id(p) in seen]
            phi.operands, phi.blocks = [v for v, _ in keep], [p for _, p in keep]
    for bl in fn.blocks:
        if bl.terminator is None:
            Builder(bl).unreachable()
    for bl in dead:
        bl.erase_instrs()  # their operands' use-lists forget them


class UnitLowering:
    def __init__(self, tu: ast.TranslationUnit, options: object) -> None:
        self.tu, self.options = tu, options
        self.module = Module("program")
        self.functions: dict[str, Function] = {}
        self.globals: dict[int, Value] = {}
        self.strings: dict[bytes, GlobalVar] = {}

    def run(self) -> Module:
        decls = [d for d in self.tu.decls if isinstance(d, ast.FunctionDecl)]
        defined = {link_name(d): d for d in decls if d.body is not None}
        for d in decls:
            name = link_name(d)
            if name not in self.functions and (d.body is not None or name not in defined):
                self.declare_function(defined.get(name, d))
        for d in self.tu.decls:
            if isinstance(d, ast.VarDecl):
                self.globals[id(d)] = self.constant_global(d, d.name)
        for d in decls:
            if d.body is not None:
                FunctionLowering(self, d, self.functions[link_name(d)]).lower_body()
        return self.module

    def declare_function(self, d: ast.FunctionDecl) -> Function:
        ftype = d.ctype
        assert isinstance(ftype, ct.FunctionType)
        params = tuple(reg_type(p) for p in ftype.params)
        sig = ir.FunctionType(reg_type(ftype.ret), params)
        args = [Argument(t, p.name or f"arg{i}", i) for i, (t, p) in enumerate(zip(params, d.params))]
        fn = Function(link_name(d), sig, args, is_kernel=d.is_kernel)
        if d.is_kernel:
            for a, p in zip(args, d.params):
                a.attrs.update(kernel_arg_attrs(p))
            for key in ("reqd_work_group_size", "work_group_size_hint"):
                if key in d.attributes:
                    fn.attrs[key] = tuple(d.attributes[key])
        self.functions[link_name(d)] = fn
        return self.module.add_function(fn)

    def string_global(self, data: bytes) -> GlobalVar:
        """A NUL-terminated string literal as constant data, one global per distinct text."""
        gv = self.strings.get(data)
        if gv is None:
            body = data + b"\0"
            t = ir.ArrayType(ir.I8, len(body))
            init = ConstAggregate(t, [ConstInt(ir.I8, c) for c in body])
            gv = GlobalVar(f".str.{len(self.strings)}", t, ir.AddressSpace.CONSTANT, init, constant=True, align=1)
            self.strings[data] = self.module.add_global(gv)
        return gv

    def local_global(self, kernel: str, d: ast.VarDecl) -> GlobalVar:
        name = f"{kernel}.{d.name}"
        n = 1
        while self.module.get_global(name) is not None:
            name, n = f"{kernel}.{d.name}.{n}", n + 1
        gv = GlobalVar(name, mem_type(d.ctype), ir.AddressSpace.LOCAL, None,
                       align=max(align_of(d.ctype), int(d.attributes.get("aligned", 0) or 0)))
        return self.module.add_global(gv)

    def constant_global(self, d: ast.VarDecl, name: str) -> GlobalVar:
        space = d.ctype.space or ir.AddressSpace.CONSTANT
        init = constant_value(d.init, d.ctype) if d.init is not None else ConstZero(mem_type(d.ctype))
        gv = GlobalVar(name, mem_type(d.ctype), space, init, constant=space is ir.AddressSpace.CONSTANT,
                       align=max(align_of(d.ctype), int(d.attributes.get("aligned", 0) or 0)))
        return self.module.add_global(gv)


def constant_value(init: ast.Expr, t: CType) -> Value:
    """The IR constant (in memory types) of a checked constant initializer."""
    mt = mem_type(t)
    if isinstance(init, ast.InitList):
        return _aggregate(init, t)
    while isinstance(init, ast.ImplicitCast) and init.kind == "splat":
        init = init.operand
    if isinstance(init, ast.VectorLiteral) and isinstance(t, ct.Vector):
        comps = [constant_value(c, ct.Scalar(t.elem)) for c in init.components]
        if len(comps) == 1:
            comps = comps * t.count
        return ConstAggregate(mt, comps)
    v = fold(init)
    if isinstance(t, ct.Vector):
        return ConstAggregate(mt, [constant_value(init, ct.Scalar(t.elem))] * t.count)
    if isinstance(mt, ir.FloatType):
        return const_float(mt, float(v or 0.0))
    if isinstance(mt, ir.IntType):
        return ConstInt(mt, int(v or 0))
    return ConstZero(mt)


def _aggregate(init: ast.InitList, t: CType) -> Value:
    mt = mem_type(t)
    slots = dict(getattr(init, "slots", []))
    if isinstance(t, (ct.Array, ct.Vector)):
        elem = t.elem if isinstance(t, ct.Array) else ct.Scalar(t.elem)
        count = t.count or 0
        return ConstAggregate(mt, [constant_value(slots[i], elem) if i in slots else ConstZero(mem_type(elem))
                                   for i in range(count)])
    assert isinstance(t, ct.Struct) and isinstance(mt, ir.StructType)
    info = struct_info(t.definition)
    fields = t.definition.fields or []
    if t.definition.is_union:
        chosen = init.slots[-1] if getattr(init, "slots", None) else None  # type: ignore[attr-defined]
        return ConstZero(mt) if chosen is None else _union_const(chosen[1], fields[chosen[0]].type, mt)
    elems: list[Value] = [ConstZero(f) for f in mt.fields]
    for i, f in enumerate(fields):
        if i in slots:
            elems[info.field_index[f.name]] = constant_value(slots[i], f.type)
    return ConstAggregate(mt, elems)


def _union_const(init: ast.Expr, t: CType, mt: ir.StructType) -> Value:
    """A union's constant: its member's value, as the bytes of the union's storage type."""
    value = constant_value(init, t)
    if mem_type(t) == mt.fields[0]:
        return ConstAggregate(mt, [value] + [ConstZero(f) for f in mt.fields[1:]])
    return reinterpret(value, mt)


def lower(tu: ast.TranslationUnit, options: object) -> Module:
    """Lower a translation unit that sema checked without errors to an IR module."""
    return UnitLowering(tu, options).run()
