"""The vectorisable math library of the cpu target: which builtins it covers and
the LLVM functions that implement them.

Why it exists: LLVM turns `llvm.sin.f32` or a libm call inside a work-item loop
into one scalar call per lane, so the loop vectoriser gains nothing on math.
Here every float (and half) builtin of `vecmath_float.FLOAT` is an LLVM IR
function of plain instructions without branches (the special cases are
selects), computed in double and rounded once (exp in float:
`single_native.py`), marked `alwaysinline`: it is
inlined into the work-item loop and vectorised with it, at whatever width
LLVM picks for the host. An explicit vector call (`sin(float4)`) gets the same
body built over `<4 x double>`.

The exception is a scalar call of a builtin in `C_LIBRARY` (exp, log, pow, sin,
cos): where a work-item loop does not vectorise (vector-typed loads and stores
stop LLVM's loop vectoriser, e.g. float2 or float4 data), the C library's scalar
code is two to five times faster than ours computed in double (ViennaCL's
radix-2 FFT, a float2 butterfly with `sincos` per element: 889 -> 235 ms; LLVM's
code generator also merges a `sinf` and a `cosf` of one operand into one
`sincosf`). So such a call goes to the C library function, declared
`readnone` (as clang's -fno-math-errno) with our vector bodies registered as
its vector variants (`"vector-function-abi-variant"`, LLVM's VFABI, widths
`VF_WIDTHS`, kept alive by `llvm.compiler.used`): a loop LLVM vectorises calls
ours, a loop it does not keeps the C library's. Both meet the spec's bounds; lanes of one launch may
then differ in the last bit from the scalar remainder's.

`call(builder, base, ret, args)` emits one builtin call; `function_for(module,
base, ret, params)` defines (once per LLVM module) and returns
`oclpy.<base>.<type>`, e.g. `oclpy.sin.v4f32`; `covers(base, elem)` says
whether a builtin on that element type is ours. Double builtins covered are
exp, exp2, exp10, log, log2, log10, sin, cos, tan (`vecmath_double.py`) and
pow, powr, pown, rootn (`vecmath_double_pow.py`), atan, atan2, asin, acos and
their pi forms (`vecmath_double_inv.py`), expm1, log1p, sinh, cosh, tanh,
hypot (`vecmath_double_hyp.py`), cbrt, asinh, acosh, atanh, erf, erfc, sinpi,
cospi, tanpi (`vecmath_double_special.py`): the scalar calls of those the C
library has go to it (`C_LIBRARY_DOUBLE`; not cbrt, whose glibc version is
off by up to 4 ulp), their vector calls and variants to ours; other double
builtins keep mathlib.py's lowering.
"""

from __future__ import annotations

from llvmlite import ir as ll

from .. import exact_half
from .double import DOUBLE as _DOUBLE_BASIC
from .double_hyp import DOUBLE_HYP
from .double_inv import DOUBLE_INV
from .double_pow import DOUBLE_POW
from .double_special import DOUBLE_SPECIAL
from .single import FLOAT
from .single_native import FLOAT_NATIVE
from .lane_ops import F16, F32, F64, Ops, type_suffix

# builtins whose scalar form calls the C library's function (see above), by element type
C_LIBRARY: dict[str, str] = {"exp": "expf", "exp2": "exp2f", "log": "logf", "log2": "log2f",
                             "pow": "powf", "sin": "sinf", "cos": "cosf"}
# (not exp10: a GNU extension, `__exp10` on macOS; our scalar body serves there)
C_LIBRARY_DOUBLE: dict[str, str] = {name: name for name in (
    "exp", "exp2", "log", "log2", "log10", "sin", "cos", "tan", "pow", "atan", "asin",
    "acos", "atan2", "expm1", "log1p", "sinh", "cosh", "tanh", "hypot", "asinh", "acosh",
    "atanh", "erf", "erfc")}
VF_WIDTHS = (4, 8, 16)  # the vector variants registered for a float function
VF_WIDTHS_DOUBLE = (2, 4, 8)
_VFABI = "vector-function-abi-variant"
DOUBLE = {**_DOUBLE_BASIC, **DOUBLE_POW, **DOUBLE_INV, **DOUBLE_HYP, **DOUBLE_SPECIAL}
_USED = "llvm.compiler.used"


def covers(base: str, elem: ll.Type) -> bool:
    """Whether builtin `base` on elements of type `elem` has a vectorisable body here."""
    if elem == F64:
        return base in DOUBLE
    return base in FLOAT and elem in (F16, F32)


def call(builder: ll.IRBuilder, base: str, ret: ll.Type, args: list[ll.Value],
         library: bool = True) -> ll.Value:
    """Builtin `base` on `args` (float or half, scalar or vector), returning `ret`;
    `library` False: our body even where the C library has the function."""
    names = C_LIBRARY_DOUBLE if ret == F64 else C_LIBRARY
    if (isinstance(ret, ll.VectorType) or not library
            or not _library_usable(builder.module, names.get(base))):
        return builder.call(function_for(builder.module, base, ret, [a.type for a in args]), args)
    fn = _c_library_function(builder.module, base, len(args), F64 if ret == F64 else F32)
    if ret in (F32, F64):
        return builder.call(fn, args)
    wide = [builder.fpext(a, F32) for a in args]
    return builder.fptrunc(builder.call(fn, wide), ret)


def _library_usable(module: ll.Module, name: str | None) -> bool:
    """Whether the C library's `name` can be called: there is one, and the
    program does not define a function of that name itself (`float expf(float)`)."""
    if name is None:
        return False
    existing = module.globals.get(name)
    if existing is None:
        return True
    # the emitter declares the program's own functions up front, internal
    return isinstance(existing, ll.Function) and existing.linkage in ("", "external")


def _c_library_function(module: ll.Module, base: str, nargs: int, elem: ll.Type) -> ll.Function:
    """The C library's `base` on `elem`, declared readnone with our vector variants."""
    name = (C_LIBRARY_DOUBLE if elem == F64 else C_LIBRARY)[base]
    widths = VF_WIDTHS_DOUBLE if elem == F64 else VF_WIDTHS
    fn = module.globals.get(name)
    if isinstance(fn, ll.Function) and any(_VFABI in a for a in fn.attributes):
        return fn
    if not isinstance(fn, ll.Function):
        fn = ll.Function(module, ll.FunctionType(elem, [elem] * nargs), name)
    fn.attributes.add("nounwind")
    fn.attributes.add("readnone")
    variants = []
    for n in widths:
        vt = ll.VectorType(elem, n)
        variants.append(function_for(module, base, vt, [vt] * nargs))
    mangled = ",".join(f"_ZGV_LLVM_N{n}{'v' * nargs}_{name}({v.name})"
                       for n, v in zip(widths, variants))
    set.add(fn.attributes, f'"{_VFABI}"="{mangled}"')  # llvmlite knows no string attributes
    _keep_alive(module, variants)
    return fn


def _keep_alive(module: ll.Module, fns: list[ll.Function]) -> None:
    """Add `fns` to llvm.compiler.used, so no pass drops them before the loop vectoriser."""
    used = module.globals.get(_USED)
    if used is None:
        used = ll.GlobalVariable(module, ll.ArrayType(ll.PointerType(), 0), _USED)
        used.linkage = "appending"
        used.section = "llvm.metadata"
        used.initializer = ll.Constant(used.value_type, [])
    members = list(used.initializer.constant) + fns
    used.value_type = ll.ArrayType(ll.PointerType(), len(members))
    used.initializer = ll.Constant(used.value_type, members)


def function_for(module: ll.Module, base: str, ret: ll.Type, params: list[ll.Type]) -> ll.Function:
    """The function `oclpy.<base>.<ret suffix>` of `module`, defined on first request."""
    name = f"oclpy.{base}.{type_suffix(ret)}"
    existing = module.globals.get(name)
    if isinstance(existing, ll.Function):
        return existing
    fn = ll.Function(module, ll.FunctionType(ret, params), name)
    fn.linkage = "internal"
    fn.attributes.add("alwaysinline")
    fn.attributes.add("nounwind")
    _define_body(fn, base, ret)
    return fn


def _define_body(fn: ll.Function, base: str, ret: ll.Type) -> None:
    builder = ll.IRBuilder(fn.append_basic_block("entry"))
    lanes = ret.count if isinstance(ret, ll.VectorType) else None
    elem = ret.element if isinstance(ret, ll.VectorType) else ret
    o = Ops(builder, lanes)
    if elem == F64:
        builder.ret(DOUBLE[base](o, list(fn.args)))
        return
    args = [_as_float(o, a) for a in fn.args]
    native = FLOAT_NATIVE.get(base)
    if native is not None:
        result = native(o, args)
        builder.ret(result if elem == F32 else builder.fptrunc(result, ret))
        return
    # a double rounded to half once, in integer steps (exact_half.py): a plain fptrunc
    # chain lets LLVM's x86 code generator pass a double copysign operand to
    # __truncdfhf2, a library the JIT lacks (atan2 on half did)
    wide = FLOAT[base](o, args)
    builder.ret(o.narrow(wide, F32) if elem == F32 else exact_half.fptrunc(builder, wide, ret))


def _as_float(o: Ops, arg: ll.Value) -> ll.Value:
    """A half operand widened to float (exact); float and integer operands as they are."""
    elem = arg.type.element if isinstance(arg.type, ll.VectorType) else arg.type
    return o.b.fpext(arg, o.ty(F32)) if elem == F16 else arg
