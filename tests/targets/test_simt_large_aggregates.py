"""Structs over 256 bytes by reference on simt (isel_aggregates.py), against the cpu device
and NumPy: passed to helpers kept out of line, returned from them, changed by the callee
(the caller's value must not change), picked by a divergent `?:`, nested, zero-initialised,
from a by-value kernel argument, returned from two places under a divergent branch, called
in a loop whose trip count differs per lane; and the -O0 build. Each kernel is one the cpu device
builds with its own large-aggregate lowering (targets/llvm/emit_indirect.py). The registers a
function takes do not grow with the struct it passes by reference."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import oclpy as cl
from benchmarks.large_aggregates import SOURCES, expected
from oclpy.targets.simt.simt_program import SimtProgram
from tests.targets.simt_cl_harness import compile_cl, run_cl

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


@functools.cache
def _helpers(floats: int) -> SimtProgram:
    """benchmarks/large_aggregates.py's `helpers` case with a struct of `floats` floats,
    every function checked by the allocation checker."""
    return compile_cl(f"#define N {floats}\n" + SOURCES["helpers"])


def _registers(floats: int) -> dict[str, tuple[int, int, int]]:
    """Each function of `_helpers(floats)`: its scalar and vector registers and spill slots."""
    return {f.name: (f.attrs["sgprs"], f.attrs["vgprs"], f.attrs["spill_slots"])
            for f in _helpers(floats).module.functions}


@pytest.mark.parametrize("floats", [65, 256])
def test_a_struct_through_helpers_by_reference_matches_numpy(floats: int) -> None:
    """The `helpers` case just past the line (65 floats, 260 bytes) and at 1 KB."""
    w = (np.arange(floats, dtype=np.float32) * np.float32(0.37)) % np.float32(11.0)
    out, _ = run_cl("", "k", [np.zeros(64, np.float32), w.tobytes(), np.float32(2.0)], (64,), (16,),
                    program=_helpers(floats))
    assert np.array_equal(out[0], expected(w, 2.0))


def test_a_struct_by_reference_takes_the_same_registers_at_any_size() -> None:
    """By reference, the helpers take as many registers, and spill as little, at 1 KB
    as just past the line: nothing grows with the struct (a 16 KB struct in 4,096
    register parts took minutes of register allocation). Under the line (64 floats,
    256 bytes) the struct is in register parts, and takes more."""
    past = _registers(65)
    assert _registers(256) == past
    assert all(spills == 0 for _, _, spills in past.values())
    assert _registers(64)["pick"][1] > past["pick"][1]


@pytest.mark.parametrize("name", ["bump", "choose", "divergent", "loop", "nested"])
def test_the_smallest_register_files_and_the_allocation_checker(name: str) -> None:
    """The same kernels compiled for the smallest files the ABI allows, every function checked
    by the allocation checker, run on a simulator of those files."""
    arg = _big_argument()
    args = [np.zeros(64, np.float32), arg.tobytes(), np.float32(2.0)]
    out, _ = run_cl(PRELUDE + KERNELS[name], "k", args, (64,), (16,), regs="tiny")
    assert np.array_equal(out[0], _run("cpu", name))
