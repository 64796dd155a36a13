"""OpenCL C builtins a producer left as calls to Itanium-mangled functions.

Some producers leave a builtin they do not translate as a call to an imported
function named the way clang mangles it (LLVM's SPIR-V backend does so for
OpenCL 1.x `atomic_inc`, for instance). `demangle_builtin("_Z10atomic_incPU3AS1Vi")`
gives the OpenCL C name and the signedness of its first integer parameter,
so the call lowers like the builtin itself; other names give None.
"""

from __future__ import annotations

import re

from ..c.builtins import table as bi
from ..c.sema.generic_space import GENERIC_BUILTINS

_MANGLED = re.compile(r"^_Z(\d+)")
_SIGNED, _UNSIGNED = set("csil"), set("hjtm")


def demangle_builtin(name: str) -> tuple[str, bool | None] | None:
    """(OpenCL C builtin name, signed integers or None when it takes none), or None."""
    m = _MANGLED.match(name)
    if m is None:
        return None
    length, start = int(m.group(1)), m.end()
    base, params = name[start:start + length], name[start + length:]
    if len(base) != length or not (bi.overloads(base) or bi.conversion_target(base)
                                   or base in GENERIC_BUILTINS):
        return None
    params = re.sub(r"AS\d", "", params)  # address-space qualifiers carry digits, not types
    for ch in params:
        if ch in _SIGNED or ch in _UNSIGNED:
            return base, ch in _SIGNED
    return base, None
