"""exact_half.py: double -> half and half fma on the cpu without a library call, bit for
bit against NumPy (and exact rationals for fma), and the LLVM IR the emitter makes of
them (FileCheck); object code that calls an unknown symbol is an LLVMError."""

from __future__ import annotations

import ctypes
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from llvmlite import ir as ll

from oclpy.targets.llvm import binding, exact_half, object_symbols
from tests.test_filecheck import filecheck
from tools.cpu_harness import compile_text, run

H, D = ll.HalfType(), ll.DoubleType()
LANES = 4


def _jit(name: str, build, elem_in: ll.Type, arity: int) -> binding.JitModule:  # type: ignore[no-untyped-def]
    """`void name(in0*, .., out*, n)`: out[i] = build(in0[i], ..) over vectors of LANES (n a multiple)."""
    m = ll.Module()
    m.triple, m.data_layout = binding.host_triple(), binding.host_data_layout()
    ptr = ll.PointerType()
    fn = ll.Function(m, ll.FunctionType(ll.VoidType(), [ptr] * (arity + 1) + [ll.IntType(64)]), name)
    entry, loop, done = (fn.append_basic_block(n) for n in ("entry", "loop", "done"))
    b = ll.IRBuilder(entry)
    b.branch(loop)
    b.position_at_end(loop)
    i = b.phi(ll.IntType(64))
    i.add_incoming(ll.Constant(ll.IntType(64), 0), entry)
    vin, vout = ll.VectorType(elem_in, LANES), ll.VectorType(H, LANES)
    ins = [b.load(b.gep(fn.args[k], [i], source_etype=elem_in), typ=vin, align=1) for k in range(arity)]
    b.store(build(b, *ins), b.gep(fn.args[arity], [i], source_etype=H), align=1)
    scalar = [b.extract_element(v, ll.Constant(ll.IntType(32), 0)) for v in ins]  # the scalar form too
    b.store(build(b, *scalar), b.gep(fn.args[arity], [i], source_etype=H), align=1)
    nxt = b.add(i, ll.Constant(ll.IntType(64), LANES))
    i.add_incoming(nxt, loop)
    b.cbranch(b.icmp_unsigned("<", nxt, fn.args[arity + 1]), loop, done)
    b.position_at_end(done)
    b.ret_void()
    return binding.compile_ir(str(m), 0)


def _call(jit: binding.JitModule, name: str, *arrays: np.ndarray) -> np.ndarray:
    n = len(arrays[0])
    assert n % LANES == 0
    out = np.zeros(n, np.float16)
    args = [a.ctypes.data for a in (*arrays, out)] + [n]
    ctypes.CFUNCTYPE(None, *[ctypes.c_void_p] * (len(arrays) + 1), ctypes.c_int64)(jit.address_of(name))(*args)
    return out


def _same_bits(got: np.ndarray, want: np.ndarray, nan_sign: bool = True) -> None:
    """Equal bits; a NaN matches any NaN (of the same sign for a conversion: IEEE leaves
    the payload to the hardware, and an arithmetic NaN's sign too)."""
    g, w = got.view(np.uint16), want.view(np.uint16)
    nan = np.isnan(want)
    assert np.array_equal(np.isnan(got), nan)
    assert not nan_sign or np.array_equal(g[nan] >> 15, w[nan] >> 15)
    bad = np.nonzero(g[~nan] != w[~nan])[0]
    assert bad.size == 0, (want[~nan][bad[:8]], got[~nan][bad[:8]])


def _edge_doubles() -> np.ndarray:
    mid = 1.0 + 2.0 ** -11  # halfway between 1 and the next half
    tiny = 2.0 ** -25  # halfway between 0 and the least subnormal
    edges = [mid, mid + 2.0 ** -40, mid - 2.0 ** -40, 1.0 + 3 * 2.0 ** -11,
             # ties and near-ties that one nearest rounding to float would turn into a tie
             mid + 2.0 ** -30, mid - 2.0 ** -30, mid + 2.0 ** -35, -(mid + 2.0 ** -30),
             tiny, tiny + 2.0 ** -60, tiny - 2.0 ** -60, 3 * tiny, 2.0 ** -24, 2.0 ** -14 - 2.0 ** -26,
             2.0 ** -14 - 2.0 ** -25, 2.0 ** -14 - 2.0 ** -25 + 2.0 ** -70, 2.0 ** -150, -2.0 ** -140, 1e-300,
             65504.0, 65519.99, 65520.0, 65520.0 - 2.0 ** -30, -65520.0, 65536.0, 3.4e38, 3.5e38, 1e300,
             np.inf, -np.inf, 0.0, -0.0, np.nan, -np.nan, 1.0, -1.0, 2049.0, 2051.0, 0.1, 1 / 3]
    payload = np.array([0x7FF0000000000001, 0x7FF8000012345678, 0xFFF4000000000000], np.uint64).view(np.float64)
    return np.concatenate([edges, payload])


def test_double_to_half_matches_numpy_bit_for_bit() -> None:
    rng = np.random.default_rng(11)
    bits = rng.integers(0, 2 ** 64, 40000, dtype=np.uint64)
    near = (bits & np.uint64(0x800FFFFFFFFFFFFF)) | (rng.integers(1023 - 30, 1023 + 18, 40000).astype(np.uint64) << 52)
    edge = _edge_doubles()
    with np.errstate(invalid="ignore"):
        d = np.concatenate([edge, np.nextafter(edge, np.inf), np.nextafter(edge, -np.inf), near.view(np.float64),
                            bits.view(np.float64)])
    d = np.concatenate([d, np.zeros(-len(d) % LANES)])
    jit = _jit("to_half", exact_half.double_to_half, D, 1)
    with np.errstate(all="ignore"):
        want = d.astype(np.float16)
    _same_bits(_call(jit, "to_half", d), want)


def _fma_reference(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> np.ndarray:
    """x*y + z rounded once to half: exact rationals, the nearest of the half neighbours."""
    out = np.empty(len(x), np.float16)
    for k, (a, b, c) in enumerate(zip(x.astype(np.float64), y.astype(np.float64), z.astype(np.float64))):
        if not all(np.isfinite([a, b, c])):
            out[k] = np.float16(a * b + c)
            continue
        exact = Fraction(a) * Fraction(b) + Fraction(c)
        if exact == 0:
            out[k] = np.float16(a * b + c)  # the sign of an exact zero: IEEE's, as double gives it
            continue
        with np.errstate(over="ignore"):
            guess = np.float16(float(exact))
            candidates = [guess, np.nextafter(guess, np.float16(np.inf)), np.nextafter(guess, np.float16(-np.inf))]
        out[k] = min(candidates, key=lambda h: (_distance(h, exact), int(h.view(np.uint16)) & 1))
    return out


def _distance(h: np.float16, exact: Fraction) -> Fraction | float:
    if np.isinf(h):  # inf stands for 2**16 in rounding
        return abs(Fraction(2 ** 16) * (1 if h > 0 else -1) - exact)
    return abs(Fraction(float(h)) - exact)


def test_fma_half_is_correctly_rounded() -> None:
    rng = np.random.default_rng(12)
    n = 6000
    x = rng.integers(0, 0x10000, n, dtype=np.uint16).view(np.float16)
    y = rng.integers(0, 0x10000, n, dtype=np.uint16).view(np.float16)
    z = rng.integers(0, 0x10000, n, dtype=np.uint16).view(np.float16)
    # products near z's negative, where the exact sum is long and a double fma would round twice
    y[: n // 2] = (rng.standard_normal(n // 2) * 4).astype(np.float16)
    with np.errstate(all="ignore"):
        z[: n // 2] = (-(x[: n // 2].astype(np.float64) * y[: n // 2])
                       * (1 + rng.standard_normal(n // 2) * 2.0 ** -9)).astype(np.float16)
    # z + x*y within a float ulp of a half midpoint (z's ulp is 2**-10, x*y about 2**-11):
    # rounded to float first, a quarter of these would tie
    m = n // 3
    x[:m] = 1 + rng.integers(0, 1024, m) / 1024.0
    y[:m] = (np.sign(rng.standard_normal(m)) * 2.0 ** -11 / x[:m].astype(np.float64)).astype(np.float16)
    z[:m] = 1 + rng.integers(0, 1024, m) / 1024.0
    special = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, np.inf, -np.inf, np.nan, 6e-8, -6e-8, 2.0 ** -14, 0.75],
                       np.float16)
    gx, gy, gz = (g.ravel() for g in np.meshgrid(special, special, special))
    x, y, z = (np.concatenate([a, b]) for a, b in ((x, gx), (y, gy), (z, gz)))
    pad = -len(x) % LANES
    x, y, z = (np.concatenate([a, np.zeros(pad, np.float16)]) for a in (x, y, z))
    jit = _jit("fma", exact_half.fma_half, H, 3)
    with np.errstate(all="ignore"):
        want = _fma_reference(x, y, z)
    _same_bits(_call(jit, "fma", x, y, z), want, nan_sign=False)


def test_fma_half_rounds_once() -> None:
    # x*y + z = 1 + 2**-10 + 2**-11 - 2**-31, just under a half midpoint: 1 + 2**-10;
    # rounded to float first it would be the midpoint, then 1 + 2**-9
    x, y, z = (np.full(LANES, v, np.float16) for v in (1 + 2.0 ** -10, 2.0 ** -11 - 2.0 ** -21, 1 + 2.0 ** -10))
    jit = _jit("fma", exact_half.fma_half, H, 3)
    _same_bits(_call(jit, "fma", x, y, z), np.full(LANES, 1 + 2.0 ** -10, np.float16))
    through_float = np.float16(np.float32(x[0].astype(np.float64) * y[0] + z[0]))
    assert through_float == np.float16(1 + 2.0 ** -9)


HALF_KERNEL = """
declare i64 @ocl.get_global_id(i32 %d)
declare half @ocl.fma.f16(half %a, half %b, half %c)
declare <4 x half> @ocl.fma.v4f16(<4 x half> %a, <4 x half> %b, <4 x half> %c)
kernel void @k(ptr<global> %d, ptr<global> %x, ptr<global> %o) {
entry:
  %i = call i64 @ocl.get_global_id(i32 0)
  %pd = getelementptr inbounds double, ptr<global> %d, i64 %i
  %dv = load double, ptr<global> %pd, align 8
  %h = fptrunc double %dv to half
  %px = getelementptr inbounds half, ptr<global> %x, i64 %i
  %xv = load half, ptr<global> %px, align 2
  %f = call half @ocl.fma.f16(half %xv, half %xv, half %h)
  %x4 = insertelement <4 x half> undef, half %xv, i32 0
  %d4 = insertelement <4 x double> undef, double %dv, i32 1
  %h4 = fptrunc <4 x double> %d4 to <4 x half>
  %f4 = call <4 x half> @ocl.fma.v4f16(<4 x half> %x4, <4 x half> %x4, <4 x half> %h4)
  %e4 = extractelement <4 x half> %f4, i32 0
  %po = getelementptr inbounds half, ptr<global> %o, i64 %i
  %i3 = mul i64 %i, 3
  %o0 = getelementptr inbounds half, ptr<global> %o, i64 %i3
  store half %h, ptr<global> %o0, align 2
  %o1 = getelementptr inbounds half, ptr<global> %o0, i64 1
  store half %f, ptr<global> %o1, align 2
  %o2 = getelementptr inbounds half, ptr<global> %o0, i64 2
  store half %e4, ptr<global> %o2, align 2
  ret void
}
"""

# fptrunc double -> half becomes double -> float, an integer round-to-odd fix-up, float -> half;
# fma on half a float TwoSum; LLVM would call __truncdfhf2 for either
HALF_CHECKS = """
; CHECK-LABEL: define internal void @"k"(
; CHECK-NOT:     fptrunc double {{%.+}} to half
; CHECK-NOT:     llvm.fma.{{v4f16|f16}}
; CHECK:         [[F:%.+]] = fptrunc double [[D:%.+]] to float
; CHECK-NEXT:    [[BACK:%.+]] = fpext float [[F]] to double
; CHECK:         fcmp one double [[BACK]], [[D]]
; CHECK:         [[ODD:%.+]] = or i32
; CHECK-NEXT:    [[FLOAT:%.+]] = bitcast i32 [[ODD]] to float
; CHECK-NEXT:    fptrunc float [[FLOAT]] to half
; CHECK:         fmul float
; CHECK-NEXT:    fpext half {{%.+}} to float
; CHECK-NEXT:    fadd float
; CHECK:         fptrunc <4 x double> {{%.+}} to <4 x float>
; CHECK:         fptrunc <4 x float> {{%.+}} to <4 x half>
; CHECK:         fmul <4 x float>
; CHECK-LABEL: define void @"k.launch"(
"""


def test_emitted_llvm_ir_has_no_double_to_half(tmp_path: Path) -> None:
    ir = compile_text(HALF_KERNEL).llvm_ir
    assert filecheck(HALF_CHECKS, ir, tmp_path) == 0


def test_kernel_with_double_to_half_and_half_fma_runs() -> None:
    k = compile_text(HALF_KERNEL).kernels["k"]
    d = np.concatenate([_edge_doubles(), np.linspace(-70000, 70000, 15)])
    d = d[: len(d) - len(d) % 8]
    x = np.linspace(-3, 3, len(d)).astype(np.float16)
    out = np.zeros(3 * len(d), np.float16)
    run(k, [d, x, out], (len(d),), (8,))
    got = out.reshape(-1, 3)
    with np.errstate(all="ignore"):
        h = d.astype(np.float16)
        want_fma = _fma_reference(x, x, h)
    _same_bits(got[:, 0], h)
    _same_bits(got[:, 1], want_fma, nan_sign=False)
    _same_bits(got[:, 2], want_fma, nan_sign=False)


UNKNOWN = """
declare double @oclpy_test_no_such_function(double)
define double @f(double %x) {
  %r = call double @oclpy_test_no_such_function(double %x)
  ret double %r
}
"""


def test_unresolved_symbol_is_an_llvm_error_naming_it() -> None:
    with pytest.raises(binding.LLVMError, match="native code calls 'oclpy_test_no_such_function', which no "
                                                "library loaded in this process defines"):
        binding.compile_ir(UNKNOWN, 0)


def test_undefined_symbols_of_object_code() -> None:
    calls_libm = UNKNOWN.replace("oclpy_test_no_such_function", "cos")
    jit = binding.compile_ir(calls_libm, 0)
    assert object_symbols.undefined_symbols(jit.object_code) == ["cos"]
    assert object_symbols.undefined_symbols(b"not an object") is None


def test_half_copysign_of_a_converted_double_needs_no_library() -> None:
    # LLVM drops the float -> half conversion of a copysign's sign operand; with a plain
    # fptrunc chain it then converted the double, by __truncdfhf2 (atan2 on half did)
    def signed(b: ll.IRBuilder, x: ll.Value, d: ll.Value) -> ll.Value:
        h = ll.VectorType(H, LANES) if isinstance(x.type, ll.VectorType) else H
        name = "llvm.copysign." + ("v4f16" if h != H else "f16")
        copysign = b.module.globals.get(name) or ll.Function(b.module, ll.FunctionType(h, [h, h]), name)
        return b.call(copysign, [exact_half.double_to_half(b, x), exact_half.double_to_half(b, d)])
    jit = _jit("signed", signed, D, 2)
    x = np.array([1.5, -2.0, 0.25, -0.0, 3.0, 1e-9, np.inf, 7.0])
    d = np.array([-1.0, 2.0, -0.0, 1e-300, -1e300, -1.0, -3.0, 0.0])
    assert "__truncdfhf2" not in (object_symbols.undefined_symbols(jit.object_code) or [])
    _same_bits(_call(jit, "signed", x, d), np.copysign(x.astype(np.float16), d.astype(np.float16)))


def _call_truncdfhf2(b: ll.IRBuilder, x: ll.Value) -> ll.Value:
    """`__truncdfhf2(x)`, element by element for a vector (the object code then needs it
    whatever the host: on a CPU with AVX512-FP16 LLVM converts a plain fptrunc itself)."""
    module = b.block.function.module
    fn = module.globals.get("__truncdfhf2") or ll.Function(module, ll.FunctionType(H, [D]), "__truncdfhf2")
    if not isinstance(x.type, ll.VectorType):
        return b.call(fn, [x])
    out = ll.Constant(ll.VectorType(H, LANES), ll.Undefined)
    for k in range(LANES):
        lane = ll.Constant(ll.IntType(32), k)
        out = b.insert_element(out, b.call(fn, [b.extract_element(x, lane)]), lane)
    return out


def test_truncdfhf2_is_provided_and_correctly_rounded() -> None:
    # LLVM's x86 code generator lowers fptrunc double -> half to a call of compiler-rt's
    # __truncdfhf2 where the CPU lacks AVX512-FP16: the JIT gets jit_runtime's (exact_half's rounding)
    jit = _jit("called", _call_truncdfhf2, D, 1)
    assert "__truncdfhf2" in (object_symbols.undefined_symbols(jit.object_code) or [])
    d = _edge_doubles()
    d = np.concatenate([d, np.zeros(-len(d) % LANES)])
    with np.errstate(all="ignore"):
        want = d.astype(np.float16)
    _same_bits(_call(jit, "called", d), want)


def test_a_plain_double_to_half_conversion_is_correctly_rounded() -> None:
    # a library call on most x86 CPUs, an instruction on those with AVX512-FP16: right on both
    jit = _jit("plain", lambda b, x: b.fptrunc(x, ll.VectorType(H, LANES) if isinstance(x.type, ll.VectorType) else H),
               D, 1)
    d = _edge_doubles()
    d = np.concatenate([d, np.zeros(-len(d) % LANES)])
    with np.errstate(all="ignore"):
        want = d.astype(np.float16)
    _same_bits(_call(jit, "plain", d), want)
