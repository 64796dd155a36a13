"""The `ocl.*` intrinsics on nvptx: work-item queries, barriers, fences, printf, math.

Work-item queries read NVVM's special registers (`llvm.nvvm.read.ptx.sreg.*`:
tid, ntid); the global offset, the work dimension, the number of work-groups
and the first group of this launch come from the hidden parameters every
function receives (`HIDDEN_*`). The group base is not zero when the runtime
splits an NDRange wider than CUDA's grid (65,535 blocks in y and z) into
several launches: a work-group's id is `ctaid + base`, and the counts and
sizes are the whole NDRange's, not the launch's. `barrier` is
`bar.sync 0` (`llvm.nvvm.barrier0`, which orders the CTA's memory accesses);
`mem_fence` is a work-group-scope fence; `printf` is CUDA's `vprintf` with the
arguments packed, each at its natural alignment, in a private buffer;
`to_global`/`to_local`/`to_private` test a generic pointer with PTX's
`isspacep` (`llvm.nvvm.isspacep.*`).

Math: what PTX does natively (sqrt, fma, min/max, rounding, fabs, copysign)
stays an LLVM intrinsic (float sqrt's precision: ptx_codegen.Precision);
everything else calls NVIDIA's libdevice (`__nv_sinf`, `__nv_pow`), linked in
by `ptx_codegen`. The
OpenCL functions libdevice lacks (asinpi, rootn, powr, ...) reuse the cpu
target's formulas (`mathlib.py`), whose C-library calls become libdevice calls.
libdevice's float functions meet OpenCL's bounds (CUDA documents them: sinf 2
ulp, rsqrtf 2 ulp, powf 4 ulp, ...); under -cl-fast-relaxed-math the float
sin/cos/exp/log/pow family uses libdevice's `__nv_fast_*` approximations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from llvmlite import ir as ll

from ..emit_types import EmitError
from ..cpu.mathlib import MathLowering, is_math

if TYPE_CHECKING:
    from ..emit import FunctionEmitter

I8, I32, I64 = ll.IntType(8), ll.IntType(32), ll.IntType(64)
F32, F64 = ll.FloatType(), ll.DoubleType()
GENERIC_PTR = ll.PointerType()

# Hidden parameters appended to every defined function (and to each kernel entry).
HIDDEN_NAMES = ("wi.offset.x", "wi.offset.y", "wi.offset.z",
                "wi.group_base.x", "wi.group_base.y", "wi.group_base.z",
                "wi.num_groups.x", "wi.num_groups.y", "wi.num_groups.z", "wi.work_dim")
HIDDEN_OFFSET, HIDDEN_GROUP_BASE, HIDDEN_NUM_GROUPS, HIDDEN_WORK_DIM = 0, 3, 6, 9


def hidden_param_types() -> list[ll.Type]:
    """Nine i64 (offset, group base, number of groups, per dimension), then the i32 work dimension."""
    return [I64] * 9 + [I32]


def _sreg(fe: FunctionEmitter, reg: str, dim: int) -> ll.Value:
    name = f"llvm.nvvm.read.ptx.sreg.{reg}.{'xyz'[dim]}"
    fn = fe.me.declare_external(name, I32, [])
    return fe.builder.zext(fe.builder.call(fn, []), I64)


def _per_dim(b: ll.IRBuilder, dim: ll.Value, pick: Callable[[int], ll.Value],
             default: int) -> ll.Value:
    """pick(dim) for dim in 0..2, else `default`; `dim` may be a run-time value."""
    if isinstance(dim, ll.Constant):
        d = dim.constant
        return pick(d) if 0 <= d < 3 else ll.Constant(I64, default)
    result: ll.Value = ll.Constant(I64, default)
    for i in (2, 1, 0):
        result = b.select(b.icmp_unsigned("==", dim, ll.Constant(dim.type, i)), pick(i), result)
    return result


class Queries:
    """Work-item queries inside one function emitter."""

    def __init__(self, fe: FunctionEmitter) -> None:
        self.fe, self.b = fe, fe.builder

    def reg(self, reg: str, dim: ll.Value, default: int) -> ll.Value:
        return _per_dim(self.b, dim, lambda i: _sreg(self.fe, reg, i), default)

    def hidden(self, first: int, dim: ll.Value, default: int) -> ll.Value:
        return _per_dim(self.b, dim, lambda i: self.fe.hidden[first + i], default)

    def offset(self, dim: ll.Value) -> ll.Value:
        return self.hidden(HIDDEN_OFFSET, dim, 0)

    def group_id(self, dim: ll.Value) -> ll.Value:
        return self.b.add(self.reg("ctaid", dim, 0), self.hidden(HIDDEN_GROUP_BASE, dim, 0))

    def num_groups(self, dim: ll.Value) -> ll.Value:
        return self.hidden(HIDDEN_NUM_GROUPS, dim, 1)

    def global_size(self, dim: ll.Value) -> ll.Value:
        return self.b.mul(self.reg("ntid", dim, 1), self.num_groups(dim))

    def global_id(self, dim: ll.Value) -> ll.Value:
        b = self.b
        base = b.mul(self.group_id(dim), self.reg("ntid", dim, 1))
        return b.add(b.add(base, self.reg("tid", dim, 0)), self.offset(dim))

    def _linear(self, ids: list[ll.Value], sizes: list[ll.Value]) -> ll.Value:
        b = self.b
        return b.add(b.mul(b.add(b.mul(ids[2], sizes[1]), ids[1]), sizes[0]), ids[0])

    def global_linear_id(self) -> ll.Value:
        d = [ll.Constant(I32, i) for i in range(3)]
        ids = [self.b.sub(self.global_id(x), self.offset(x)) for x in d]
        return self._linear(ids, [self.global_size(x) for x in d])

    def local_linear_id(self) -> ll.Value:
        d = [ll.Constant(I32, i) for i in range(3)]
        return self._linear([self.reg("tid", x, 0) for x in d], [self.reg("ntid", x, 1) for x in d])


_QUERIES: dict[str, Callable[[Queries, list[ll.Value]], ll.Value]] = {
    "get_global_id": lambda q, a: q.global_id(a[0]),
    "get_local_id": lambda q, a: q.reg("tid", a[0], 0),
    "get_group_id": lambda q, a: q.group_id(a[0]),
    "get_global_size": lambda q, a: q.global_size(a[0]),
    "get_local_size": lambda q, a: q.reg("ntid", a[0], 1),
    "get_enqueued_local_size": lambda q, a: q.reg("ntid", a[0], 1),
    "get_num_groups": lambda q, a: q.num_groups(a[0]),
    "get_global_offset": lambda q, a: q.offset(a[0]),
    "get_work_dim": lambda q, a: q.fe.hidden[HIDDEN_WORK_DIM],
    "get_global_linear_id": lambda q, a: q.global_linear_id(),
    "get_local_linear_id": lambda q, a: q.local_linear_id(),
}

CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE = 1, 2


def _fence_for(fe: FunctionEmitter, flags: ll.Value) -> None:
    """A fence for `flags`: work-group scope for local memory, device scope for global."""
    if isinstance(flags, ll.Constant) and not flags.constant & CLK_GLOBAL_MEM_FENCE:
        fe.builder.fence("acq_rel", "block")
    else:
        fe.builder.fence("acq_rel", "device")


def _barrier(fe: FunctionEmitter, args: list[ll.Value]) -> None:
    """OpenCL's barrier is `bar.sync 0`: PTX orders every shared and global memory
    access of the CTA's threads across it, which is all that either fence flag
    asks for within a work-group, so no extra (device-scope) fence is needed."""
    sync = fe.me.declare_external("llvm.nvvm.barrier0", ll.VoidType(), [])
    fe.builder.call(sync, [])
    return None


def _mem_fence(fe: FunctionEmitter, args: list[ll.Value]) -> None:
    _fence_for(fe, args[0] if args else ll.Constant(I32, CLK_GLOBAL_MEM_FENCE))
    return None


def _promote(b: ll.IRBuilder, a: ll.Value) -> ll.Value:
    """C's default argument promotions, and pointers as generic addresses."""
    if isinstance(a.type, (ll.FloatType, ll.HalfType)):
        return b.fpext(a, F64)
    if isinstance(a.type, ll.IntType) and a.type.width < 32:
        return b.sext(a, I32)
    if isinstance(a.type, ll.PointerType) and a.type.addrspace != 0:
        return b.addrspacecast(a, GENERIC_PTR)
    return a


def _printf(fe: FunctionEmitter, args: list[ll.Value]) -> ll.Value:
    """printf(fmt, ...) -> vprintf(fmt, &{args...}); CUDA formats on the host."""
    b = fe.builder
    fmt = _promote(b, args[0])
    rest = [_promote(b, a) for a in args[1:]]
    vprintf = fe.me.declare_external("vprintf", I32, [GENERIC_PTR, GENERIC_PTR])
    if not rest:
        return b.call(vprintf, [fmt, ll.Constant(GENERIC_PTR, None)])
    offsets, end = [], 0
    for a in rest:
        size = _printf_size(a.type)
        offsets.append(-(-end // size) * size)
        end = offsets[-1] + size
    buf = fe.alloca_builder.alloca(ll.ArrayType(I8, max(end, 8)))
    buf.align = 8
    buf.type = GENERIC_PTR
    for a, off in zip(rest, offsets):
        b.store(a, b.gep(buf, [ll.Constant(I64, off)], source_etype=I8))
    return b.call(vprintf, [fmt, buf])


def _printf_size(t: ll.Type) -> int:
    """Bytes (and alignment) of one promoted printf argument in vprintf's buffer."""
    if isinstance(t, ll.IntType):
        return max(4, t.width // 8)
    if isinstance(t, ll.VectorType):
        return t.count * _printf_size(t.element)
    return 8  # double, pointers


# OpenCL 2.0's to_global/to_local/to_private on a generic pointer: PTX's isspacep.
_SPACE_TESTS = {"to_global": "global", "to_local": "shared", "to_private": "local"}


def _space_test(fe: FunctionEmitter, base: str, ret: ll.Type, args: list[ll.Value]) -> ll.Value:
    """The pointer in the named space when it points there, else NULL."""
    b = fe.builder
    test = fe.me.declare_external(f"llvm.nvvm.isspacep.{_SPACE_TESTS[base]}",
                                  ll.IntType(1), [GENERIC_PTR])
    p = args[0] if args[0].type == GENERIC_PTR else b.addrspacecast(args[0], GENERIC_PTR)
    inside = b.call(test, [p])
    cast = p if ret == p.type else b.addrspacecast(p, ret)
    return b.select(inside, cast, ll.Constant(ret, None))


_OTHER: dict[str, Callable[[FunctionEmitter, list[ll.Value]], ll.Value | None]] = {
    "barrier": _barrier, "mem_fence": _mem_fence, "printf": _printf,
}

# LLVM intrinsics NVPTX selects to exact PTX instructions.
NATIVE = {"sqrt", "fabs", "floor", "ceil", "trunc", "rint", "fma", "minnum", "maxnum",
          "copysign"}
# LLVM intrinsic names the cpu formulas use, as libdevice names.
_LIBDEVICE_ALIAS = {"minnum": "fmin", "maxnum": "fmax"}
# OpenCL builtins -> the libdevice function (without the `f` of float) computing them.
LIBDEVICE = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "atan2": "atan2", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "asinh": "asinh",
    "acosh": "acosh", "atanh": "atanh", "exp": "exp", "exp2": "exp2", "exp10": "exp10",
    "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
    "pow": "pow", "cbrt": "cbrt", "fmod": "fmod", "hypot": "hypot", "erf": "erf",
    "erfc": "erfc", "tgamma": "tgamma", "lgamma": "lgamma", "logb": "logb",
    "nextafter": "nextafter", "fdim": "fdim", "remainder": "remainder", "ldexp": "ldexp",
    "round": "round", "rsqrt": "rsqrt", "sinpi": "sinpi", "cospi": "cospi",
}
# libdevice's approximate float versions (`__nv_fast_sinf`), for -cl-fast-relaxed-math.
FAST_F32 = {"sin", "cos", "tan", "exp", "exp10", "log", "log2", "log10", "pow"}
# Builtins whose OpenCL name is an LLVM intrinsic NVPTX selects exactly.
_DIRECT = {"sqrt": "sqrt", "fabs": "fabs", "floor": "floor", "ceil": "ceil", "trunc": "trunc",
           "rint": "rint", "fma": "fma", "fmin": "minnum", "fmax": "maxnum",
           "copysign": "copysign"}


def libdevice_name(name: str, ty: ll.Type) -> str:
    return f"__nv_{name}{'f' if ty == F32 else ''}"


class NvMath(MathLowering):
    """The cpu target's math lowering with NVPTX's choices: native or libdevice."""

    half_without_library = False  # NVPTX converts double to half natively (cvt.rn.f16.f64)

    def intrinsic(self, name: str, ty: ll.Type, args: list[ll.Value]) -> ll.Value:
        if name in NATIVE or isinstance(ty, ll.VectorType):
            return super().intrinsic(name, ty, args)
        return self.libm(_LIBDEVICE_ALIAS.get(name, name), ty, args)

    def libm(self, name: str, ty: ll.Type, args: list[ll.Value]) -> ll.Value:
        if isinstance(ty, ll.HalfType):
            wide = [self.b.fpext(a, F32) if a.type == ty else a for a in args]
            return self.b.fptrunc(self.libm(name, F32, wide), ty)
        fn = self.fe.me.declare_external(libdevice_name(name, ty), ty, [a.type for a in args])
        return self.b.call(fn, args)

    def scalar(self, base: str, ty: ll.Type, args: list[ll.Value]) -> ll.Value:
        if base in _DIRECT:
            return self.intrinsic(_DIRECT[base], ty, args)
        if "fast" in self.fe.fmf and ty == F32 and base in FAST_F32:  # -cl-fast-relaxed-math
            return self.libm(f"fast_{base}", ty, args)
        if base in LIBDEVICE:
            return self.libm(LIBDEVICE[base], ty, args)
        return super().scalar(base, ty, args)


def lower_math(fe: FunctionEmitter, base: str, ret: ll.Type, args: list[ll.Value]) -> ll.Value:
    m = NvMath(fe)
    if not isinstance(ret, ll.VectorType):
        return m.scalar(base, ret, args)
    out: ll.Value = ll.Constant(ret, ll.Undefined)
    for i in range(ret.count):
        idx = ll.Constant(I32, i)
        elems = [fe.builder.extract_element(a, idx) if isinstance(a.type, ll.VectorType) else a
                 for a in args]
        out = fe.builder.insert_element(out, m.scalar(base, ret.element, elems), idx)
    return out


def lower_intrinsic(fe: FunctionEmitter, base: str, ret: ll.Type,
                    args: list[ll.Value]) -> ll.Value | None:
    """Lower `ocl.<base>` on nvptx, or raise EmitError for an unknown one."""
    if base in _QUERIES:
        return _QUERIES[base](Queries(fe), args)
    if base in _OTHER:
        return _OTHER[base](fe, args)
    if base in _SPACE_TESTS:
        return _space_test(fe, base, ret, args)
    if is_math(base) or base in LIBDEVICE:
        return lower_math(fe, base, ret, args)
    raise EmitError(f"nvptx target: no lowering for intrinsic 'ocl.{base}'")


__all__ = ["HIDDEN_NAMES", "hidden_param_types", "lower_intrinsic", "libdevice_name"]
