"""Lowering of a checked translation unit to an IR module.

`lower(tu, options) -> ir.Module`. Every function becomes an IR `Function`
(kernels with `is_kernel=True` and clGetKernelArgInfo attributes on their
arguments); every local variable and parameter gets an `alloca` in the entry
block (mem2reg promotes them); kernel-scope `__local` variables become
`GlobalVar`s named `<kernel>.<var>` in local space; program-scope
`__constant` variables become constant `GlobalVar`s with constant
initializers (`constant_init`). One `LoweringContext` (`lowering_context`)
per function carries the state; expressions, statements, GNU extensions and
builtins are lowered by the functions of `exprs`, `stmts`, `gnu_lowering` and
`builtin_calls`, and `HANDLERS` here is the one table of which function
lowers which AST node.
"""

from __future__ import annotations

from typing import Any

from ....ir import types as ir
from ....ir.builder import Builder
from ....ir.values import Argument, Function, Module, Undef
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..layout import reg_type
from ..opaque_types import is_image, is_sampler
from .exprs import LV_HANDLERS, RV_HANDLERS, lv_other
from .gnu_lowering import rv_stmt_expr
from .helpers import LValue, store
from .lowering_context import Handlers, LoweringContext, UnitContext, link_name
from .stmts import STMT_HANDLERS


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
    attrs = {"type_name": name, "address_qualifier": space, "access_qualifier": "none",
             "type_qualifiers": quals, "name": p.name}
    if is_image(t):  # an image lives in global memory; read_only unless said otherwise
        attrs.update(address_qualifier="global", access_qualifier=p.access or "read_only",
                     opaque="image", type_name=str(t.unqualified()))
    elif is_sampler(t):
        attrs.update(opaque="sampler", type_name="sampler_t")
    return attrs


def _type_name(t: CType) -> str:
    if isinstance(t, ct.Pointer):
        return f"{_type_name(t.pointee.unqualified())}*"
    return str(t)


HANDLERS = Handlers(rv={**RV_HANDLERS, ast.StmtExpr: rv_stmt_expr}, lv=LV_HANDLERS, lv_other=lv_other,
                    stmt=STMT_HANDLERS)


def lower_function(unit: UnitContext, decl: ast.FunctionDecl, fn: Function) -> None:
    """Lower the body of `decl` into `fn` (declared, still without blocks)."""
    assert decl.body is not None
    cx = LoweringContext(unit, decl, fn, HANDLERS)
    for p, arg in zip(decl.params, fn.args):
        addr = cx.alloca(p.ctype, f"{p.name or 'arg'}.addr")
        cx.locals[id(p)] = addr
        store(cx.b, cx.layout, LValue(addr, p.ctype), arg)
    cx.stmt(decl.body)
    if not cx.terminated():
        ret = fn.type.ret
        cx.b.ret(None if ret == ir.VOID else Undef(ret))
    remove_unreachable(fn)


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


def declare_function(unit: UnitContext, d: ast.FunctionDecl) -> Function:
    """The IR function of `d`: its signature, and for a kernel its argument info and attributes."""
    ftype = d.ctype
    assert isinstance(ftype, ct.FunctionType)
    params = tuple(reg_type(p, unit.layout) for p in ftype.params)
    sig = ir.FunctionType(reg_type(ftype.ret, unit.layout), params)
    args = [Argument(t, p.name or f"arg{i}", i) for i, (t, p) in enumerate(zip(params, d.params))]
    fn = Function(link_name(d), sig, args, is_kernel=d.is_kernel)
    if d.is_kernel:
        for a, p in zip(args, d.params):
            a.attrs.update(kernel_arg_attrs(p))
        for key in ("reqd_work_group_size", "work_group_size_hint"):
            if key in d.attributes:
                fn.attrs[key] = tuple(d.attributes[key])
    if d.attributes.get("noinline"):
        fn.attrs["noinline"] = True  # the inline pass keeps it a call
    unit.functions[link_name(d)] = fn
    return unit.module.add_function(fn)


def _signature_complete(d: ast.FunctionDecl) -> bool:
    ftype = d.ctype
    assert isinstance(ftype, ct.FunctionType)
    return (isinstance(ftype.ret, ct.Void) or st.is_complete_object(ftype.ret)) and all(
        st.is_complete_object(p) for p in ftype.params)


def lower(tu: ast.TranslationUnit, options: object) -> Module:
    """Lower a translation unit that sema checked without errors to an IR module."""
    unit = UnitContext(Module("program"), options)
    decls = [d for d in tu.decls if isinstance(d, ast.FunctionDecl)]
    defined = {link_name(d): d for d in decls if d.body is not None}
    for d in decls:
        name = link_name(d)
        if d.is_kernel and name not in defined:
            continue  # a kernel declared and never defined (sema allows no call to it): no kernel
        if name not in unit.functions and (d.body is not None or name not in defined):
            if d.body is None and not _signature_complete(d):
                continue  # no call to it passed sema (an incomplete result or parameter): no IR
            declare_function(unit, defined.get(name) or d)
    for var in tu.decls:
        if isinstance(var, ast.VarDecl):
            unit.globals[id(var)] = unit.constant_global(var, var.name)
    for d in decls:
        if d.body is not None:
            lower_function(unit, d, unit.functions[link_name(d)])
    return unit.module
