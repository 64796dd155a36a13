"""What `half` allows before `#pragma OPENCL EXTENSION cl_khr_fp16 : enable` (OpenCL C 1.2 6.1.1.1).

Without cl_khr_fp16 a `half` is a storage format only: pointers to half, half
vector types and struct fields are fine, and `vload_half`/`vstore_half` read and
write it; but a variable, parameter or return value of scalar type half, a
load or store of a half lvalue, a half literal (`1.0h`) and a cast to half are
errors, with clang's messages and at clang's places. Once the pragma has
enabled the extension (`extension_pragmas`, asked at each use's location),
half is an arithmetic type like float.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ....diagnostics import SourceLocation
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from ..c_types import CType

if TYPE_CHECKING:  # sema_context asks this module of each load
    from .sema_context import SemaContext

FP16 = "cl_khr_fp16"


def is_half(t: CType | None) -> bool:
    """A scalar half (a half vector is not one)."""
    return isinstance(t, ct.Scalar) and t.kind is ct.ScalarKind.HALF


def _array_base(t: CType) -> tuple[CType, str]:
    dims = ""
    while isinstance(t, ct.Array):
        dims += f"[{'' if t.count is None else t.count}]"
        t = t.elem
    return t, dims


def _spelled(t: CType, space: AddressSpace | None) -> str:
    """clang's spelling of a half object type: `__private half`, `__private half[4]`."""
    base, dims = _array_base(t)
    space = base.space or t.space or space
    quals = " ".join(q for q in (f"__{space.value}" if space else "", "const" if base.const else "",
                                 "volatile" if base.volatile else "") if q)
    return f"{quals + ' ' if quals else ''}half{dims}"


def fp16_enabled(cx: SemaContext, loc: SourceLocation) -> bool:
    return cx.extensions.enabled(FP16, loc)


def check_half_decl(cx: SemaContext, t: CType, loc: SourceLocation, where: str) -> bool:
    """A `where` ("param", "local", "global" or "return") declaration of type `t`;
    False when it was refused."""
    base, _ = _array_base(t)
    if not is_half(base) or fp16_enabled(cx, loc):
        return True
    if where == "return":
        cx.diags.error(loc, "declaring function return value of type 'half' is not allowed ; did you forget * ?")
    elif where == "param":
        cx.diags.error(loc, f"declaring function parameter of type '{_spelled(t, AddressSpace.PRIVATE)}' "
                       "is not allowed; did you forget * ?")
    else:
        default = AddressSpace.PRIVATE if where == "local" else None
        cx.diags.error(loc, f"declaring variable of type '{_spelled(t, default)}' is not allowed")
    return False


def check_half_load(cx: SemaContext, e: ast.Expr) -> None:
    """`e`, an lvalue, is about to be read."""
    if e.is_lvalue and is_half(e.ctype) and not fp16_enabled(cx, e.loc):
        assert e.ctype is not None
        cx.diags.error(ast.start_loc(e), f"loading directly from pointer to type "
                       f"'{_spelled(e.ctype, AddressSpace.PRIVATE)}' requires cl_khr_fp16. "
                       "Use vector data load builtin functions instead")


def check_half_store(cx: SemaContext, target: ast.Expr, loc: SourceLocation) -> bool:
    """An assignment at `loc` to `target`; False when it was refused."""
    if is_half(target.ctype) and not fp16_enabled(cx, loc):
        cx.diags.error(loc, "assigning directly to pointer to type 'half' requires cl_khr_fp16. "
                       "Use vector data store builtin functions instead")
        return False
    return True


def check_half_literal(cx: SemaContext, e: ast.Expr) -> bool:
    if fp16_enabled(cx, e.loc):
        return True
    cx.diags.error(e.loc, "half precision constant requires cl_khr_fp16")
    return False


def check_half_cast(cx: SemaContext, to: CType, operand: ast.Expr) -> bool:
    """An explicit cast of `operand` to `to`; False when it was refused."""
    if not is_half(to) or fp16_enabled(cx, operand.loc):
        return True
    cx.diags.error(ast.start_loc(operand), "casting to type 'half' is not allowed")
    return False
