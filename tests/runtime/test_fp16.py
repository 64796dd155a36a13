"""cl_khr_fp16 end to end, on every device: half arithmetic, half vectors, `convert_half*`
with each rounding mode, `as_half*`, and the half overloads of the math builtins,
against NumPy's float16 (bit for bit where the spec demands correct rounding: the
operators, conversions, fma, sqrt, the exact functions; otherwise within one ulp,
tighter than the spec's 2 to 4).  The pragma's rules (what half allows before it) are
tests/frontend/test_half_pragma.py's."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

from .image_devices import KINDS, context_on

PRAGMA = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
MF = cl.mem_flags


def _halves() -> tuple[np.ndarray, np.ndarray]:
    """Pairs of halves: random ones of every magnitude, subnormals, signed zeros, the extremes."""
    rng = np.random.default_rng(16)
    bits = rng.integers(0, 0x7C00, 512, dtype=np.uint16) | (rng.integers(0, 2, 512, dtype=np.uint16) << 15)
    a = bits.view(np.float16)
    b = (rng.standard_normal(512) * 8).astype(np.float16)
    special = np.array([0.0, -0.0, 1.0, -1.0, 65504.0, -65504.0, 6.1e-5, 6e-8, 0.5, 3.0], np.float16)
    return np.concatenate([a, special, b[:10]]), np.concatenate([b, special[::-1], a[:10]])


def _run(ctx: cl.Context, body: str, n_out: int, *arrays: np.ndarray, out_dtype=np.float16,
         n: int | None = None) -> np.ndarray:
    """Run `body` over `n` work-items (one per input element unless given); `n_out` outputs each."""
    q = cl.CommandQueue(ctx)
    params = ", ".join(f"global const {_ctype(a)} *in{i}" for i, a in enumerate(arrays))
    src = PRAGMA + f"kernel void k({params}, global {_ctype(np.empty(0, out_dtype))} *out) {{\n" \
        f"  size_t i = get_global_id(0);\n{body}\n}}"
    prg = cl.Program(ctx, src).build()
    bufs = [cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=a) for a in arrays]
    n = len(arrays[0]) if n is None else n
    out = np.zeros(n * n_out, out_dtype)
    ob = cl.Buffer(ctx, MF.READ_WRITE, out.nbytes)
    prg.k(q, (n,), None, *bufs, ob)
    cl.enqueue_copy(q, out, ob)
    return out.reshape(n, n_out)


def _ctype(a: np.ndarray) -> str:
    return {np.float16: "half", np.float32: "float", np.float64: "double", np.int32: "int",
            np.uint32: "uint", np.int16: "short", np.int64: "long", np.uint8: "uchar",
            np.int8: "char", np.uint16: "ushort"}[a.dtype.type]


def _same_bits(got: np.ndarray, want: np.ndarray, what: str = "") -> None:
    """Equal as halves, NaNs anywhere alike (a NaN's payload is not specified)."""
    g, w = got.astype(np.float16), want.astype(np.float16)
    nan = np.isnan(w)
    assert np.array_equal(np.isnan(g), nan), (what, np.nonzero(np.isnan(g) != nan))
    bad = np.nonzero(g.view(np.uint16)[~nan] != w.view(np.uint16)[~nan])[0]
    assert bad.size == 0, (what, g[~nan][bad[:8]], w[~nan][bad[:8]])


def _ulps(got: np.ndarray, exact: np.ndarray) -> np.ndarray:
    """|got - exact| in ulps of half at the exact value (OpenCL's definition, 7.4)."""
    got = got.astype(np.float64)
    mag = np.abs(exact)
    e = np.floor(np.log2(np.where(mag > 0, mag, 1.0)))
    ulp = 2.0 ** np.maximum(e - 10, -24)
    with np.errstate(invalid="ignore"):
        d = np.abs(got - exact) / ulp
    both_inf = np.isinf(got) & np.isinf(exact) & (np.sign(got) == np.sign(exact))
    return np.where(both_inf | (np.isnan(got) & np.isnan(exact)), 0.0, d)


@pytest.fixture(params=KINDS)
def ctx(request) -> cl.Context:  # type: ignore[no-untyped-def]
    return context_on(request.param)


def test_device_reports_cl_khr_fp16(ctx) -> None:  # type: ignore[no-untyped-def]
    dev = ctx.devices[0]
    assert "cl_khr_fp16" in dev.extensions.split()
    assert dev.half_fp_config & cl.device_fp_config.ROUND_TO_NEAREST
    assert dev.half_fp_config & cl.device_fp_config.INF_NAN


def test_arithmetic_rounds_as_numpy(ctx) -> None:  # type: ignore[no-untyped-def]
    a, b = _halves()
    body = """half x = in0[i], y = in1[i];
  out[i*6] = x + y; out[i*6+1] = x - y; out[i*6+2] = x * y; out[i*6+3] = x / y;
  out[i*6+4] = -x; out[i*6+5] = x > y ? x : (half)(y * 0.5h);"""
    got = _run(ctx, body, 6, a, b)
    with np.errstate(all="ignore"):
        want = np.stack([a + b, a - b, a * b, a / b, -a, np.where(a > b, a, b * np.float16(0.5))], 1)
    _same_bits(got, want)


def test_half_vectors(ctx) -> None:  # type: ignore[no-untyped-def]
    a, b = _halves()
    body = """half4 v = vload4(i, in0), w = vload4(i, in1);
  half4 r = v * w + (half4)(1.0h, 2.0h, 0.5h, -1.0h);
  r.s3 = r.s0 - w.y;
  half8 e = (half8)(r, r.wzyx);
  vstore8(e, i, out);"""
    a4, b4 = a[:128 * 4], b[:128 * 4]
    got = _run(ctx, body, 8, a4, b4, n=128)
    v, w = a4.reshape(-1, 4), b4.reshape(-1, 4)
    c = np.array([1.0, 2.0, 0.5, -1.0], np.float16)
    with np.errstate(all="ignore"):
        # OpenCL C contracts `v * w + c` by default (FP_CONTRACT ON): a device may round
        # once (a half fma, as cuda does; exact in double, as halves' products are) or twice
        r = v * w + c
        fused = (v.astype(np.float64) * w + c).astype(np.float16)
        r[:, 3] = r[:, 0] - w[:, 1]
        fused[:, 3] = fused[:, 0] - w[:, 1]
    got_r = got[:, :4]
    either = np.where(got_r.view(np.uint16) == fused.view(np.uint16), fused, r)
    _same_bits(got, np.concatenate([either, either[:, ::-1]], 1))


ROUNDINGS = ["", "_rte", "_rtz", "_rtp", "_rtn"]


def _round_to_half(x: np.ndarray, mode: str) -> np.ndarray:
    """Exact values (float64 or integers) rounded to half in `mode`."""
    x = np.asarray(x, np.float64)
    with np.errstate(over="ignore"):
        near = x.astype(np.float16)
    if mode in ("", "_rte"):
        return near
    back = near.astype(np.float64)
    with np.errstate(over="ignore"):
        up = np.nextafter(near, np.float16(np.inf))
        down = np.nextafter(near, np.float16(-np.inf))
        zero = np.nextafter(near, np.float16(0))
    if mode == "_rtz":
        return np.where(np.abs(back) > np.abs(x), zero, near).astype(np.float16)
    step_up, step_down = (back < x, np.zeros_like(x, bool)) if mode == "_rtp" else (np.zeros_like(x, bool), back > x)
    return np.where(step_down, down, np.where(step_up, up, near)).astype(np.float16)


@pytest.mark.parametrize("mode", ROUNDINGS)
def test_convert_half_rounding_modes(ctx, mode: str) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(5)
    f = np.concatenate([(rng.standard_normal(200) * 10.0 ** rng.integers(-8, 6, 200)).astype(np.float32),
                        np.array([65519.0, 65520.0, -65520.0, 1e9, -1e9, 2.0 ** -25, -2.0 ** -25,
                                  2.0 ** -24 * 1.5, 0.0, -0.0], np.float32)])
    i = rng.integers(-70000, 70000, len(f)).astype(np.int32)
    u = rng.integers(0, 2 ** 32, len(f), dtype=np.uint64).astype(np.uint32)
    body = f"""out[i*4] = convert_half{mode}(in0[i]); out[i*4+1] = convert_half{mode}(in1[i]);
  out[i*4+2] = convert_half{mode}(in2[i]); half2 h = convert_half2{mode}((float2)(in0[i], -in0[i]));
  out[i*4+3] = h.y;"""
    got = _run(ctx, body, 4, f, i, u)
    want = np.stack([_round_to_half(f, mode), _round_to_half(i, mode), _round_to_half(u, mode),
                     _round_to_half(-f.astype(np.float64), mode)], 1)
    _same_bits(got, want)


@pytest.mark.parametrize("mode", ROUNDINGS)
def test_convert_half_from_double(ctx, mode: str) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(6)
    d = rng.standard_normal(300) * 10.0 ** rng.integers(-8, 6, 300)
    # a double just off a half midpoint: rounding it through float first would tie
    d = np.concatenate([d, [1.0 + 2.0 ** -11 + 2.0 ** -40, 1.0 + 2.0 ** -11 - 2.0 ** -40, 1.0 + 2.0 ** -11]])
    got = _run(ctx, f"out[i * 2] = convert_half{mode}(in0[i]); out[i * 2 + 1] = (half)in0[i];", 2, d)
    _same_bits(got[:, 0], _round_to_half(d, mode))
    _same_bits(got[:, 1], d.astype(np.float16))  # a cast rounds to nearest even, once


@pytest.mark.parametrize("dst, np_dst, lo, hi", [("char", np.int8, -128, 127), ("uchar", np.uint8, 0, 255),
                                                 ("short", np.int16, -32768, 32767), ("int", np.int32, None, None)])
def test_convert_from_half_saturates_and_rounds(ctx, dst: str, np_dst, lo, hi) -> None:  # type: ignore[no-untyped-def]
    a, _ = _halves()
    a = a[np.isfinite(a)]
    body = f"""half x = in0[i];
  out[i*4] = convert_{dst}_sat(x); out[i*4+1] = convert_{dst}_sat_rte(x);
  out[i*4+2] = convert_{dst}_sat_rtp(x); out[i*4+3] = convert_{dst}_sat_rtn(x);"""
    got = _run(ctx, body, 4, a, out_dtype=np_dst)
    x = a.astype(np.float64)
    info = np.iinfo(np_dst)
    want = np.stack([np.clip(r(x), info.min, info.max) for r in (np.trunc, np.rint, np.ceil, np.floor)], 1)
    assert np.array_equal(got, want.astype(np_dst))


def test_as_half_reinterprets(ctx) -> None:  # type: ignore[no-untyped-def]
    u = np.arange(0, 0x10000, 97, dtype=np.uint16)
    body = "half h = as_half(in0[i]); half2 p = as_half2((uint)in0[i] * 0x10001u); out[i*2] = h; out[i*2+1] = p.y;"
    got = _run(ctx, body, 2, u)
    assert np.array_equal(got.view(np.uint16), np.stack([u, u], 1))


EXACT_MATH = {  # correctly rounded (or exact) by the spec: bit for bit
    "sqrt(fabs(x))": lambda x, y: np.sqrt(np.abs(x)),
    "fma(x, y, (half)0.75h)": lambda x, y: x * y + 0.75,
    "fmin(x, y)": lambda x, y: np.fmin(x, y), "fmax(x, y)": lambda x, y: np.fmax(x, y),
    "floor(x)": lambda x, y: np.floor(x), "ceil(x)": lambda x, y: np.ceil(x),
    "trunc(x)": lambda x, y: np.trunc(x), "rint(x)": lambda x, y: np.rint(x),
    "round(x)": lambda x, y: np.copysign(np.floor(np.abs(x) + 0.5), x),
    "fabs(x)": lambda x, y: np.abs(x), "copysign(x, y)": lambda x, y: np.copysign(x, y),
    "fmod(x, y)": lambda x, y: np.fmod(x, y), "fdim(x, y)": lambda x, y: np.where(x > y, x - y, 0.0),
    "ldexp(x, 3)": lambda x, y: x * 8.0, "nextafter(x, y)": None,
    "logb(x)": lambda x, y: np.floor(np.log2(np.abs(x))),
    "maxmag(x, y)": lambda x, y: np.where(np.abs(x) > np.abs(y), x, np.where(np.abs(y) > np.abs(x), y, np.fmax(x, y))),
}
APPROX_MATH = {  # the spec allows 2 to 4 ulps; float rounded to half stays within 1
    "sin(x)": np.sin, "cos(x)": np.cos, "tan(x)": np.tan, "exp(y)": lambda x, y: np.exp(y),
    "exp2(y)": lambda x, y: np.exp2(y), "exp10(y / 4)": lambda x, y: 10.0 ** (y / 4),
    "log(fabs(x))": lambda x, y: np.log(np.abs(x)), "log2(fabs(x))": lambda x, y: np.log2(np.abs(x)),
    "log10(fabs(x))": lambda x, y: np.log10(np.abs(x)), "pow(fabs(x), y)": lambda x, y: np.abs(x) ** y,
    "atan2(x, y)": lambda x, y: np.arctan2(x, y), "hypot(x, y)": lambda x, y: np.hypot(x, y),
    "cbrt(x)": lambda x, y: np.cbrt(x), "tanh(x)": np.tanh, "atan(x)": np.arctan,
    "rsqrt(fabs(x))": lambda x, y: 1 / np.sqrt(np.abs(x)), "sinpi(x)": lambda x, y: np.sin(np.pi * x),
    "expm1(y)": lambda x, y: np.expm1(y), "log1p(fabs(x))": lambda x, y: np.log1p(np.abs(x)),
    "erf(y)": None,
}


def _math(ctx, exprs: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:  # type: ignore[no-untyped-def]
    a, b = _halves()
    body = "half x = in0[i], y = in1[i];\n" + "\n".join(
        f"  out[i*{len(exprs)}+{k}] = {e};" for k, e in enumerate(exprs))
    return _run(ctx, body, len(exprs), a, b), a.astype(np.float64), b.astype(np.float64)


def test_exact_math_is_correctly_rounded(ctx) -> None:  # type: ignore[no-untyped-def]
    exprs = list(EXACT_MATH)
    got, x, y = _math(ctx, exprs)
    for k, e in enumerate(exprs):
        with np.errstate(all="ignore"):
            if e.startswith("nextafter"):
                want = np.nextafter(x.astype(np.float16), y.astype(np.float16))
            else:
                want = EXACT_MATH[e](x.astype(np.float16).astype(np.float64), y)  # type: ignore[misc]
                if e.startswith("logb"):
                    want = np.where(x == 0, -np.inf, want)
        _same_bits(got[:, k], np.asarray(want), e)


def test_math_within_one_ulp(ctx) -> None:  # type: ignore[no-untyped-def]
    exprs = list(APPROX_MATH)
    got, x, y = _math(ctx, exprs)
    import math
    for k, e in enumerate(exprs):
        fn = APPROX_MATH[e]
        with np.errstate(all="ignore"):
            exact = np.array([math.erf(v) for v in y]) if fn is None else \
                (fn(x) if e in ("sin(x)", "cos(x)", "tan(x)", "tanh(x)", "atan(x)") else fn(x, y))
        ulps = _ulps(got[:, k], exact)
        finite = np.isfinite(exact) & (np.abs(exact) <= 65504)
        assert np.nanmax(ulps[finite]) <= 1.0, (e, np.nanmax(ulps[finite]))
        assert np.array_equal(np.isnan(got[:, k]), np.isnan(exact)), e


def test_relational_geometric_and_common_half(ctx) -> None:  # type: ignore[no-untyped-def]
    a, b = _halves()
    body = """half x = in0[i], y = in1[i];
  half4 v = (half4)(x, y, 1.0h, -2.0h);
  out[i*6] = isless(x, y); out[i*6+1] = isnan(x / y) ? 1.0h : 0.0h;
  out[i*6+2] = clamp(x, -1.0h, 1.0h); out[i*6+3] = select(x, y, (short)(x < y));
  out[i*6+4] = any(isgreater(v, (half4)0.0h)) ? 1.0h : 0.0h; out[i*6+5] = sign(x);"""
    got = _run(ctx, body, 6, a, b)
    with np.errstate(all="ignore"):
        want = np.stack([(a < b), np.isnan(a / b), np.clip(a, -1, 1), np.where(a < b, b, a),
                         (a > 0) | (b > 0) | True, np.where(a == 0, a, np.sign(a))], 1).astype(np.float16)
    _same_bits(got, want)


@pytest.mark.parametrize("mode", ROUNDINGS)
def test_vstore_half_and_vload_half_round_as_the_mode_says(ctx, mode: str) -> None:  # type: ignore[no-untyped-def]
    """The core half storage functions (no pragma needed): vstore_half{,n}{mode} of floats and
    doubles, vload_half back (exact)."""
    rng = np.random.default_rng(9)
    f = (rng.standard_normal(256) * 10.0 ** rng.integers(-7, 6, 256)).astype(np.float32)
    d = f.astype(np.float64) * (1 + 2.0 ** -30)
    q = cl.CommandQueue(ctx)
    src = f"""kernel void k(global const float *f, global const double *d, global half *h, global float *back)
{{
    size_t i = get_global_id(0);
    vstore_half{mode}(f[i], i * 4, h);
    vstore_half{mode}(d[i], i * 4 + 1, h);
    vstore_half2{mode}((float2)(f[i], -f[i]), i * 2 + 1, h);
    back[i] = vload_half(i * 4, h);
}}"""
    prg = cl.Program(ctx, src).build()
    fb = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=f)
    db = cl.Buffer(ctx, MF.READ_ONLY | MF.COPY_HOST_PTR, hostbuf=d)
    hb, bb = cl.Buffer(ctx, MF.READ_WRITE, f.size * 8), cl.Buffer(ctx, MF.READ_WRITE, f.nbytes)
    prg.k(q, f.shape, None, fb, db, hb, bb)
    h, back = np.empty(f.size * 4, np.float16), np.empty_like(f)
    cl.enqueue_copy(q, h, hb)
    cl.enqueue_copy(q, back, bb)
    h = h.reshape(-1, 4)
    _same_bits(h[:, 0], _round_to_half(f, mode), "float")
    _same_bits(h[:, 1], _round_to_half(d, mode), "double")
    _same_bits(h[:, 3], _round_to_half(-f.astype(np.float64), mode), "float2")
    assert np.array_equal(back, h[:, 0].astype(np.float32))


def test_fma_rounds_once(ctx) -> None:  # type: ignore[no-untyped-def]
    """fma(a, b, c) on halves is a*b + c rounded once: in double the product is exact and
    the sum, rounded to double, then to half, is the correct rounding (a float fma would
    round twice, and does differ on some of these)."""
    rng = np.random.default_rng(7)
    n = 20000
    a = (rng.integers(0, 0x7C00, n, dtype=np.uint16).view(np.float16)
         * np.where(rng.random(n) < 0.5, -1, 1).astype(np.float16))
    b = rng.standard_normal(n).astype(np.float16)
    c = (rng.standard_normal(n) * 2.0 ** rng.integers(-20, 10, n)).astype(np.float16)
    got = _run(ctx, "out[i] = fma(in0[i], in1[i], in2[i]);", 1, a, b, c).ravel()
    with np.errstate(all="ignore"):
        want = (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(np.float16)
    _same_bits(got, want, "fma")


def test_copysign_with_a_double_sign_then_half(ctx) -> None:  # type: ignore[no-untyped-def]
    # LLVM's x86 code generator turned this into a double -> half call the cpu's JIT lacked
    f = np.linspace(-3, 3, 64).astype(np.float32)
    d = np.concatenate([-np.linspace(-3, 3, 60), [0.0, -0.0, 1e-300, -1e300]])
    got = _run(ctx, "out[i] = (half)copysign(in0[i], (float)in1[i]);", 1, f, d)
    _same_bits(got[:, 0], np.copysign(f, d.astype(np.float32)).astype(np.float16))
