"""What oclpy's OpenCL C offers, as the preprocessor's feature checks ask it
(`__has_builtin`, `__has_feature`, `__has_extension`, `__has_attribute`,
`__is_identifier`: `preprocessor/feature_checks.py`).

The answers come from the tables that decide what builds: the builtin table
for `__has_builtin` (the `__builtin_*` functions sema accepts), the parser's
attributes for `__has_attribute`, the C lexer's keywords for `__is_identifier`.
Features and extensions carry clang's names and are what clang -x cl says
that oclpy also does; where clang claims what oclpy lacks (`blocks` in
OpenCL C 2.0, `c_generic_selections`, `gnu_asm`, `c_atomic`, ...), oclpy says 0,
so code keeps its fallback.
"""

from __future__ import annotations

from functools import lru_cache

from .builtins.gnu_aliases import alias_overloads
from .builtins.gnu_builtins import gnu_overloads
from .builtins.table import is_builtin, nan_builtin
from .c_parser import ATTRIBUTE_NAMES
from .lexer import KEYWORDS
from .preprocessor.feature_checks import Capabilities

# clang -x cl: __has_feature(x) is 1 (and so is __has_extension(x))
FEATURES = frozenset(["attribute_overloadable", "attribute_ext_vector_type"])
# clang -x cl: __has_feature(x) is 0 (OpenCL C is C99) but __has_extension(x) is 1
EXTENSIONS = frozenset(["c_static_assert", "c_alignof"])
# Reserved words of clang's OpenCL C that the C lexer reads as names (types it
# predefines, GNU keywords): __is_identifier is 0 for them too.
MORE_KEYWORDS = frozenset("""
    bool half _Noreturn pipe _Generic _Thread_local _Alignas __asm__ __signed__ __volatile__ __func__
    __FUNCTION__ __extension__ __label__ __real __imag __int128 __fp16 _Float16 __bf16 __auto_type
    __builtin_va_arg __builtin_offsetof __builtin_astype __builtin_types_compatible_p
    __builtin_choose_expr __builtin_convertvector image1d_t image1d_array_t image1d_buffer_t image2d_t
    image2d_array_t image2d_depth_t image2d_array_depth_t image3d_t
""".split())


def has_builtin(name: str) -> bool:
    """`__has_builtin(name)`: a `__builtin_*` function that oclpy's sema accepts."""
    if not name.startswith("__builtin_"):
        return False
    return (name == "__builtin_offsetof" or bool(gnu_overloads(name)) or bool(alias_overloads(name))
            or nan_builtin(name) is not None or is_builtin(name))


@lru_cache(maxsize=1)
def capabilities() -> Capabilities:
    return Capabilities(builtin=has_builtin, features=FEATURES, extensions=EXTENSIONS,
                        attributes=ATTRIBUTE_NAMES, keywords=KEYWORDS | MORE_KEYWORDS)
