"""OpenCL C 6.15.7 vector data load and store: vloadn/vstoren for every type
and width from every address space (element-aligned addresses), and the half
variants: vload_half[n], vloada_half[n], vstore_half[n][_rte|_rtz|_rtp|_rtn]
from float and double (rounding checked exactly), vstorea_half[n]."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from .elementwise import DTYPES
from .values import int_values

PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float", "double")
NS = (2, 3, 4, 8, 16)
G = 4


def _copy_kernel(t: str) -> str:
    lines = []
    for k, n in enumerate(NS):
        base = k * 128
        lines.append(f"""  {{
    {t}{n} g = vload{n}(i, A + {base} + 1);            /* global, offset by one element */
    vstore{n}(g, i, O + {base} + 1);
    vstore{n}(vload{n}(i, K + {base} + 1), i, P + {base});  /* constant */
    {t} priv[80];
    vstore{n}(g, i, L + 1);                              /* local */
    vstore{n}(g, i, priv + 2);                           /* private */
    barrier(CLK_LOCAL_MEM_FENCE);
    vstore{n}(vload{n}(i, L + 1) + vload{n}(i, priv + 2), i, Q + {base});
    barrier(CLK_LOCAL_MEM_FENCE);
  }}""")
    return (PRE + f"__kernel void cp(__global const {t} *A, __constant {t} *K, __global {t} *O, __global {t} *P, "
            f"__global {t} *Q) {{\n  size_t i = get_global_id(0);\n"
            f"  __local {t} L[80];  /* __local only in a kernel's outermost block (6.5.2); each block ends in a barrier */\n"
            + "\n".join(lines) + "\n}\n")


@pytest.mark.parametrize("t", TYPES)
def test_vload_vstore_every_space(run_kernel, t: str) -> None:
    dt = DTYPES[t]
    if t in ("float", "double"):
        a = np.random.default_rng(4).uniform(-100, 100, 128 * len(NS)).astype(dt)
    else:
        a = np.resize(int_values(t, 6), 128 * len(NS))
    O, P, Q = (np.zeros_like(a) for _ in range(3))
    _, _, O, P, Q = run_kernel(_copy_kernel(t), "cp", (G,), (G,), a, a.copy(), O, P, Q)
    for k, n in enumerate(NS):
        base, m = k * 128, G * n
        assert O[base + 1:base + 1 + m].tolist() == a[base + 1:base + 1 + m].tolist(), f"vload{n}/vstore{n} global {t}"
        assert P[base:base + m].tolist() == a[base + 1:base + 1 + m].tolist(), f"vload{n} constant {t}"
        want = (a[base + 1:base + 1 + m] + a[base + 1:base + 1 + m]).astype(dt)
        assert Q[base:base + m].tolist() == want.tolist(), f"vload{n}/vstore{n} local+private {t}"


def _round_half(v: float, mode: str) -> float:
    """v rounded to half precision in mode (rte by default), with IEEE overflow."""
    if math.isnan(v) or math.isinf(v):
        return v
    hmax = 65504.0
    if abs(v) > hmax:
        up = {"": abs(v) >= 65520.0, "_rte": abs(v) >= 65520.0, "_rtz": False,
              "_rtp": v > 0, "_rtn": v < 0}[mode]
        return math.copysign(math.inf if up else hmax, v)
    c = np.float16(v)  # numpy: double -> half rounded once, to nearest even
    if Fraction(float(c)) == Fraction(v):
        return float(c)
    if Fraction(float(c)) > Fraction(v):
        lo, hi = np.nextafter(c, np.float16(-np.inf)), c
    else:
        lo, hi = c, np.nextafter(c, np.float16(np.inf))
    return float({"_rtp": hi, "_rtn": lo, "_rtz": lo if v > 0 else hi}.get(mode, c))


@pytest.mark.parametrize("t", ["float", "double"])
def test_vstore_half_rounding(run_kernel, t: str) -> None:
    modes = ("", "_rte", "_rtz", "_rtp", "_rtn")
    src = (PRE + f"__kernel void h(__global const {t} *X, __global half *H, __global half *V) {{\n"
           f"  size_t i = get_global_id(0);\n" +
           "\n".join(f"  vstore_half{m}(X[i], i, H + {k * 64});\n  if (i < 16) vstore_half4{m}(vload4(i, X), i, V + {k * 64});"
                     for k, m in enumerate(modes)) + "\n}\n")
    rng = np.random.default_rng(8)
    x = rng.uniform(-70000, 70000, 64)
    x[:12] = [0.0, -0.0, 1.0 + 2 ** -11, 1.0 + 3 * 2 ** -11, -(1.0 + 2 ** -11), 65519.0, 65520.0, 1e6, -1e6,
              math.nan, math.inf, 2.0 ** -24 * 1.5]
    x[12:40] = rng.uniform(-2, 2, 28)
    x = x.astype(DTYPES[t])
    H, V = np.zeros(64 * len(modes), np.float16), np.zeros(64 * len(modes), np.float16)
    _, H, V = run_kernel(src, "h", (64,), None, x, H, V)
    for k, m in enumerate(modes):
        for arr, label in ((H, "vstore_half"), (V, "vstore_half4")):
            got = arr[k * 64:(k + 1) * 64].astype(np.float64).tolist()
            want = [_round_half(float(v), m) for v in x.tolist()]
            bad = [(v, g, w) for v, g, w in zip(x.tolist(), got, want)
                   if not (g == w and math.copysign(1, g) == math.copysign(1, w)) and not (math.isnan(g) and math.isnan(w))]
            assert not bad, f"{label}{m}({t}): (x, got, want) {bad[:5]}"


def test_vload_half_and_aligned_forms(run_kernel) -> None:
    src = """
    __kernel void k(__global const half *H, __constant half *C, __global float *O, __global half *S) {
        size_t i = get_global_id(0);
        O[i] = vload_half(i, H);
        vstore4(vload_half4(i, H), i, O + 64);
        vstore3(vload_half3(i, H), i, O + 128);          /* packed: stride 3 */
        vstore3(vloada_half3(i, H), i, O + 192);         /* aligned: stride 4 */
        vstore8(vload_half8(i, C), i, O + 256);
        vstorea_half3(vloada_half3(i, H), i, S);          /* stride 4, fourth half untouched */
        vstorea_half2_rtz(vload2(i, O + 512), i, S + 64);
    }"""
    h = (np.arange(128, dtype=np.float16) * np.float16(0.5) - np.float16(20))
    O = np.zeros(640, np.float32)
    O[512:640] = np.linspace(-3, 3, 128, dtype=np.float32) + np.float32(1e-4)
    S = np.full(128, np.float16(7))
    _, _, O, S = run_kernel(src, "k", (16,), None, h, h.copy(), O, S)
    hf = h.astype(np.float32)
    assert O[:16].tolist() == hf[:16].tolist()
    assert O[64:128].tolist() == hf[:64].tolist()
    assert O[128:176].tolist() == hf[:48].tolist()
    assert O[192:240].tolist() == hf.reshape(-1, 4)[:16, :3].reshape(-1).tolist()
    assert O[256:384].tolist() == hf[:128].tolist()
    got = S[:64].reshape(16, 4)
    assert got[:, :3].tolist() == h.reshape(-1, 4)[:16, :3].tolist() and (got[:, 3] == 7).all()
    src_vals = O[512:544].astype(np.float64)
    assert S[64:96].astype(np.float64).tolist() == [_round_half(v, "_rtz") for v in src_vals.tolist()]
