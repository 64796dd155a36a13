"""oclpy.dask on a dask.distributed LocalCluster of worker processes, on the loopback
interface only: results equal NumPy's over many chunks, each worker builds a program
once, and a worker killed mid-computation does not change the result."""

from __future__ import annotations

import logging
import os
import signal
import time

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason="oclpy.dask needs dask: pip install 'oclpy[dask]'")
distributed = pytest.importorskip("distributed", reason="the cluster tests need distributed: "
                                                        "pip install 'oclpy[dask]'")
od = pytest.importorskip("oclpy.dask")

import oclpy as cl  # noqa: E402

SCALE = """
__kernel void scale_add(__global float *out, __global const float *a, __global const float *b, float k)
{ int i = get_global_id(0); out[i] = k * a[i] + b[i]; }
"""

LAPLACE = """
__kernel void laplace(__global float *out, __global const float *a)
{
    int x = get_global_id(0), y = get_global_id(1), z = get_global_id(2);
    int w = get_global_size(0), h = get_global_size(1);
    int i = (z * h + y) * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { out[i] = a[i]; return; }
    out[i] = a[i - 1] + a[i + 1] + a[i - w] + a[i + w] - 4.0f * a[i];
}
"""

# v -> v/2 + 1 reaches 2.0 exactly after a few dozen steps and stays there, so the
# result is exactly 3*a[i] whatever n is; n only makes each chunk take a while
SLOW = """
__kernel void slow_triple(__global float *out, __global const float *a, int n)
{
    int i = get_global_id(0);
    float v = a[i];
    for (int k = 0; k < n; k++) v = v * 0.5f + 1.0f;
    out[i] = 3.0f * a[i] + (v - 2.0f);
}
"""


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as c:
        yield c


def test_cluster_listens_on_loopback_only(client):
    info = client.scheduler_info()
    addresses = [client.scheduler.address, *info["workers"]]
    addresses += [w["nanny"] for w in info["workers"].values() if w.get("nanny")]
    assert addresses and all(a.startswith("tcp://127.0.0.1:") for a in addresses), addresses


def test_map_kernel_over_many_chunks(client):
    rng = np.random.default_rng(7)
    a = rng.random(50_000, dtype=np.float32)
    b = rng.random(50_000, dtype=np.float32)
    da_a, da_b = da.from_array(a, chunks=2_000), da.from_array(b, chunks=2_000)
    out = od.map_kernel(SCALE, "scale_add", da_a, da_b, np.float32(2.5), out_dtype=np.float32)
    assert out.numblocks == (25,)
    np.testing.assert_array_equal(out.compute(), np.float32(2.5) * a + b)


def test_map_kernel_stencil_with_overlap(client):
    frames = np.random.default_rng(8).random((6, 96, 80), dtype=np.float32)
    arr = da.from_array(frames, chunks=(2, 32, 40))
    out = od.map_kernel(LAPLACE, "laplace", arr, out_dtype=np.float32, depth={0: 0, 1: 1, 2: 1},
                        boundary="none").compute()
    ref = frames.copy()
    ref[:, 1:-1, 1:-1] = (frames[:, :-2, 1:-1] + frames[:, 2:, 1:-1] + frames[:, 1:-1, :-2]
                          + frames[:, 1:-1, 2:] - 4 * frames[:, 1:-1, 1:-1])
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def test_elementwise_and_reduction(client):
    rng = np.random.default_rng(9)
    x = rng.random((300, 200))
    y = rng.random((300, 200))
    dx, dy = da.from_array(x, chunks=(50, 100)), da.from_array(y, chunks=(50, 100))
    z = od.elementwise("double *z, const double *x, const double *y, double a",
                       "z[i] = a * x[i] - y[i]", dx, dy, 3.0)
    np.testing.assert_allclose(z.compute(), 3.0 * x - y, rtol=1e-12)
    dot = od.reduction("0", "a+b", "x[i]*y[i]", "const double *x, const double *y", dx, dy,
                       dtype_out=np.float64, split_every=4)
    assert dot.shape == ()
    np.testing.assert_allclose(dot.compute(), np.sum(x * y), rtol=1e-10)
    top = od.reduction("-INFINITY", "fmax(a, b)", "x[i]", "const double *x", dx, dtype_out=np.float64)
    assert top.compute() == x.max()


def test_programs_are_built_once_per_worker(client):
    """A fresh program over 24 chunks: each worker that ran chunks built it exactly once."""
    source = SCALE.replace("scale_add", "scale_add_once")
    before = client.run(od.worker_stats)
    a = np.arange(24_000, dtype=np.float32)
    arr = da.from_array(a, chunks=1_000)
    out = od.map_kernel(source, "scale_add_once", arr, arr, np.float32(1), out_dtype=np.float32)
    np.testing.assert_array_equal(out.compute(), 2 * a)
    after = client.run(od.worker_stats)
    ran = {w: after[w]["chunks"] - before[w]["chunks"] for w in after if w in before}
    built = {w: after[w]["builds"] - before[w]["builds"] for w in after if w in before}
    assert sum(ran.values()) == 24
    expected = [d.kind for d in od.pick_devices(cl.get_platforms()[0].get_devices())]
    for w in ran:
        assert built[w] == (1 if ran[w] else 0), (ran, built)
        assert after[w]["kinds"] == expected  # the GPUs where there are some, else the cpu device


def test_a_killed_worker_does_not_change_the_result(client):
    a = np.random.default_rng(10).random(16 * 4_000, dtype=np.float32)
    arr = da.from_array(a, chunks=4_000)
    out = od.map_kernel(SLOW, "slow_triple", arr, np.int32(60_000), out_dtype=np.float32)
    pids = client.run(os.getpid)
    future = client.compute(out)
    victim = _busy_worker(client, future)
    os.kill(pids[victim], signal.SIGKILL)
    result = future.result(timeout=120)
    np.testing.assert_array_equal(result, np.float32(3) * a)
    assert victim not in client.run(os.getpid) or client.run(os.getpid)[victim] != pids[victim]


def _busy_worker(client, future) -> str:
    """A worker running one of the computation's chunks, once some chunks are done."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        processing = {w: keys for w, keys in client.processing().items() if keys}
        done = sum(1 for k in client.who_has().values() if k)
        if processing and done >= 2 and not future.done():
            return next(iter(processing))
        time.sleep(0.02)
    pytest.fail("the computation never had a worker busy mid-way")


def test_bad_calls_raise_before_anything_is_scheduled():
    arr = da.ones(10, chunks=5, dtype=np.float32)
    with pytest.raises(TypeError, match="map_kernel: no Dask array among the arguments"):
        od.map_kernel(SCALE, "scale_add", np.ones(3), out_dtype=np.float32)
    with pytest.raises(ValueError, match=r"map_kernel: the Dask arrays' shapes differ: \(10,\) and \(4,\)"):
        od.map_kernel(SCALE, "scale_add", arr, da.ones(4, chunks=2), out_dtype=np.float32)
    with pytest.raises(ValueError, match="map_kernel: the NDRange is the chunk's shape, so the arrays "
                                         "need 1 to 3 dimensions, not 4"):
        od.map_kernel(SCALE, "scale_add", da.ones((2, 2, 2, 2), chunks=1), out_dtype=np.float32)
    with pytest.raises(TypeError, match="elementwise: 1 arguments given; the argument list has 2 besides"):
        od.elementwise("float *z, const float *x, float a", "z[i] = a * x[i]", arr)
    with pytest.raises(ValueError, match=r"elementwise: out='q' is not a pointer argument "
                                         r"\(pointers: z, x\)"):
        od.elementwise("float *z, const float *x", "z[i] = x[i]", arr, out="q")
    with pytest.raises(ValueError, match="elementwise: the argument list has no pointer argument"):
        od.elementwise("float a", "a", 1.0)
    with pytest.raises(TypeError, match="reduction: 2 arguments given; the argument list has 1"):
        od.reduction("0", "a+b", "x[i]", "const float *x", arr, arr, dtype_out=np.float32)


def test_workers_pick_gpus_when_they_have_them():
    class Dev:
        def __init__(self, kind, name):
            self.kind, self.name = kind, name

    cpu, g0, g1, simt = Dev("cpu", "c"), Dev("cuda", "g0"), Dev("cuda", "g1"), Dev("simt", "s")
    assert od.pick_devices([cpu, g0, simt, g1]) == [g0, g1]
    assert od.pick_devices([cpu, simt]) == [cpu]
    assert od.pick_devices([cpu, g0, simt], "simt") == [simt]
    with pytest.raises(cl.RuntimeError, match=r"DEVICE_NOT_FOUND.*no 'cuda' device on this worker "
                                              r"\(devices here: cpu\)"):
        od.pick_devices([cpu], "cuda")
