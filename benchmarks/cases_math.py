"""Math-heavy kernels: where the cost is in the math builtins (exp, log, sin,
cos, pow), not in memory. Each `make_*` returns a `Case` with NumPy inputs and
a float64 NumPy reference."""

from __future__ import annotations

import numpy as np

from .case import Arg, Case

F32 = np.float32


def _rng() -> np.random.Generator:
    return np.random.default_rng(4321)


BLACKSCHOLES = """
#define A1 0.31938153f
#define A2 -0.356563782f
#define A3 1.781477937f
#define A4 -1.821255978f
#define A5 1.330274429f
#define RSQRT2PI 0.39894228040143267794f

float cnd(float d) {
    float k = 1.0f / (1.0f + 0.2316419f * fabs(d));
    float c = RSQRT2PI * exp(-0.5f * d * d)
              * (k * (A1 + k * (A2 + k * (A3 + k * (A4 + k * A5)))));
    return d > 0.0f ? 1.0f - c : c;
}

__kernel void blackscholes(__global const float *price, __global const float *strike,
                           __global const float *years, float r, float v,
                           __global float *call, __global float *put) {
    size_t i = get_global_id(0);
    float s = price[i], x = strike[i], t = years[i];
    float sqrt_t = sqrt(t);
    float d1 = (log(s / x) + (r + 0.5f * v * v) * t) / (v * sqrt_t);
    float d2 = d1 - v * sqrt_t;
    float e = exp(-r * t);
    call[i] = s * cnd(d1) - x * e * cnd(d2);
    put[i] = x * e * cnd(-d2) - s * cnd(-d1);
}
"""


def _cnd(d: np.ndarray) -> np.ndarray:
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978
                                                                         + k * 1.330274429))))
    c = 0.39894228040143267794 * np.exp(-0.5 * d * d) * poly
    return np.where(d > 0, 1.0 - c, c)


def _blackscholes_ref(v: dict) -> dict:
    s, x, t = (np.asarray(v[k], np.float64) for k in ("price", "strike", "years"))
    r, vol = float(v["r"]), float(v["v"])
    d1 = (np.log(s / x) + (r + 0.5 * vol * vol) * t) / (vol * np.sqrt(t))
    d2 = d1 - vol * np.sqrt(t)
    e = np.exp(-r * t)
    return {"call": (s * _cnd(d1) - x * e * _cnd(d2)).astype(F32),
            "put": (x * e * _cnd(-d2) - s * _cnd(-d1)).astype(F32)}


def make_blackscholes(n: int = 1 << 22) -> Case:
    r = _rng()
    args = [Arg("price", "in", r.uniform(5, 30, n).astype(F32)),
            Arg("strike", "in", r.uniform(1, 100, n).astype(F32)),
            Arg("years", "in", r.uniform(0.25, 10, n).astype(F32)),
            Arg("r", "scalar", F32(0.02)), Arg("v", "scalar", F32(0.30)),
            Arg("call", "out", np.zeros(n, F32)), Arg("put", "out", np.zeros(n, F32))]
    return Case("blackscholes", "blackscholes", BLACKSCHOLES, args, (n,), (256,), f"n={n}",
                _blackscholes_ref, rtol=1e-4, atol=1e-4)


# the same field as float2 (vector-typed loads and stores: LLVM's loop vectoriser
# leaves such work-item loops scalar today) and as two float arrays (vectorised)
ROTATE = """
__kernel void rotate_field(__global const float2 *p, __global const float *angle,
                     float omega, __global float2 *out) {
    size_t i = get_global_id(0);
    float a = angle[i] * omega;
    float c = cos(a), s = sin(a);
    float2 q = p[i];
    float fade = pow(1.0f + fabs(q.x), -0.25f);
    out[i] = fade * (float2)(c * q.x - s * q.y, s * q.x + c * q.y);
}
"""


ROTATE_SOA = """
__kernel void rotate_soa(__global const float *px, __global const float *py,
                         __global const float *angle, float omega,
                         __global float *ox, __global float *oy) {
    size_t i = get_global_id(0);
    float a = angle[i] * omega;
    float c = cos(a), s = sin(a);
    float x = px[i], y = py[i];
    float fade = pow(1.0f + fabs(x), -0.25f);
    ox[i] = fade * (c * x - s * y);
    oy[i] = fade * (s * x + c * y);
}
"""


def _rotated(p: np.ndarray, angle: np.ndarray, omega: object) -> np.ndarray:
    """The rotated, faded points (n, 2) in float32, computed in float64."""
    a = (np.asarray(angle, F32) * F32(omega)).astype(np.float64)  # the kernel's product, in float
    c, s = np.cos(a), np.sin(a)
    fade = (1.0 + np.abs(p[:, 0])) ** -0.25
    out = np.stack([c * p[:, 0] - s * p[:, 1], s * p[:, 0] + c * p[:, 1]], axis=1)
    return (fade[:, None] * out).astype(F32)


def _rotate_ref(v: dict) -> dict:
    return {"out": _rotated(np.asarray(v["p"], np.float64).reshape(-1, 2), v["angle"], v["omega"])}


def _rotate_soa_ref(v: dict) -> dict:
    p = np.stack([np.asarray(v["px"], np.float64), np.asarray(v["py"], np.float64)], axis=1)
    out = _rotated(p, v["angle"], v["omega"])
    return {"ox": out[:, 0].copy(), "oy": out[:, 1].copy()}


def make_rotate(n: int = 1 << 22) -> Case:
    r = _rng()
    args = [Arg("p", "in", r.uniform(-1, 1, (n, 2)).astype(F32)),
            Arg("angle", "in", r.uniform(-1000, 1000, n).astype(F32)),
            Arg("omega", "scalar", F32(0.75)), Arg("out", "out", np.zeros((n, 2), F32))]
    return Case("rotate", "rotate_field", ROTATE, args, (n,), (256,), f"n={n}", _rotate_ref,
                rtol=1e-4, atol=1e-5)


def make_rotate_soa(n: int = 1 << 22) -> Case:
    r = _rng()
    p = r.uniform(-1, 1, (n, 2)).astype(F32)
    args = [Arg("px", "in", p[:, 0].copy()), Arg("py", "in", p[:, 1].copy()),
            Arg("angle", "in", r.uniform(-1000, 1000, n).astype(F32)),
            Arg("omega", "scalar", F32(0.75)), Arg("ox", "out", np.zeros(n, F32)),
            Arg("oy", "out", np.zeros(n, F32))]
    return Case("rotate_soa", "rotate_soa", ROTATE_SOA, args, (n,), (256,), f"n={n}",
                _rotate_soa_ref, rtol=1e-4, atol=1e-5)
