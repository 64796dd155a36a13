"""The OpenCL C builtin library as data: one table of signatures.

Each row names functions, the lowering that implements them (`impl`, a key
the lowering looks up in `lower/builtin_calls.IMPLS`), a type family the generic
type `T` ranges over, and the return and parameter patterns:

    T   the generic type (gentype)          S   its scalar element type
    U   unsigned of T (same width)          I   int with T's vector width (intn)
    R   relational result: int for scalars, a signed integer vector of T's
        element size for vectors            W   T with twice the element size (upsample)
    N   unsigned of half the element size (upsample's low half)
    SE, UE  the signed / unsigned integer type of T's element size and width
        (select's igentype and ugentype: long for double, uint for float)
    B   a byte-wise unsigned-int vector matching T (unused)
    any name in `cltypes.builtin_type_names()` (int, float, size_t, ...)

`overloads(name)` returns every expanded signature; conversions
(`convert_<type>[_sat][_<rounding>]`) and reinterpretations (`as_<type>`) are
recognised by name pattern (they exist for every pair of types of one width).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable, Optional

from ....ir.types import AddressSpace
from .. import c_types as ct
from ..c_types import CType, ScalarKind as K
from .. import type_rules as st


@dataclass(frozen=True)
class Builtin:
    """One builtin overload: its name, C signature and lowering key."""

    name: str
    ret: CType
    params: tuple[CType, ...]
    impl: str

    def signature(self) -> str:
        return f"{self.ret} {self.name}({', '.join(str(p) for p in self.params)})"


# half: cl_khr_fp16's overloads, after the others as in clang's header (which declares them
# under `#ifdef cl_khr_fp16`; every oclpy device has the extension)
_FLOATS = (K.FLOAT, K.DOUBLE, K.HALF)
_INTS = (K.CHAR, K.UCHAR, K.SHORT, K.USHORT, K.INT, K.UINT, K.LONG, K.ULONG)
_SIGNED_INTS = (K.CHAR, K.SHORT, K.INT, K.LONG)
_VEC = (1, 2, 3, 4, 8, 16)


def _gen(kinds: tuple[K, ...], widths: tuple[int, ...] = _VEC) -> list[CType]:
    return [ct.Scalar(k) if n == 1 else ct.Vector(k, n) for k in kinds for n in widths]


FAMILIES: dict[str, list[CType]] = {
    "F": _gen(_FLOATS),
    "Fs": _gen(_FLOATS, (1,)),
    "Fv": _gen(_FLOATS, (2, 3, 4, 8, 16)),
    "Ff": _gen((K.FLOAT,)),  # native_ and half_ functions: float only
    "F4": [ct.Scalar(k) for k in _FLOATS] + _gen(_FLOATS, (2, 3, 4)),
    "Ff4": _gen((K.FLOAT,), (1, 2, 3, 4)),  # the fast_ geometric functions: float only
    "F34": _gen(_FLOATS, (3, 4)),
    "I": _gen(_INTS),
    "Iv": _gen(_INTS, (2, 3, 4, 8, 16)),
    "I32": _gen((K.INT, K.UINT)),
    "Inarrow": _gen(_INTS[:6]),
    "SI": _gen(_SIGNED_INTS),
    "SIv": _gen(_SIGNED_INTS, (2, 3, 4, 8, 16)),
    "A": _gen(_INTS + _FLOATS),
    "Av": _gen(_INTS + _FLOATS, (2, 3, 4, 8, 16)),
    "X": [ct.VOID],  # no generic type
}

_NAMED = ct.builtin_type_names()
_NAMED["void"] = ct.VOID


def _width(t: CType) -> int:
    return t.count if isinstance(t, ct.Vector) else 1


def _shape(t: CType, k: K) -> CType:
    return st.with_elem(t, k)


def _wider(k: K) -> K:
    order = {K.CHAR: K.SHORT, K.UCHAR: K.USHORT, K.SHORT: K.INT, K.USHORT: K.UINT,
             K.INT: K.LONG, K.UINT: K.ULONG}
    return order[k]


_PATTERNS: dict[str, Callable[[CType], CType]] = {
    "T": lambda t: t,
    "S": lambda t: st.element_type(t),
    "U": lambda t: _shape(t, st.unsigned_of(st.scalar_kind(t))),  # type: ignore[arg-type]
    "I": lambda t: _shape(t, K.INT),
    "R": lambda t: st.relational_result(t),
    "W": lambda t: _shape(t, _wider(st.scalar_kind(t))),  # type: ignore[arg-type]
    "N": lambda t: _shape(t, st.unsigned_of(st.scalar_kind(t))),  # type: ignore[arg-type]
    "SE": lambda t: _shape(t, st.signed_int_of_size(st.scalar_kind(t).size)),  # type: ignore[union-attr]
    "UE": lambda t: _shape(t, st.unsigned_of(st.signed_int_of_size(st.scalar_kind(t).size))),  # type: ignore[union-attr]
}


def _resolve(pattern: str, t: CType) -> CType:
    fn = _PATTERNS.get(pattern)
    return fn(t) if fn is not None else _NAMED[pattern]


# (names, impl, family, ret, params). impl "math" means: the overloaded intrinsic
# ocl.<name> (native_/half_ prefixes dropped).
_MATH1 = ("acos acosh acospi asin asinh asinpi atan atanh atanpi cbrt ceil cos cosh cospi "
          "erfc erf exp exp2 exp10 expm1 fabs floor lgamma log log2 log10 log1p logb rint round "
          "rsqrt sin sinh sinpi sqrt tan tanh tanpi tgamma trunc")
_NATIVE1 = "cos exp exp2 exp10 log log2 log10 rsqrt sin sqrt tan recip"
_MATH2 = "atan2 atan2pi copysign fdim fmod hypot nextafter pow powr remainder"

TABLE: list[tuple[str, str, str, str, tuple[str, ...]]] = [
    (_MATH1, "math", "F", "T", ("T",)),
    (" ".join(f"native_{n} half_{n}" for n in _NATIVE1.split()), "math", "Ff", "T", ("T",)),
    (_MATH2, "math", "F", "T", ("T", "T")),
    ("native_powr half_powr", "math", "Ff", "T", ("T", "T")),
    ("native_divide half_divide", "fdiv", "Ff", "T", ("T", "T")),
    ("fmin fmax", "math", "F", "T", ("T", "T")),
    ("fmin fmax", "math_splat", "Fv", "T", ("T", "S")),
    ("fma mad", "math", "F", "T", ("T", "T", "T")),
    ("pown rootn", "math", "F", "T", ("T", "I")),
    ("ldexp", "math", "F", "T", ("T", "I")),
    ("ldexp", "math_splat", "Fv", "T", ("T", "int")),
    ("maxmag minmag", "magnitude", "F", "T", ("T", "T")),
    ("ilogb", "ilogb", "F", "I", ("T",)),
    ("nan", "nan", "F", "T", ("UE",)),
    # common
    ("clamp", "clamp", "F", "T", ("T", "T", "T")),
    ("clamp", "clamp", "Fv", "T", ("T", "S", "S")),
    ("degrees radians sign", "common", "F", "T", ("T",)),
    ("max min", "minmax", "F", "T", ("T", "T")),
    ("max min", "minmax", "Fv", "T", ("T", "S")),
    ("mix", "mix", "F", "T", ("T", "T", "T")),
    ("mix", "mix", "Fv", "T", ("T", "T", "S")),
    ("step", "step", "F", "T", ("T", "T")),
    ("step", "step", "Fv", "T", ("S", "T")),
    ("smoothstep", "smoothstep", "F", "T", ("T", "T", "T")),
    ("smoothstep", "smoothstep", "Fv", "T", ("S", "S", "T")),
    # geometric
    ("dot", "dot", "F4", "S", ("T", "T")),
    ("length", "length", "F4", "S", ("T",)),
    ("distance", "distance", "F4", "S", ("T", "T")),
    ("normalize", "normalize", "F4", "T", ("T",)),
    ("fast_length", "length", "Ff4", "S", ("T",)),
    ("fast_distance", "distance", "Ff4", "S", ("T", "T")),
    ("fast_normalize", "normalize", "Ff4", "T", ("T",)),
    ("cross", "cross", "F34", "T", ("T", "T")),
    # integer
    ("abs", "abs", "I", "U", ("T",)),
    ("abs_diff", "abs_diff", "I", "U", ("T", "T")),
    ("add_sat sub_sat hadd rhadd mul_hi", "intop", "I", "T", ("T", "T")),
    ("mad_hi mad_sat", "intop3", "I", "T", ("T", "T", "T")),
    ("mad24", "intop3", "I32", "T", ("T", "T", "T")),
    ("mul24", "intop", "I32", "T", ("T", "T")),
    ("clz ctz popcount", "bitcount", "I", "T", ("T",)),
    ("rotate", "intop", "I", "T", ("T", "T")),
    ("upsample", "upsample", "Inarrow", "W", ("T", "N")),
    ("max min", "minmax", "I", "T", ("T", "T")),
    ("max min", "minmax", "Iv", "T", ("T", "S")),
    ("clamp", "clamp", "I", "T", ("T", "T", "T")),
    ("clamp", "clamp", "Iv", "T", ("T", "S", "S")),
    # relational
    ("isequal isnotequal isgreater isgreaterequal isless islessequal islessgreater "
     "isordered isunordered", "fcmp", "F", "R", ("T", "T")),
    ("isnan isinf isfinite isnormal signbit", "fclass", "F", "R", ("T",)),
    ("any all", "anyall", "SI", "int", ("T",)),
    ("bitselect", "bitselect", "A", "T", ("T", "T", "T")),
    ("select", "select", "A", "T", ("T", "T", "SE")),
    ("select", "select", "A", "T", ("T", "T", "UE")),
    # work-items and synchronisation
    ("get_global_id get_local_id get_group_id get_global_size get_local_size "
     "get_num_groups get_global_offset get_enqueued_local_size", "workitem", "X", "size_t",
     ("uint",)),
    ("get_global_linear_id get_local_linear_id", "workitem", "X", "size_t", ()),
    ("get_work_dim", "workitem", "X", "uint", ()),
    ("barrier work_group_barrier", "barrier", "X", "void", ("uint",)),
    ("mem_fence read_mem_fence write_mem_fence", "mem_fence", "X", "void", ("uint",)),
    ("__builtin_inff __builtin_huge_valf", "const_inf", "X", "float", ()),
    ("__builtin_inf __builtin_huge_val", "const_inf", "X", "double", ()),
]

# The builtins OpenCL C 2.0 added (clang declares them from -cl-std=CL2.0 on; before, a call
# is an implicit declaration). The CL2.0 families in their own modules are gated where they join.
CL20_FUNCTIONS = frozenset({"get_global_linear_id", "get_local_linear_id", "get_enqueued_local_size",
                            "work_group_barrier", "atomic_work_item_fence"})

IMAGE_FUNCTIONS = frozenset(
    "read_imagef read_imagei read_imageui read_imageh write_imagef write_imagei write_imageui "
    "write_imageh get_image_width get_image_height get_image_depth get_image_dim "
    "get_image_channel_data_type get_image_channel_order get_image_array_size".split())

_CONST_NAN = {"__builtin_nanf": ct.FLOAT, "__builtin_nan": ct.DOUBLE}


def _expand() -> dict[str, list[Builtin]]:
    table: dict[str, list[Builtin]] = {}
    for names, impl, family, ret, params in TABLE:
        for t in FAMILIES[family]:
            r = _resolve(ret, t)
            ps = tuple(_resolve(p, t) for p in params)
            for name in names.split():
                table.setdefault(name, []).append(Builtin(name, r, ps, impl))
    _add_memory_builtins(table)
    return table


_SPACES = (AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.PRIVATE, AddressSpace.CONSTANT,
           AddressSpace.GENERIC)


def _ptr(k: K, space: AddressSpace, const: bool = False, volatile: bool = False) -> CType:
    return ct.Pointer(ct.Scalar(k, const=const, volatile=volatile, space=space))


def _add_memory_builtins(table: dict[str, list[Builtin]]) -> None:
    for k in _INTS + _FLOATS:
        for n in (2, 3, 4, 8, 16):
            vec = ct.Vector(k, n)
            for sp in _SPACES:
                table.setdefault(f"vload{n}", []).append(
                    Builtin(f"vload{n}", vec, (ct.SIZE_T, _ptr(k, sp, const=True)), "vload"))
                if sp is not AddressSpace.CONSTANT:
                    table.setdefault(f"vstore{n}", []).append(
                        Builtin(f"vstore{n}", ct.VOID, (vec, ct.SIZE_T, _ptr(k, sp)), "vstore"))
    for sp in _SPACES:
        table.setdefault("vload_half", []).append(
            Builtin("vload_half", ct.FLOAT, (ct.SIZE_T, _ptr(K.HALF, sp, const=True)), "vload_half"))
        if sp is not AddressSpace.CONSTANT:
            for f in (K.FLOAT, K.DOUBLE):
                for name in ("vstore_half", "vstore_half_rte", "vstore_half_rtz", "vstore_half_rtp",
                             "vstore_half_rtn"):
                    table.setdefault(name, []).append(
                        Builtin(name, ct.VOID, (ct.Scalar(f), ct.SIZE_T, _ptr(K.HALF, sp)),
                                "vstore_half"))
    for n in (2, 3, 4, 8, 16):
        fvec = ct.Vector(K.FLOAT, n)
        for sp in _SPACES:
            for name in (f"vload_half{n}", f"vloada_half{n}"):
                table.setdefault(name, []).append(
                    Builtin(name, fvec, (ct.SIZE_T, _ptr(K.HALF, sp, const=True)), "vload_half"))
            if sp is AddressSpace.CONSTANT:
                continue
            for base in (f"vstore_half{n}", f"vstorea_half{n}"):
                for name in (base, base + "_rte", base + "_rtz", base + "_rtp", base + "_rtn"):
                    for f in (K.FLOAT, K.DOUBLE):
                        table.setdefault(name, []).append(
                            Builtin(name, ct.VOID, (ct.Vector(f, n), ct.SIZE_T, _ptr(K.HALF, sp)), "vstore_half"))
    _add_shuffles(table)
    _add_atomics(table)
    _add_pointer_math(table)


# math functions with an output pointer: (name, impl, params after x, pointee of the out pointer)
_POINTER_MATH = (("fract", "fract", (), "T"), ("modf", "modf", (), "T"), ("sincos", "sincos", (), "T"),
                 ("frexp", "frexp", (), "I"), ("lgamma_r", "lgamma_r", (), "I"),
                 ("remquo", "remquo", ("T",), "I"))


def _add_pointer_math(table: dict[str, list[Builtin]]) -> None:
    for name, impl, extra, out in _POINTER_MATH:
        for t in FAMILIES["F"]:
            pointee = _resolve(out, t)
            for sp in (AddressSpace.GLOBAL, AddressSpace.LOCAL, AddressSpace.PRIVATE, AddressSpace.GENERIC):
                p = ct.Pointer(st.object_type(pointee, sp, const=False))
                params = (t,) + tuple(_resolve(x, t) for x in extra) + (p,)
                table.setdefault(name, []).append(Builtin(name, t, params, impl))


def _add_shuffles(table: dict[str, list[Builtin]]) -> None:
    for k in _INTS + _FLOATS:
        mask_kind = st.unsigned_of(st.signed_int_of_size(k.size))
        for m in (2, 4, 8, 16):
            for n in (2, 4, 8, 16):
                src, res, mask = ct.Vector(k, m), ct.Vector(k, n), ct.Vector(mask_kind, n)
                table.setdefault("shuffle", []).append(Builtin("shuffle", res, (src, mask), "shuffle"))
                table.setdefault("shuffle2", []).append(Builtin("shuffle2", res, (src, src, mask), "shuffle"))


_ATOMIC2 = "add sub xchg min max and or xor"


def _add_atomics(table: dict[str, list[Builtin]]) -> None:
    # cl_khr_int64_*_atomics name the 64-bit forms atom_ only (clang-14 declares no 64-bit atomic_);
    # oclpy offers them under both names, as its spec tests use them
    for prefix, kinds in (("atomic_", (K.INT, K.UINT, K.LONG, K.ULONG)), ("atom_", (K.INT, K.UINT, K.LONG, K.ULONG))):
        for sp in (AddressSpace.GLOBAL, AddressSpace.LOCAL):
            for k in kinds:
                p = _ptr(k, sp, volatile=True)
                v = ct.Scalar(k)
                for op in _ATOMIC2.split():
                    table.setdefault(prefix + op, []).append(
                        Builtin(prefix + op, v, (p, v), f"atomic_{op}"))
                for op in ("inc", "dec"):
                    table.setdefault(prefix + op, []).append(
                        Builtin(prefix + op, v, (p,), f"atomic_{op}"))
                table.setdefault(prefix + "cmpxchg", []).append(
                    Builtin(prefix + "cmpxchg", v, (p, v, v), "atomic_cmpxchg"))
            if prefix == "atomic_":  # the float exchange is core OpenCL C; cl_khr's atom_xchg has none
                fp = _ptr(K.FLOAT, sp, volatile=True)
                table.setdefault(prefix + "xchg", []).append(
                    Builtin(prefix + "xchg", ct.FLOAT, (fp, ct.FLOAT), "atomic_xchg"))


@lru_cache(maxsize=1)
def _table() -> dict[str, list[Builtin]]:
    return _expand()


_CONVERT_RE = re.compile(r"^convert_([a-z]+?)(2|3|4|8|16)?(_sat)?(_rte|_rtz|_rtp|_rtn)?$")
_AS_RE = re.compile(r"^as_([a-z]+?)(2|3|4|8|16)?$")


def _named_type(base: str, width: Optional[str]) -> Optional[CType]:
    kind = ct.SCALAR_BY_NAME.get(base)
    if kind is None or kind is K.BOOL:
        return None
    return ct.Vector(kind, int(width)) if width else ct.Scalar(kind)


def conversion_target(name: str) -> Optional[tuple[CType, str]]:
    """For `convert_<type>...` or `as_<type>`: the target type and the impl key."""
    m = _CONVERT_RE.match(name)
    if m:
        t = _named_type(m.group(1), m.group(2))
        if t is not None and m.group(3) and st.is_floating(st.element_type(t)):
            return None  # saturation is for integer results only: no convert_float_sat
        return (t, "convert") if t is not None else None
    m = _AS_RE.match(name)
    if m:
        t = _named_type(m.group(1), m.group(2))
        return (t, "as") if t is not None else None
    return None


def is_builtin(name: str) -> bool:
    return (name in _table() or conversion_target(name) is not None or name in _CONST_NAN
            or name in IMAGE_FUNCTIONS or name == "printf")


def overloads(name: str) -> list[Builtin]:
    return _table().get(name, [])


def nan_builtin(name: str) -> Optional[CType]:
    return _CONST_NAN.get(name)


def math_base(name: str) -> str:
    """The intrinsic base of a math builtin: native_/half_ forms share the precise one."""
    for prefix in ("native_", "half_"):
        if name.startswith(prefix):
            name = name[len(prefix):]
    return {"mad": "fma"}.get(name, name)
