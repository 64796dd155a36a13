"""cpu_reorder: a work-item loop is marked parallel only when LLVM's interleaved
accesses cannot reorder a store past another access of the same work-item
(found by tools/progen: strided `__local` stores sunk past a gather of them)."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.cases_vector import TILE_SMOOTH
from oclpy.compiler import compile_program, frontend_for, optimize
from oclpy.passes.form_workgroups import FRAME_ATTR
from oclpy.targets.llvm.cpu.reorder import reorder_safe
from tools.cpu_harness import run

STALE_SLOTS = """
__kernel void k(__global int *out, __global const int *sel) {
    int gx = get_global_id(0), lid = get_local_id(0);
    __local int slot[256];
    __local int *ml = slot + lid * 4;
    for (int k = 0; k < 4; k++) ml[k] = k * lid - gx;
    int v = ml[sel[gx] & 3];
    ml[0] = v;
    out[gx] = ml[0];
}
"""


@pytest.mark.parametrize("options", ["-cl-opt-disable", ""])
def test_strided_local_stores_are_seen_by_a_later_gather(options: str) -> None:
    prog = compile_program(STALE_SLOTS, options).program
    n = 64
    sel = (np.arange(n) * 7 % 4).astype(np.int32)
    out = np.zeros(n, np.int32)
    run(prog.kernels["k"], [out, sel], (n,), (16,))
    lid = np.arange(n) % 16
    assert out.tolist() == ((sel & 3) * lid - np.arange(n)).tolist()


def _safe(src: str) -> bool:
    module = frontend_for(src, "", "<k>").module
    optimize(module, 2, "cpu")
    fn = next(f for f in module.kernels() if not f.is_declaration)
    return reorder_safe(fn, FRAME_ATTR in fn.attrs)


def test_store_then_gather_of_the_same_object_is_a_hazard() -> None:
    assert not _safe(STALE_SLOTS)


@pytest.mark.parametrize("body", [
    "y[i] = 2.0f * x[i] + y[i];",                          # load, then store: kept in order
    "y[2*i] = x[i]; y[2*i+1] = -x[i];",                    # disjoint constant offsets
    "float4 v = vload4(i, x); y[4*i] = v.x; y[4*i+3] = v.w;",
    "y[i] = x[i]; y[i] = y[i] + 1.0f;",                    # same address: forwarded by LLVM
])
def test_independent_accesses_keep_the_loop_parallel(body: str) -> None:
    src = ("__kernel void k(__global const float *x, __global float *y) {"
           f" size_t i = get_global_id(0); {body} }}")
    assert _safe(src)


@pytest.mark.parametrize("body", [
    "y[2*i] = x[i]; float t = y[x[i] > 0.0f ? 2*i : 2*i+1]; y[2*i+1] = t;",
    "y[i] = x[i]; y[i + (int)x[0]] += 1.0f;",
])
def test_store_followed_by_a_maybe_aliasing_access_is_a_hazard(body: str) -> None:
    src = ("__kernel void k(__global const float *x, __global float *y) {"
           f" size_t i = get_global_id(0); {body} }}")
    assert not _safe(src)


def test_barrier_kernels_with_frame_slots_stay_parallel() -> None:
    src = """__kernel void r(__global int *x, __local int *t) {
        int l = get_local_id(0), mine = x[get_global_id(0)] * 3;
        t[l] = mine;
        barrier(CLK_LOCAL_MEM_FENCE);
        x[get_global_id(0)] = t[(l + 1) % 4] + mine;
    }"""
    assert _safe(src)


def test_loads_of_one_group_around_a_maybe_aliasing_store_are_a_hazard() -> None:
    # y[2*i] and y[2*i+1] may load as one group, hoisted above the store
    src = """__kernel void k(__global const float *x, __global float *y) {
        size_t i = get_global_id(0);
        float a = y[2*i];
        y[i + (int)x[0]] = 1.0f;
        y[i] = a + y[2*i+1];
    }"""
    assert not _safe(src)


def test_stores_to_a_uniform_slot_after_the_own_slot_stay_parallel() -> None:
    # the halo of a __local tile: uniform-address stores are never group members
    assert _safe(TILE_SMOOTH)
