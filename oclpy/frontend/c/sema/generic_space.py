"""OpenCL C 2.0's generic address space builtins: `to_global`, `to_local`,
`to_private` and `get_fence` (from -cl-std=CL2.0 on).

Sema: the argument must be a pointer not into `__constant` (clang's rule);
a pointer into a named space is first converted to generic. `to_<space>(p)`
has type "pointer to the same pointee in <space>"; `get_fence(p)` has type
`cl_mem_fence_flags` (uint).

Lowering: when the argument's space is known at compile time (a named pointer
converted to generic) the answer is folded: the pointer itself when the spaces
agree, NULL otherwise. A truly generic pointer becomes the intrinsic
`ocl.to_<space>` (`ptr<space> (ptr<generic>)`, NULL when the pointer is not
in that space), which each target implements. `get_fence(p)` is
`CLK_LOCAL_MEM_FENCE` when `to_local(p)` is not NULL, else `CLK_GLOBAL_MEM_FENCE`.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ....diagnostics import DiagnosticEngine
from ....ir import types as ir
from ....ir.intrinsics import declare_intrinsic
from ....ir.values import ConstInt, ConstNull, Instr, Value
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..builtins.table import Builtin
from .conversions import convert

AddressSpace = ir.AddressSpace
TO_SPACE = {"to_global": AddressSpace.GLOBAL, "to_local": AddressSpace.LOCAL,
            "to_private": AddressSpace.PRIVATE}
GENERIC_BUILTINS = frozenset([*TO_SPACE, "get_fence"])
_CLK_LOCAL_MEM_FENCE, _CLK_GLOBAL_MEM_FENCE = 1, 2


def check_generic_builtin(e: ast.Call, name: str, diags: DiagnosticEngine) -> ast.Expr:
    """Type a call of `to_global`/`to_local`/`to_private`/`get_fence` (args already rvalues)."""
    if len(e.args) != 1:
        n = len(e.args)
        diags.error(e.loc, f"too {'few' if n < 1 else 'many'} arguments to function call, expected 1, have {n}")
        e.ctype = st.ERROR
        return e
    arg = e.args[0]
    t = arg.ctype
    if not isinstance(t, ct.Pointer) or st.pointee_space(t) is AddressSpace.CONSTANT:
        diags.error(arg.loc, f"invalid argument of type '{t}' to function: '{name}', "
                    "expecting a generic pointer argument")
        e.ctype = st.ERROR
        return e
    generic = ct.Pointer(t.pointee.with_space(AddressSpace.GENERIC))
    e.args = [convert(arg, generic)]
    if name == "get_fence":
        ret: ct.CType = ct.UINT
    else:
        ret = ct.Pointer(t.pointee.with_space(TO_SPACE[name]))
    e.builtin = Builtin(name, ret, (generic,), "generic_space")
    e.ctype = ret
    return e


def _known_space(v: Value) -> Optional[AddressSpace]:
    """The named space a generic pointer came from, when the IR shows it (an addrspacecast)."""
    if isinstance(v, Instr) and v.op == "addrspacecast":
        src = v.operands[0].type
        return getattr(src, "space", None)
    return None


def _to_space(self: Any, space: AddressSpace, p: Value) -> Value:
    target = ir.PtrType(space)
    known = _known_space(p)
    if known is not None:
        return p.operands[0] if known is space else ConstNull(target)  # type: ignore[attr-defined]
    fn = declare_intrinsic(self.module, f"to_{space.value}", target, [p.type])
    return self.b.call(fn, [p])


def b_generic_space(self: Any, sig: Builtin, args: list[Value], e: ast.Call) -> Value:
    if sig.name in TO_SPACE:
        return _to_space(self, TO_SPACE[sig.name], args[0])
    known = _known_space(args[0])
    if known is not None:
        return ConstInt(ir.I32, _CLK_LOCAL_MEM_FENCE if known is AddressSpace.LOCAL else _CLK_GLOBAL_MEM_FENCE)
    local = _to_space(self, AddressSpace.LOCAL, args[0])
    is_local = self.b.icmp("ne", local, ConstNull(local.type))
    return self.b.select(is_local, ConstInt(ir.I32, _CLK_LOCAL_MEM_FENCE), ConstInt(ir.I32, _CLK_GLOBAL_MEM_FENCE))


GENERIC_IMPLS: dict[str, Callable[..., Optional[Value]]] = {"generic_space": b_generic_space}
