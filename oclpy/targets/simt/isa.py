"""The simt instruction set as one table: one `Op` row per opcode.

A row says everything the tools know of an opcode:
- `fields`: its explicit operands in order, each a `Field`: a definition or a
  use, what may stand there (`sreg`, `vreg`, `exec`, `imm`, `slot`, `label`,
  `func`) and its type (`b32 u32 i32 f32 b64 u64 i64 f64 b128 b256 mask`, or
  `any` for the pseudos), which fixes its width in bits (`Field.bits`);
- `family`: how the simulator runs it (`salu`, `valu`, `vcmp`, `exec`,
  `lane`, `smem`, `sscratch`, `vmem`, `branch`, `call`, `control`, `check`,
  `pseudo`);
- `compute`: for the ALU families, its semantics as a function of the source
  values (NumPy arrays of the fields' types, over lanes and waves), returning
  the definitions in order (a tuple when there are several), then the new
  `scc` when the row defines it; a row that reads `scc` gets it last;
- `scc`: "" or "def", "use"; `exec`: "use" for every vector row, "def"/"both"
  for the rows that write it through an implicit operand (`saveexec`);
- `memory`: for memory rows, a `MemAccess` (space, bytes moved, kind, sign
  extension, atomic operation);
- `terminator` (ends a block: no fallthrough), `branch` (has a label).

The mini-language of `row()` specs: `"vd:f32 vs:f32 vs:f32"`, where the role
is `sd` (scalar def), `vd` (vector def), `md` (mask def: a scalar pair),
`ss` (scalar use: register or immediate), `sr` (scalar register use), `vs`
(vector use: vector or scalar register, or immediate), `vr` (vector register
use), `ms` (mask use), `imm`, `label`, `func`. docs/simt.md (the ISA page) is
the prose form; `python -m oclpy.targets.simt.isa` prints the table.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import lane_math as lm

U32, I32, U64, I64, F32, F64 = np.uint32, np.int32, np.uint64, np.int64, np.float32, np.float64

# type -> (bits, NumPy dtype of one value; None for tuples, held as words)
TYPES: dict[str, tuple[int, Any]] = {
    "b32": (32, U32), "u32": (32, U32), "i32": (32, I32), "f32": (32, F32),
    "b64": (64, U64), "u64": (64, U64), "i64": (64, I64), "f64": (64, F64), "mask": (64, U64),
    "b128": (128, None), "b256": (256, None), "any": (0, None),
}
DTYPES = {name: dtype for name, (_, dtype) in TYPES.items() if dtype is not None}

ROLES: dict[str, tuple[str, frozenset[str]]] = {
    "sd": ("def", frozenset({"sreg", "exec"})),
    "vd": ("def", frozenset({"vreg"})),
    "md": ("def", frozenset({"sreg", "exec"})),
    "ss": ("use", frozenset({"sreg", "exec", "imm", "slot"})),
    "sr": ("use", frozenset({"sreg", "exec"})),
    "vs": ("use", frozenset({"vreg", "sreg", "imm", "slot"})),
    "vr": ("use", frozenset({"vreg"})),
    "ms": ("use", frozenset({"sreg", "exec", "imm"})),
    "imm": ("use", frozenset({"imm", "slot"})),
    "label": ("use", frozenset({"label"})),
    "func": ("use", frozenset({"func"})),
    "pd": ("def", frozenset({"sreg", "vreg"})),
    "ps": ("use", frozenset({"sreg", "vreg", "imm"})),
}


@dataclass(frozen=True)
class Field:
    """One explicit operand of an opcode."""

    role: str  # "def" or "use"
    accepts: frozenset[str]
    type: str

    @property
    def bits(self) -> int:
        return TYPES[self.type][0]

    @property
    def is_def(self) -> bool:
        return self.role == "def"


@dataclass(frozen=True)
class MemAccess:
    """What a memory row moves: `space` (kernarg/global through `smem`, `global`,
    `local`, `private`, `flat`, `sprivate`), `bytes`, `kind` ("load", "store",
    "atomic"), `signed` (sub-word loads), `atomic` (the operation's name)."""

    space: str
    bytes: int
    kind: str
    signed: bool = False
    atomic: str = ""


@dataclass(frozen=True)
class Op:
    """One opcode (see the module docstring)."""

    name: str
    family: str
    fields: tuple[Field, ...]
    compute: Callable[..., Any] | None = None
    scc: str = ""
    exec: str = ""
    memory: MemAccess | None = None
    terminator: bool = False
    branch: bool = False
    variadic: str = ""  # "uses": the last field repeats (p_join); "defs": the first does (p_split)

    @property
    def defs(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if f.is_def)

    @property
    def uses(self) -> tuple[Field, ...]:
        return tuple(f for f in self.fields if not f.is_def)


def parse_spec(spec: str) -> tuple[Field, ...]:
    fields = []
    for word in spec.split():
        role, _, type_ = word.partition(":")
        kind, accepts = ROLES[role]
        fields.append(Field(kind, accepts, type_ or "i32"))
    return tuple(fields)


OPS: dict[str, Op] = {}


def row(name: str, family: str, spec: str, compute: Callable[..., Any] | None = None, **traits: Any) -> None:
    if name in OPS:
        raise ValueError(f"opcode {name} defined twice")
    exec_ = traits.pop("exec", "use" if family in ("valu", "vcmp", "vmem", "lane") else "")
    OPS[name] = Op(name, family, parse_spec(spec), compute, exec=exec_, **traits)


def nonzero(x: Any) -> Any:
    return np.asarray(x) != 0


# -- scalar ALU -----------------------------------------------------------------------

def carry_add(a: Any, b: Any) -> tuple[Any, Any]:
    total = np.asarray(a, U64) + np.asarray(b, U64)
    return total.astype(U32), total > 0xFFFFFFFF


def borrow_sub(a: Any, b: Any) -> tuple[Any, Any]:
    return (np.asarray(a, U32) - np.asarray(b, U32)).astype(U32), np.asarray(a, U32) < np.asarray(b, U32)


def overflow_add(a: Any, b: Any) -> tuple[Any, Any]:
    wide = np.asarray(a, I64) + np.asarray(b, I64)
    return wide.astype(I32), (wide > 0x7FFFFFFF) | (wide < -0x80000000)


def overflow_sub(a: Any, b: Any) -> tuple[Any, Any]:
    wide = np.asarray(a, I64) - np.asarray(b, I64)
    return wide.astype(I32), (wide > 0x7FFFFFFF) | (wide < -0x80000000)


def with_scc(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A logic op whose scc is "the result is not zero"."""
    def compute(*args: Any) -> tuple[Any, Any]:
        result = fn(*args)
        return result, nonzero(result)
    return compute


def shift_amount(b: Any, bits: int) -> Any:
    return np.asarray(b, U32) & U32(bits - 1)


row("s_mov_b32", "salu", "sd:b32 ss:b32", lambda a: a)
row("s_mov_b64", "salu", "sd:b64 ss:b64", lambda a: a)
row("s_cselect_b32", "salu", "sd:b32 ss:b32 ss:b32", lambda a, b, scc: np.where(scc, a, b), scc="use")
row("s_cselect_b64", "salu", "sd:b64 ss:b64 ss:b64", lambda a, b, scc: np.where(scc, a, b), scc="use")
row("s_add_u32", "salu", "sd:u32 ss:u32 ss:u32", carry_add, scc="def")
row("s_sub_u32", "salu", "sd:u32 ss:u32 ss:u32", borrow_sub, scc="def")
row("s_add_i32", "salu", "sd:i32 ss:i32 ss:i32", overflow_add, scc="def")
row("s_sub_i32", "salu", "sd:i32 ss:i32 ss:i32", overflow_sub, scc="def")
row("s_mul_i32", "salu", "sd:i32 ss:i32 ss:i32", operator.mul)
row("s_mul_hi_u32", "salu", "sd:u32 ss:u32 ss:u32", lm.mul_hi_u32)
row("s_mul_hi_i32", "salu", "sd:i32 ss:i32 ss:i32", lm.mul_hi_i32)
row("s_add_u64", "salu", "sd:u64 ss:u64 ss:u64", operator.add)
row("s_sub_u64", "salu", "sd:u64 ss:u64 ss:u64", operator.sub)
row("s_mul_u64", "salu", "sd:u64 ss:u64 ss:u64", operator.mul)
for _w, _t in ((32, "b32"), (64, "b64")):
    row(f"s_and_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", with_scc(operator.and_), scc="def")
    row(f"s_or_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", with_scc(operator.or_), scc="def")
    row(f"s_xor_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", with_scc(operator.xor), scc="def")
    row(f"s_andn2_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", with_scc(lambda a, b: a & ~b), scc="def")
    row(f"s_orn2_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", with_scc(lambda a, b: a | ~b), scc="def")
    row(f"s_not_{_t}", "salu", f"sd:{_t} ss:{_t}", with_scc(operator.invert), scc="def")
    row(f"s_bcnt1_i32_{_t}", "salu", f"sd:u32 ss:{_t}", with_scc(lm.popcount), scc="def")
SHIFTS = {"lshl": operator.lshift, "lshr": operator.rshift, "ashr": operator.rshift}
for _name, _t, _bits in (("lshl_b32", "u32", 32), ("lshr_b32", "u32", 32), ("ashr_i32", "i32", 32),
                         ("lshl_b64", "u64", 64), ("lshr_b64", "u64", 64), ("ashr_i64", "i64", 64)):
    _shift = SHIFTS[_name[:4]]
    row(f"s_{_name}", "salu", f"sd:{_t} ss:{_t} ss:u32",
        with_scc(lambda a, b, n=_bits, f=_shift: f(a, shift_amount(b, n).astype(a.dtype))), scc="def")
for _t in ("i32", "u32"):
    row(f"s_min_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", lambda a, b: (np.minimum(a, b), a < b), scc="def")
    row(f"s_max_{_t}", "salu", f"sd:{_t} ss:{_t} ss:{_t}", lambda a, b: (np.maximum(a, b), a > b), scc="def")
row("s_ff1_i32_b32", "salu", "sd:i32 ss:b32", lambda a: lm.first_set_bit(a, 32))
row("s_ff1_i32_b64", "salu", "sd:i32 ss:b64", lambda a: lm.first_set_bit(a, 64))
row("s_sext_i32_i8", "salu", "sd:i32 ss:u32", lambda a: lm.sext(a, 8))
row("s_sext_i32_i16", "salu", "sd:i32 ss:u32", lambda a: lm.sext(a, 16))

COMPARES: dict[str, Callable[[Any, Any], Any]] = {
    "eq": operator.eq, "ne": operator.ne, "lt": operator.lt, "le": operator.le, "gt": operator.gt,
    "ge": operator.ge,
}
for _p, _fn in COMPARES.items():
    for _t in ("i32", "u32"):
        row(f"s_cmp_{_p}_{_t}", "salu", f"ss:{_t} ss:{_t}", _fn, scc="def")
for _p in ("eq", "ne"):
    row(f"s_cmp_{_p}_u64", "salu", "ss:u64 ss:u64", COMPARES[_p], scc="def")

# -- exec: dst = exec; exec = op(src, exec); scc = exec != 0 --------------------------
row("s_and_saveexec_b64", "exec", "sd:mask ss:mask", operator.and_, scc="def", exec="both")
row("s_or_saveexec_b64", "exec", "sd:mask ss:mask", operator.or_, scc="def", exec="both")
row("s_andn2_saveexec_b64", "exec", "sd:mask ss:mask", lambda s, e: s & ~e, scc="def", exec="both")

# -- vector ALU -----------------------------------------------------------------------

for _t, _bits in (("b32", 32), ("b64", 64)):
    row(f"v_mov_{_t}", "valu", f"vd:{_t} vs:{_t}", lambda a: a)
    row(f"v_cndmask_{_t}", "valu", f"vd:{_t} vs:{_t} vs:{_t} ms:mask", None)  # d = mask ? src1 : src0
for _t, _u, _i, _bits in (("32", "u32", "i32", 32), ("64", "u64", "i64", 64)):
    _b = f"b{_t}"
    row(f"v_add_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.add)
    row(f"v_sub_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.sub)
    row(f"v_mul_lo_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.mul)
    row(f"v_mul_hi_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", getattr(lm, f"mul_hi_{_u}"))
    row(f"v_mul_hi_{_i}", "valu", f"vd:{_i} vs:{_i} vs:{_i}", getattr(lm, f"mul_hi_{_i}"))
    row(f"v_div_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", lm.div_u)
    row(f"v_div_{_i}", "valu", f"vd:{_i} vs:{_i} vs:{_i}", lm.div_s)
    row(f"v_rem_{_u}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", lm.rem_u)
    row(f"v_rem_{_i}", "valu", f"vd:{_i} vs:{_i} vs:{_i}", lm.rem_s)
    row(f"v_and_{_b}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.and_)
    row(f"v_or_{_b}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.or_)
    row(f"v_xor_{_b}", "valu", f"vd:{_u} vs:{_u} vs:{_u}", operator.xor)
    row(f"v_not_{_b}", "valu", f"vd:{_u} vs:{_u}", operator.invert)
    row(f"v_lshl_{_b}", "valu", f"vd:{_u} vs:{_u} vs:u32",
        lambda a, b, n=_bits: a << shift_amount(b, n).astype(a.dtype))
    row(f"v_lshr_{_b}", "valu", f"vd:{_u} vs:{_u} vs:u32",
        lambda a, b, n=_bits: a >> shift_amount(b, n).astype(a.dtype))
    row(f"v_ashr_{_i}", "valu", f"vd:{_i} vs:{_i} vs:u32",
        lambda a, b, n=_bits: a >> shift_amount(b, n).astype(a.dtype))
    for _s in (_i, _u):
        row(f"v_min_{_s}", "valu", f"vd:{_s} vs:{_s} vs:{_s}", np.minimum)
        row(f"v_max_{_s}", "valu", f"vd:{_s} vs:{_s} vs:{_s}", np.maximum)
    row(f"v_bcnt_{_u}", "valu", f"vd:u32 vs:{_u}", lm.popcount)
    row(f"v_ffbh_{_u}", "valu", f"vd:u32 vs:{_u}", lambda a, n=_bits: lm.count_leading_zeros(a, n))
    row(f"v_ffbl_{_b}", "valu", f"vd:u32 vs:{_u}", lambda a, n=_bits: lm.count_trailing_zeros(a, n))
row("v_mad_u32", "valu", "vd:u32 vs:u32 vs:u32 vs:u32", lambda a, b, c: a * b + c)
row("v_mad_u64", "valu", "vd:u64 vs:u64 vs:u64 vs:u64", lambda a, b, c: a * b + c)
row("v_bfe_u32", "valu", "vd:u32 vs:u32 vs:u32 vs:u32", lm.bfe_u32)
row("v_bfe_i32", "valu", "vd:i32 vs:u32 vs:u32 vs:u32", lm.bfe_i32)
row("v_sext_i32_i8", "valu", "vd:i32 vs:u32", lambda a: lm.sext(a, 8))
row("v_sext_i32_i16", "valu", "vd:i32 vs:u32", lambda a: lm.sext(a, 16))
row("v_sext_i64_i32", "valu", "vd:i64 vs:i32", lambda a: np.asarray(a, I64))

for _f, _dt in (("f32", F32), ("f64", F64)):
    row(f"v_add_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", operator.add)
    row(f"v_sub_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", operator.sub)
    row(f"v_mul_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", operator.mul)
    row(f"v_div_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", operator.truediv)
    row(f"v_fma_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f} vs:{_f}", getattr(lm, f"fma_{_f}"))
    row(f"v_min_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", np.fmin)
    row(f"v_max_{_f}", "valu", f"vd:{_f} vs:{_f} vs:{_f}", np.fmax)
    row(f"v_sqrt_{_f}", "valu", f"vd:{_f} vs:{_f}", np.sqrt)
    row(f"v_floor_{_f}", "valu", f"vd:{_f} vs:{_f}", np.floor)
    row(f"v_ceil_{_f}", "valu", f"vd:{_f} vs:{_f}", np.ceil)
    row(f"v_trunc_{_f}", "valu", f"vd:{_f} vs:{_f}", np.trunc)
    row(f"v_rndne_{_f}", "valu", f"vd:{_f} vs:{_f}", np.rint)
    row(f"v_abs_{_f}", "valu", f"vd:{_f} vs:{_f}", np.abs)
    row(f"v_neg_{_f}", "valu", f"vd:{_f} vs:{_f}", operator.neg)
    row(f"v_ldexp_{_f}", "valu", f"vd:{_f} vs:{_f} vs:i32", lambda a, n, t=_dt: np.ldexp(a, n).astype(t))
row("v_rcp_f32", "valu", "vd:f32 vs:f32", lambda a: lm.transcendental(np.reciprocal, a))
row("v_rsq_f32", "valu", "vd:f32 vs:f32", lambda a: lm.transcendental(lambda x: 1 / np.sqrt(x), a))
row("v_exp2_f32", "valu", "vd:f32 vs:f32", lambda a: lm.transcendental(np.exp2, a))
row("v_log2_f32", "valu", "vd:f32 vs:f32", lambda a: lm.transcendental(np.log2, a))
row("v_sin_f32", "valu", "vd:f32 vs:f32", lm.sin_turns)
row("v_cos_f32", "valu", "vd:f32 vs:f32", lm.cos_turns)

# conversions: v_cvt_<to>_<from>
for _to, _from in (("f32", "i32"), ("f32", "u32"), ("f64", "i32"), ("f64", "u32"), ("f32", "i64"),
                   ("f32", "u64"), ("f64", "i64"), ("f64", "u64")):
    row(f"v_cvt_{_to}_{_from}", "valu", f"vd:{_to} vs:{_from}", lambda a, t=DTYPES[_to]: lm.int_to_float(a, t))
for _to, _from in (("i32", "f32"), ("u32", "f32"), ("i32", "f64"), ("u32", "f64"), ("i64", "f32"),
                   ("u64", "f32"), ("i64", "f64"), ("u64", "f64")):
    row(f"v_cvt_{_to}_{_from}", "valu", f"vd:{_to} vs:{_from}", lambda a, t=DTYPES[_to]: lm.float_to_int(a, t))
row("v_cvt_f32_f64", "valu", "vd:f32 vs:f64", lambda a: np.asarray(a).astype(F32))
row("v_cvt_f64_f32", "valu", "vd:f64 vs:f32", lambda a: np.asarray(a).astype(F64))
row("v_cvt_f16_f32", "valu", "vd:u32 vs:f32", lm.f32_to_f16_bits)
row("v_cvt_f32_f16", "valu", "vd:f32 vs:u32", lm.f16_bits_to_f32)

# -- vector compares into a lane mask ---------------------------------------------------
for _p, _fn in COMPARES.items():
    for _t in ("i32", "u32", "i64", "u64"):
        row(f"v_cmp_{_p}_{_t}", "vcmp", f"md:mask vs:{_t} vs:{_t}", _fn)
FLOAT_COMPARES: dict[str, Callable[[Any, Any], Any]] = {
    "oeq": operator.eq, "one": lambda a, b: (a < b) | (a > b), "olt": operator.lt,
    "ole": operator.le, "ogt": operator.gt, "oge": operator.ge,
    "ord": lambda a, b: ~(np.isnan(a) | np.isnan(b)), "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "ueq": lambda a, b: ~((a < b) | (a > b)), "une": operator.ne, "ult": lambda a, b: ~(a >= b),
    "ule": lambda a, b: ~(a > b), "ugt": lambda a, b: ~(a <= b), "uge": lambda a, b: ~(a < b),
}
for _p, _fn in FLOAT_COMPARES.items():
    for _t in ("f32", "f64"):
        row(f"v_cmp_{_p}_{_t}", "vcmp", f"md:mask vs:{_t} vs:{_t}", _fn)

# -- cross-lane -------------------------------------------------------------------------
row("v_readfirstlane_b32", "lane", "sd:b32 vr:b32")  # the first lane on in exec (lane 0 if none)
row("v_readlane_b32", "lane", "sd:b32 vr:b32 ss:u32")  # the lane given (mod W), whatever exec holds
row("v_writelane_b32", "lane", "vd:b32 ss:b32 ss:u32")  # writes one lane, whatever exec holds
row("v_bpermute_b32", "lane", "vd:b32 vr:u32 vr:b32")  # d = data of lane (index mod W), lanes on in exec

# -- memory -----------------------------------------------------------------------------
LOAD_TYPES = {"u8": (1, False, "u32"), "i8": (1, True, "i32"), "u16": (2, False, "u32"),
              "i16": (2, True, "i32"), "b32": (4, False, "b32"), "b64": (8, False, "b64"),
              "b128": (16, False, "b128")}
STORE_TYPES = {"b8": (1, "b32"), "b16": (2, "b32"), "b32": (4, "b32"), "b64": (8, "b64"),
               "b128": (16, "b128")}
ATOMICS = ("add", "sub", "and", "or", "xor", "smin", "smax", "umin", "umax", "swap", "cmpswap", "fadd")
ATOMIC_TYPES = {"add": "u", "sub": "u", "and": "b", "or": "b", "xor": "b", "smin": "i", "smax": "i",
                "umin": "u", "umax": "u", "swap": "b", "cmpswap": "b", "fadd": "f"}
SPACES = {"global": ("global", "vs:u64"), "ds": ("local", "vs:u32"), "scratch": ("private", "vs:u32"),
          "flat": ("flat", "vs:u64")}

for _prefix, (_space, _addr) in SPACES.items():
    for _suffix, (_n, _signed, _t) in LOAD_TYPES.items():
        row(f"{_prefix}_load_{_suffix}", "vmem", f"vd:{_t} {_addr} imm:i32",
            memory=MemAccess(_space, _n, "load", _signed))
    for _suffix, (_n, _t) in STORE_TYPES.items():
        row(f"{_prefix}_store_{_suffix}", "vmem", f"{_addr} vs:{_t} imm:i32", memory=MemAccess(_space, _n, "store"))
    if _space == "private":
        continue
    for _a in ATOMICS:
        for _bits in (32, 64):
            _t = f"{ATOMIC_TYPES[_a]}{_bits}"
            _data = f"vs:{_t} vs:{_t}" if _a == "cmpswap" else f"vs:{_t}"  # cmpswap: compare, then new
            row(f"{_prefix}_atomic_{_a}_{_t}", "vmem", f"vd:{_t} {_addr} {_data} imm:i32",
                memory=MemAccess(_space, _bits // 8, "atomic", atomic=_a))

for _n, _t in ((4, "b32"), (8, "b64"), (16, "b128"), (32, "b256")):
    row(f"s_load_{_t}", "smem", f"sd:{_t} sr:b64 ss:u32", memory=MemAccess("global", _n, "load"))
for _n, _t in ((4, "b32"), (8, "b64"), (16, "b128")):
    row(f"s_scratch_load_{_t}", "sscratch", f"sd:{_t} ss:u32 imm:i32", memory=MemAccess("sprivate", _n, "load"))
    row(f"s_scratch_store_{_t}", "sscratch", f"ss:{_t} ss:u32 imm:i32", memory=MemAccess("sprivate", _n, "store"))

# -- control ----------------------------------------------------------------------------
row("s_branch", "branch", "label", terminator=True, branch=True)
row("s_cbranch_scc0", "branch", "label", branch=True, scc="use")
row("s_cbranch_scc1", "branch", "label", branch=True, scc="use")
row("s_cbranch_execz", "branch", "label", branch=True, exec="use")
row("s_cbranch_execnz", "branch", "label", branch=True, exec="use")
row("s_call_b64", "call", "sd:b64 func")
row("s_setpc_b64", "call", "sr:b64", terminator=True)
row("s_getpc_b64", "call", "sd:b64")
row("s_endpgm", "control", "", terminator=True)
row("s_barrier", "control", "")
row("s_nop", "control", "")
row("s_trap", "control", "imm:u32", terminator=True)

# -- checks: no effect on the machine; a checker reports the lanes (under exec) that fail ----
row("v_check_nonzero_u32", "check", "vs:u32", exec="use")  # a divisor: 0 is a division by zero
row("v_check_nonzero_u64", "check", "vs:u64", exec="use")
row("v_check_space_b64", "check", "vs:u64 imm:u32", exec="use")  # a generic address cast to the space whose
# aperture high word is the immediate (0: global, outside both apertures); the generic null passes

# -- pseudos (before lowering: copies and register sequences) ---------------------------
row("p_copy", "pseudo", "pd:any ps:any")  # same width; scalar to vector broadcasts
row("p_join", "pseudo", "pd:any ps:any", variadic="uses")  # d = concatenation of the sources, low first
row("p_split", "pseudo", "pd:any ps:any", variadic="defs")  # d0, d1, ... = the source's parts, low first
row("p_undef", "pseudo", "pd:any")  # d holds no value yet (its old bits stay)


def signature(op: Op) -> str:
    """The row as one line: `v_add_f32 vd:f32, vs:f32, vs:f32 [scc=def]`."""
    names = {"def": "d", "use": "s"}
    parts = [f"{names[f.role]}:{f.type}[{'|'.join(sorted(f.accepts))}]" for f in op.fields]
    traits = [f"{k}={v}" for k, v in (("scc", op.scc), ("exec", op.exec)) if v]
    if op.memory:
        traits.append(f"mem={op.memory.space}:{op.memory.kind}:{op.memory.bytes}")
    return f"{op.name:28} {op.family:8} {', '.join(parts)}  {' '.join(traits)}".rstrip()


if __name__ == "__main__":
    for _op in OPS.values():
        print(signature(_op))
