"""Structs over 256 bytes by reference on simt (isel_aggregates.py), against the cpu device
and NumPy: passed to helpers kept out of line, returned from them, changed by the callee
(the caller's value must not change), picked by a divergent `?:`, nested, zero-initialised,
from a by-value kernel argument, returned from two places under a divergent branch, called
in a loop whose trip count differs per lane; and the -O0 build. Each kernel is one the cpu device
builds with its own large-aggregate lowering (targets/llvm/emit_indirect.py)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl

N = 80  # floats: 320 bytes, over the line
PRELUDE = f"""#define N {N}
typedef struct {{ float w[N]; int tag; char c; }} Big;
typedef struct {{ Big a; Big b; double d; }} Pair;
"""

KERNELS = {
    # by value in and out: the callee changes its copy, the caller's stays
    "bump": """
__attribute__((noinline)) Big bump(Big b, float s) {
  for (int i = 0; i < N; i++) b.w[i] = b.w[i] * s + (float)b.tag;
  b.tag += 1;
  return b;
}
__attribute__((noinline)) float pick(Big b, int i) { return b.w[i % N] + (float)b.c; }
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Big c = bump(arg, s);
  Big d = bump(c, 0.5f);
  out[g] = pick(c, g) + pick(d, g + 3) + pick(arg, N - 1) + (float)d.tag;
}""",
    # a divergent choice between two large values, then a call
    "choose": """
__attribute__((noinline)) Big make(float base, int tag) {
  Big b;
  for (int i = 0; i < N; i++) b.w[i] = base + (float)i;
  b.tag = tag; b.c = (char)tag;
  return b;
}
__attribute__((noinline)) float sum(Big b) { float s = 0; for (int i = 0; i < N; i++) s += b.w[i]; return s + b.tag; }
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Big x = make((float)g, g);
  Big y = (g & 1) ? x : arg;
  out[g] = sum(y) + sum((g % 3 == 0) ? arg : x);
}""",
    # a struct of two large members: the callee reads one through the other's neighbour
    "nested": """
__attribute__((noinline)) float pick(Big b, int i) { return b.w[i % N] - (float)b.tag; }
__attribute__((noinline)) float both(Pair p, int i) { return pick(p.a, i) * 2.0f + pick(p.b, i + 1) + (float)p.d; }
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Pair p;
  p.a = arg;
  p.b = arg;
  p.b.w[g % N] = s;
  p.b.tag = 7;
  p.d = 0.25;
  out[g] = both(p, g);
}""",
    # returns from two places of a helper called under a divergent branch
    "divergent": """
__attribute__((noinline)) Big maybe(Big b, int g) {
  if (g & 1) { b.w[0] = 100.0f + g; return b; }
  Big c = b;
  c.w[1] = 7.0f * g;
  return c;
}
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Big r = arg;
  if (g % 3) r = maybe(arg, g);
  out[g] = r.w[0] + r.w[1] * s + (float)r.tag;
}""",
    # a call in a loop whose trip count differs per lane
    "loop": """
__attribute__((noinline)) Big step(Big b, float s) {
  for (int i = 0; i < N; i++) b.w[i] = b.w[i] * s + 1.0f;
  b.tag += 2;
  return b;
}
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Big acc = arg;
  for (int i = 0; i < g % 5; i++) acc = step(acc, s);
  out[g] = acc.w[g % N] + (float)acc.tag;
}""",
    # zero-initialised, then one member set, passed on
    "zero": """
__attribute__((noinline)) float pick(Big b, int i) { return b.w[i % N] + (float)b.tag; }
kernel void k(global float *out, Big arg, float s) {
  int g = get_global_id(0);
  Big z = {{0}};
  z.w[g % N] = s * g;
  out[g] = pick(z, g) + pick(z, g + 1);
}""",
}


def _big_argument() -> np.ndarray:
    """The kernels' struct argument: N floats, an int tag and a char, as the C struct lays them out."""
    big = np.dtype({"names": ["w", "tag", "c"], "formats": [(np.float32, (N,)), np.int32, np.int8],
                    "offsets": [0, 4 * N, 4 * N + 4], "itemsize": 4 * N + 8})
    arg = np.zeros((), big)
    arg["w"] = (np.arange(N, dtype=np.float32) * np.float32(0.75)) % np.float32(9.0)
    arg["tag"] = 3
    arg["c"] = 5
    return arg


def _run(kind: str, name: str, options: str = "") -> np.ndarray:
    dev = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == kind)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    arg = _big_argument()
    out = np.zeros(64, np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    prg = cl.Program(ctx, PRELUDE + KERNELS[name]).build(options=options)
    prg.k(queue, (64,), (16,), buf, arg, np.float32(2.0))
    cl.enqueue_copy(queue, out, buf)
    return out


def _numpy(name: str) -> np.ndarray:
    w = (np.arange(N, dtype=np.float32) * np.float32(0.75)) % np.float32(9.0)
    g = np.arange(64)
    if name == "bump":
        c = w * np.float32(2.0) + np.float32(3)
        d = c * np.float32(0.5) + np.float32(4)
        return (c[g % N] + 5) + (d[(g + 3) % N] + 5) + (w[N - 1] + 5) + np.float32(5)
    if name == "divergent":
        first = np.where((g % 3 != 0) & (g % 2 == 1), np.float32(100) + g, w[0])
        second = np.where((g % 3 != 0) & (g % 2 == 0), np.float32(7) * g, w[1])
        return first.astype(np.float32) + second.astype(np.float32) * np.float32(2) + np.float32(3)
    if name == "loop":
        out = []
        for k in g:
            v, tag = w.copy(), 3
            for _ in range(k % 5):
                v, tag = v * np.float32(2) + np.float32(1), tag + 2
            out.append(v[k % N] + np.float32(tag))
        return np.array(out, np.float32)
    if name == "zero":
        z = np.float32(2.0) * g.astype(np.float32)
        return z + np.where((g + 1) % N == g % N, z, np.float32(0))
    raise KeyError(name)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_large_structs_on_simt_match_the_cpu(name: str) -> None:
    want = _run("cpu", name)
    assert np.array_equal(_run("simt", name), want)
    if name in ("bump", "divergent", "loop", "zero"):
        assert np.array_equal(want, _numpy(name).astype(np.float32))


@pytest.mark.parametrize("name", ["bump", "choose"])
def test_the_same_kernels_at_O0_match_on_simt(name: str) -> None:
    assert np.array_equal(_run("simt", name, "-cl-opt-disable"), _run("cpu", name))


def test_a_16_kb_struct_through_helpers_builds_in_seconds() -> None:
    """benchmarks/large_aggregates.py's `helpers` case at 4,096 floats: minutes of register
    allocation when the struct was 4,096 register parts, a few seconds by reference."""
    import time

    from benchmarks.large_aggregates import SOURCES, expected
    dev = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == "simt")
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    w = (np.arange(4096, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0)
    arg = np.zeros((), np.dtype([("w", np.float32, (4096,))]))
    arg["w"] = w
    out = np.zeros(64, np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, out.nbytes)
    start = time.process_time()
    prg = cl.Program(ctx, SOURCES["helpers"]).build(options="-D N=4096")
    assert time.process_time() - start < 30
    prg.k(queue, (64,), None, buf, arg, np.float32(2.0))
    cl.enqueue_copy(queue, out, buf)
    assert np.array_equal(out, expected(w, 2.0))


@pytest.mark.parametrize("name", ["bump", "choose", "divergent", "loop", "nested"])
def test_the_smallest_register_files_and_the_allocation_checker(name: str) -> None:
    """The same kernels compiled for the smallest files the ABI allows, every function checked
    by the allocation checker, run on a simulator of those files."""
    from tests.targets.simt_cl_harness import run_cl

    arg = _big_argument()
    out, _ = run_cl(PRELUDE + KERNELS[name], "k", [np.zeros(64, np.float32), arg.tobytes(), np.float32(2.0)], (64,), (16,),
                    regs="tiny")
    assert np.array_equal(out[0], _run("cpu", name))
