"""OpenCL C 6.15.5 geometric functions on float and double scalars and 2-, 3-
and 4-element vectors (and the float fast_ forms), including the spec's edge cases:
no overflow or underflow in length/distance/normalize, normalize(0) = 0."""

from __future__ import annotations

import numpy as np
import pytest

from .elementwise import DTYPES

PRE = "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"
WIDTHS = (1, 2, 3, 4)
G = 16


def _kernel(t: str) -> str:
    blocks = []
    for n in WIDTHS:
        vt = t if n == 1 else f"{t}{n}"
        ld = (lambda p: f"{p}[i]") if n == 1 else (lambda p: f"vload{n}(i, {p})")
        st = (lambda v, o: f"O[{o} + i] = {v};") if n == 1 else (lambda v, o: f"vstore{n}({v}, i, O + {o});")
        base = (n - 1) * 10 * G * 4
        o = lambda k: base + k * G * 4  # noqa: E731
        body = [f"S[{o(0)} + i] = dot(a, b);", f"S[{o(1)} + i] = length(a);", f"S[{o(2)} + i] = distance(a, b);",
                st("normalize(a)", o(3))]
        if t == "float":  # the fast_ forms are float only (6.15.5; clang declares no other)
            body += [f"S[{o(4)} + i] = fast_length(a);", f"S[{o(5)} + i] = fast_distance(a, b);",
                     st("fast_normalize(a)", o(6))]
        if n in (3, 4):
            body.append(st("cross(a, b)", o(7)))
        blocks.append(f"  {{ {vt} a = {ld('A')}, b = {ld('B')};\n    " + "\n    ".join(body) + "\n  }")
    return (PRE + f"__kernel void g(__global const {t} *A, __global const {t} *B, __global {t} *S, "
            f"__global {t} *O) {{\n  size_t i = get_global_id(0);\n" + "\n".join(blocks) + "\n}\n")


def _inputs(t: str):
    dt = DTYPES[t]
    rng = np.random.default_rng(31)
    a, b = rng.uniform(-10, 10, 4 * G).astype(dt), rng.uniform(-10, 10, 4 * G).astype(dt)
    big, tiny = np.finfo(dt).max / 4, np.finfo(dt).tiny * 4
    a[0:4] = [big, big, big, big]         # length must not overflow
    a[4:8] = [tiny, tiny, tiny, tiny]      # ... nor underflow
    a[8:12] = 0                            # normalize(0) = 0
    b[0:4] = [-big, 0, big, 0]
    return a, b


@pytest.fixture(scope="module", params=["float", "double"])
def geometry(request):
    from .harness import KernelRunner, device_context
    t = request.param
    a, b = _inputs(t)
    dt = DTYPES[t]
    S, O = np.zeros(4 * 10 * G * 4, dt), np.zeros(4 * 10 * G * 4, dt)
    _, _, S, O = KernelRunner(device_context())(_kernel(t), "g", (G,), None, a, b, S, O)
    return t, a, b, S, O


def _rows(x, n):
    return x[:G * n].astype(np.longdouble).reshape(G, n)


def _rel(got, want):
    got = got.astype(np.longdouble)
    return np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny)


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # huge inputs, on purpose
def test_geometric(geometry, n: int) -> None:
    t, a, b, S, O = geometry
    eps = np.finfo(DTYPES[t]).eps
    base = (n - 1) * 10 * G * 4
    s = lambda k: S[base + k * G * 4:base + k * G * 4 + G]  # noqa: E731
    o = lambda k: O[base + k * G * 4:base + k * G * 4 + G * n].reshape(G, n)  # noqa: E731
    A, B = _rows(a, n), _rows(b, n)
    length = np.sqrt((A * A).sum(axis=1))
    dist = np.sqrt(((A - B) ** 2).sum(axis=1))
    norm = A / np.where(length > 0, length, 1)[:, None]
    dot_err = np.abs(s(0) - (A * B).sum(axis=1)) / np.maximum(np.abs(A * B).sum(axis=1), 1e-300)
    finite = np.isfinite((A * B).sum(axis=1).astype(DTYPES[t])) & np.isfinite(dot_err)
    assert (dot_err[finite] <= (2 * n) * eps).all(), f"dot{n}: {dot_err.max()}"
    assert (_rel(s(1), length) <= (2 * n + 2) * eps).all(), f"length{n}: {s(1)[:2]} vs {length[:2]}"
    ok = np.isfinite(dist.astype(DTYPES[t]))
    assert (_rel(s(2), dist)[ok] <= (2 * n + 2) * eps).all(), f"distance{n}"
    assert (np.abs(o(3) - norm) <= (2 * n + 3) * eps).all(), f"normalize{n}: {o(3)[:3]} vs {norm[:3]}"
    if n == 1:
        assert (o(3)[:, 0] == np.where(A[:, 0] == 0, 0, np.sign(A[:, 0]))).all()
    zero_rows = (A == 0).all(axis=1)
    assert zero_rows.any() and (o(3)[zero_rows] == 0).all(), "normalize(0) is 0"
    rough = 8192 * np.finfo(np.float32).eps
    if t == "float":
        assert (_rel(s(4), length)[1:] <= rough).all() and (_rel(s(5), dist)[ok][1:] <= rough).all(), \
            f"fast_length/distance{n}"
        assert (np.abs(o(6) - norm)[3:] <= rough).all(), f"fast_normalize{n}"
    if n in (3, 4):
        c = np.cross(A[:, :3], B[:, :3])
        got = o(7)
        scale = np.abs(A[:, [1, 2, 0]] * B[:, [2, 0, 1]]).astype(np.longdouble) + np.abs(A[:, [2, 0, 1]] * B[:, [1, 2, 0]])
        fin = np.isfinite(c.astype(DTYPES[t])).all(axis=1)
        assert (np.abs(got[:, :3] - c)[fin] <= 2 * eps * scale[fin] + 1e-300).all(), f"cross{n}"
        if n == 4:
            assert (got[:, 3] == 0).all(), "cross of 4-vectors has w = 0"


@pytest.mark.parametrize("t", ["float", "double"])
def test_edge_cases_subnormal_lengths_and_infinite_normalize(t: str) -> None:
    """length of subnormal vectors is exact-ish (no flush, no underflow to 0);
    normalize treats infinite elements as ±1 and the others as 0 (6.15.5)."""
    from .harness import KernelRunner, device_context, ulp_error
    dt = DTYPES[t]
    fi = np.finfo(dt)
    sub = fi.smallest_subnormal
    v = np.array([[3 * sub, 4 * sub], [sub, 0], [fi.tiny, 3 * fi.tiny], [np.inf, 1],
                  [-np.inf, np.inf], [2, -np.inf], [np.nan, np.inf], [0, -0.0]], dt)
    src = (PRE + f"__kernel void k(__global const {t}2 *a, __global {t} *l, __global {t}2 *n) {{"
           f" size_t i = get_global_id(0); l[i] = length(a[i]); n[i] = normalize(a[i]); }}")
    _, L, N = KernelRunner(device_context())(src, "k", (len(v),), None, v, np.zeros(len(v), dt),
                                          np.zeros_like(v))
    assert L[:3].tolist() == [5 * sub, sub, np.hypot(np.longdouble(fi.tiny), 3 * np.longdouble(fi.tiny)).astype(dt)]
    assert L[3:6].tolist() == [np.inf] * 3
    assert N[3].tolist() == [1, 0] and N[5].tolist() == [0, -1]
    r = 1 / np.sqrt(np.longdouble(2))  # within the 2n + 3 ulp that test_geometric allows
    assert (ulp_error(N[4], np.array([-r, r]), dt) <= 7).all(), N[4]
    assert np.isnan(N[6]).all() and N[7].tolist() == [0, 0]
