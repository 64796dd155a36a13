"""Where image and sampler types may appear (OpenCL C 1.2 6.9 a, b, 6.12.14.1).

An image type (`image2d_t`, ...) may only be the type of a function
parameter; a sampler (`sampler_t`) may be a parameter, a local variable or a
program scope constant (`const sampler_t s = CLK_...;`, which lives in the
constant address space). Neither may be pointed to, be an array's element or
a structure's field.
The depth and multisample image types parse but oclpy has no such images.
`check_opaque_use` reports a misuse; the declaration then gets the error type.
`check_image_access` holds reads and writes to an image parameter's access qualifier;
`check_access_qualifier` refuses `read_write` images before OpenCL C 2.0.
"""

from __future__ import annotations

from ....diagnostics import SourceLocation
from ....ir.types import AddressSpace
from .. import ast
from .. import c_types as ct
from .. import type_rules as st
from ..c_types import CType
from ..opaque_types import UNSUPPORTED_IMAGES, image_type_in, is_image, is_sampler
from .sema_context import SemaContext


def check_opaque_use(cx: SemaContext, t: CType, loc: SourceLocation, where: str) -> CType:
    """`t` as the type of a `where` ("param", "local", "global" or "field") declaration."""
    inner = image_type_in(t)
    if inner is None:
        return t
    problem = _problem(t, inner.name, where)
    if problem is None:
        if where == "global" and is_sampler(t):
            return t.with_space(AddressSpace.CONSTANT)  # type: ignore[attr-defined]
        return t
    cx.diags.error(loc, problem)
    return st.ERROR


def _problem(t: CType, name: str, where: str) -> str | None:
    if isinstance(t, ct.Pointer):
        return f"pointer to type '{name}' is invalid in OpenCL"
    if isinstance(t, ct.Array):
        return f"array of '{name}' type is invalid in OpenCL"
    if where == "field":
        return f"the '{name}' type cannot be used to declare a structure or union field"
    if name in UNSUPPORTED_IMAGES:
        return f"image type '{name}' is not supported (oclpy has no depth or multisample images)"
    if is_image(t) and where != "param":
        return f"type '{name}' can only be used as a function parameter in OpenCL"
    constant = t.const or t.space is AddressSpace.CONSTANT  # type: ignore[attr-defined]
    if is_sampler(t) and where == "global" and not constant:
        return "global sampler requires a const or constant address space qualifier"
    return None


def check_image_access(cx: SemaContext, e: ast.Call, name: str) -> bool:
    """A read_image* of a write_only image parameter, or a write_image* of a read_only one
    (an image parameter without a qualifier is read_only): report it, answer False."""
    wants = {"read_imagef": "read", "read_imagei": "read", "read_imageui": "read",
             "write_imagef": "write", "write_imagei": "write", "write_imageui": "write"}.get(name)
    arg = e.args[0] if e.args else None
    while isinstance(arg, ast.ImplicitCast):
        arg = arg.operand
    decl = getattr(arg, "decl", None)
    if wants is None or not isinstance(decl, ast.ParamDecl) or not is_image(decl.ctype):
        return True
    access = decl.access or "read_only"
    if access == "read_write" or access.startswith(wants):
        return True
    cx.diags.error(e.loc, f"'{name}' needs a {wants}_only or read_write image, but '{decl.name}' is {access}")
    return False


def check_access_qualifier(cx: SemaContext, p: ast.ParamDecl) -> None:
    """`read_write` images are OpenCL C 2.0's (and 3.0's, with __opencl_c_read_write_images)."""
    version = getattr(getattr(cx, "options", None), "opencl_c_version", 120)
    if p.access == "read_write" and is_image(p.ctype) and version < 200:
        cx.diags.error(p.loc, f"access qualifier 'read_write' can not be used for '__read_write "
                       f"{p.ctype}' prior to OpenCL C version 2.0")
