"""Named intrinsics: work-item queries, synchronisation and OpenCL builtins
that targets lower themselves (math functions, for instance).

An intrinsic is a function declaration named `ocl.<base>` or
`ocl.<base>.<type suffix>` (`ocl.sqrt.f32`, `ocl.sqrt.v4f32`) carrying
`attrs["intrinsic"] = base`. This table says which bases exist and their
traits; `declare_intrinsic` is the one way to make a declaration.
"""

from __future__ import annotations

from dataclasses import dataclass

from .types import FloatType, FunctionType, IntType, Type, VectorType
from .values import Argument, Function, Module


@dataclass(frozen=True)
class IntrinsicInfo:
    base: str
    pure: bool = True  # no side effects and no memory access
    convergent: bool = False  # every work-item of a group must reach it together


WORK_ITEM_QUERIES = (
    "get_global_id", "get_local_id", "get_group_id", "get_global_size",
    "get_local_size", "get_num_groups", "get_global_offset", "get_work_dim",
    "get_enqueued_local_size", "get_global_linear_id", "get_local_linear_id",
)

GENERIC_SPACE_TESTS = ("to_global", "to_local", "to_private")

# Float math the targets implement (LLVM intrinsics, libm, libdevice or our own code).
MATH_FUNCTIONS = (
    "sqrt", "rsqrt", "cbrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2",
    "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "exp", "exp2", "exp10", "expm1",
    "log", "log2", "log10", "log1p", "pow", "fabs", "floor", "ceil", "trunc", "round",
    "rint", "fmin", "fmax", "fma", "fmod", "copysign", "hypot", "erf", "erfc",
    "tgamma", "lgamma", "logb", "sinpi", "cospi", "tanpi", "asinpi", "acospi", "atanpi",
    "atan2pi", "powr", "pown", "rootn", "ldexp", "nextafter", "fdim", "remainder",
)

INTRINSICS: dict[str, IntrinsicInfo] = {
    **{q: IntrinsicInfo(q) for q in WORK_ITEM_QUERIES},
    **{m: IntrinsicInfo(m) for m in MATH_FUNCTIONS},
    "barrier": IntrinsicInfo("barrier", pure=False, convergent=True),
    "mem_fence": IntrinsicInfo("mem_fence", pure=False),
    "printf": IntrinsicInfo("printf", pure=False),
    # The cpu's lane arrays (passes/interleave_private_arrays.py): ptr<private>, the same
    # for every work-item of a group.
    "private_lanes": IntrinsicInfo("private_lanes"),
    # Generic-space tests (OpenCL 2.0): ptr<space> (ptr<generic>), NULL when not in that space.
    **{q: IntrinsicInfo(q) for q in GENERIC_SPACE_TESTS},
}


def type_suffix(t: Type) -> str:
    """`f32`, `i64`, `v4f32`: the overload suffix of an intrinsic name."""
    if isinstance(t, VectorType):
        return f"v{t.count}{type_suffix(t.elem)}"
    if isinstance(t, FloatType):
        return f"f{t.bits}"
    if isinstance(t, IntType):
        return f"i{t.bits}"
    raise ValueError(f"no intrinsic suffix for type {t}")


def declare_intrinsic(module: Module, base: str, ret: Type, params: list[Type],
                      overload: Type | None = None) -> Function:
    """Return the module's declaration of intrinsic `base`, creating it if needed."""
    info = INTRINSICS.get(base)
    if info is None:
        raise KeyError(f"unknown intrinsic '{base}'")
    name = f"ocl.{base}" if overload is None else f"ocl.{base}.{type_suffix(overload)}"
    fn = module.get_function(name)
    if fn is not None:
        return fn
    ftype = FunctionType(ret, tuple(params))
    args = [Argument(p, f"a{i}", i) for i, p in enumerate(params)]
    fn = Function(name, ftype, args, attrs={"intrinsic": base})
    return module.add_function(fn)


def intrinsic_info(fn: Function) -> IntrinsicInfo | None:
    base = fn.attrs.get("intrinsic")
    return INTRINSICS.get(base) if base else None
