"""The type and size macros clang predefines for every C dialect, OpenCL C included:
`__SIZE_TYPE__`, `__PTRDIFF_TYPE__`, `__INTPTR_TYPE__`, `__INT32_TYPE__`, ...,
`__SIZEOF_INT__`, `__SIZEOF_POINTER__`, ..., `__CHAR_BIT__`, `__INT_MAX__`, ....
Kernels copied from clang's tests and C headers use them (`typedef __SIZE_TYPE__
size_t;`). The values are OpenCL C's types (size_t is 64-bit on every oclpy device;
`long` is 64 bits) and the target's pointer width (`SizeRules`), as clang gives them
for a 64-bit target. clang's 128-bit `long long` types (`__INTMAX_TYPE__`,
`__INT128_TYPE__`) are left out: oclpy has no 128-bit integers.
"""

from __future__ import annotations

from ...ir.types import AddressSpace
from ..size_rules import SizeRules

_TYPES = {
    "SIZE": "long unsigned int", "PTRDIFF": "long int", "INTPTR": "long int", "UINTPTR": "long unsigned int",
    "WCHAR": "int", "WINT": "unsigned int", "CHAR16": "unsigned short", "CHAR32": "unsigned int",
    "INT8": "signed char", "INT16": "short", "INT32": "int", "INT64": "long int",
    "UINT8": "unsigned char", "UINT16": "unsigned short", "UINT32": "unsigned int", "UINT64": "long unsigned int",
}
_SIZEOF = {"SHORT": 2, "INT": 4, "LONG": 8, "FLOAT": 4, "DOUBLE": 8, "SIZE_T": 8, "PTRDIFF_T": 8,
           "WCHAR_T": 4, "WINT_T": 4}
_LIMITS = {
    "CHAR_BIT": "8", "SCHAR_MAX": "127", "SHRT_MAX": "32767", "INT_MAX": "2147483647",
    "LONG_MAX": "9223372036854775807L", "SIZE_MAX": "18446744073709551615UL",
    "PTRDIFF_MAX": "9223372036854775807L", "INTPTR_MAX": "9223372036854775807L",
    "UINTPTR_MAX": "18446744073709551615UL", "INT8_MAX": "127", "INT16_MAX": "32767",
    "INT32_MAX": "2147483647", "INT64_MAX": "9223372036854775807L", "UINT8_MAX": "255",
    "UINT16_MAX": "65535", "UINT32_MAX": "4294967295U", "UINT64_MAX": "18446744073709551615UL",
}


def type_macros(rules: SizeRules) -> dict[str, str]:
    """Name -> body of each predefined type and size macro, for a target's size rules."""
    macros = {f"__{name}_TYPE__": body for name, body in _TYPES.items()}
    macros.update({f"__SIZEOF_{name}__": str(size) for name, size in _SIZEOF.items()})
    macros["__SIZEOF_POINTER__"] = str(rules.layout.pointer_size(AddressSpace.GLOBAL))
    macros.update({f"__{name}__": value for name, value in _LIMITS.items()})
    return macros
