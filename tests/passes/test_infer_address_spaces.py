"""infer-address-spaces on real OpenCL 2.0 code: kernels written with
unqualified (generic) pointers end with no generic memory operation where the
space is knowable, and compute the same results on the cpu device as at -O0
(where every generic access stays) and as NumPy."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import oclpy as cl
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.types import AddressSpace
from oclpy.ir.values import Module
from oclpy.passes.manager import PIPELINES, run_pipeline
from oclpy.analysis.kernel_stats import kernel_stats, memory_space

GENERIC = AddressSpace.GENERIC

HELPERS = r"""
float sum_range(const float *p, int n) { float s = 0; for (int i = 0; i < n; i++) s += p[i]; return s; }
void swap(float *a, float *b) { float t = *a; *a = *b; *b = t; }
float *pick(float *a, float *b, int c) { return c ? a : b; }
"""

KERNELS = HELPERS + r"""
kernel void mixed(global float *out, global const float *in, local float *tile, int n) {
    int gid = get_global_id(0), lid = get_local_id(0);
    tile[lid] = in[gid];
    barrier(CLK_LOCAL_MEM_FENCE);
    float priv[4];
    float *pp = priv;
    for (int k = 0; k < 4; k++) pp[k] = in[(gid + k) % n];
    float *first = (gid & 1) ? &priv[0] : &priv[1];
    swap(first, &priv[2]);
    const float *src = lid > 0 ? &tile[lid - 1] : &tile[lid];
    float s = sum_range(priv, 4) + sum_range(src, 1) + *first;
    float *dst = out + gid;
    *dst = s;
}

kernel void walk(global float *out, global float *in, int n) {
    int gid = get_global_id(0);
    float *p = in + gid * 4;
    float *end = p + 4;
    float acc = 0;
    while (p != end) { acc += *p; p++; }
    float *o = pick(out + gid, out, 1);
    *o = acc;
}
"""


def _optimised(source: str, level: int) -> Module:
    module = compile_to_ir(source, "-cl-std=CL2.0").module
    run_pipeline(module, PIPELINES[f"O{level}"], verify_each=True)
    return module


def test_no_generic_memory_operation_is_left_at_o2():
    before = {s.kernel: s for s in kernel_stats(_optimised(KERNELS, 0))}
    after = {s.kernel: s for s in kernel_stats(_optimised(KERNELS, 2))}
    assert before["mixed"].generic_memory_ops > 0 and before["walk"].generic_memory_ops > 0
    assert after["mixed"].generic_memory_ops == 0
    assert after["walk"].generic_memory_ops == 0
    assert after["mixed"].named_memory_ops > 0


def test_generic_access_stays_when_the_space_is_not_knowable():
    src = """kernel void k(global float *g, local float *l, int c) {
        float *p = g;
        if (c) p = l;
        *p = 1.0f;
    }"""
    (stats,) = kernel_stats(_optimised(src, 2))
    assert stats.generic_memory_ops == 1


def _run(source: str, options: str, name: str, gsize: int, lsize: int, *args):
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    program = cl.Program(ctx, source).build(options=options)
    mf = cl.mem_flags
    bufs, call = [], []
    for arg in args:
        if isinstance(arg, np.ndarray):
            buf = cl.Buffer(ctx, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=arg)
            bufs.append((buf, arg))
            call.append(buf)
        else:
            call.append(arg)
    getattr(program, name)(queue, (gsize,), (lsize,), *call).wait()
    out = []
    for buf, arr in bufs:
        result = np.empty_like(arr)
        cl.enqueue_copy(queue, result, buf)
        out.append(result)
    return out


def _mixed_reference(data: np.ndarray, lsize: int) -> np.ndarray:
    n = len(data)
    out = np.zeros(n, np.float32)
    for gid in range(n):
        lid = gid % lsize
        priv = [data[(gid + k) % n] for k in range(4)]
        first = 0 if gid & 1 else 1
        priv[first], priv[2] = priv[2], priv[first]
        src = data[gid - 1] if lid > 0 else data[gid]
        out[gid] = np.float32(np.float32(np.float32(sum(np.float32(x) for x in priv)) + src) + priv[first])
    return out


@pytest.mark.parametrize("options", ["-cl-std=CL2.0 -cl-opt-disable", "-cl-std=CL2.0"])
def test_mixed_kernel_results(options):
    n, lsize = 64, 16
    data = np.random.default_rng(5).random(n, dtype=np.float32)
    out, _ = _run(KERNELS, options, "mixed", n, lsize, np.zeros(n, np.float32), data, cl.LocalMemory(4 * lsize),
                  np.int32(n))
    np.testing.assert_allclose(out, _mixed_reference(data, lsize), rtol=1e-6)


def test_o0_and_o2_agree_on_generic_kernels():
    n = 32
    data = np.random.default_rng(6).random(4 * n, dtype=np.float32)
    results = [_run(KERNELS, f"-cl-std=CL2.0 {opt}", "walk", n, 8, np.zeros(n, np.float32), data, np.int32(n))[0]
               for opt in ("-cl-opt-disable", "")]
    assert results[0].tobytes() == results[1].tobytes()
    np.testing.assert_allclose(results[1], data.reshape(n, 4).sum(1), rtol=1e-6)


def test_a_kernel_has_no_address_space_left_to_infer_after_o2():
    module = _optimised(KERNELS, 2)
    spaces = [memory_space(i) for fn in module.kernels() for i in fn.instructions()]
    assert GENERIC not in spaces


def test_every_test_kernel_as_opencl_2_0_through_the_cpu_pipeline():
    """All the test tree's kernels, built as CL2.0 (unqualified pointers are generic)
    through O2 and the cpu target's passes, verify after every pass, and the
    corpus kernels keep no generic memory operation."""
    import sys
    from pathlib import Path

    from oclpy.diagnostics import CompileError

    sys.path.insert(0, str(Path(__file__).parent.parent / "ir"))
    from test_roundtrip_kernels import kernel_sources

    built = 0
    for name, source in kernel_sources().items():
        try:
            module = compile_to_ir(source, "-cl-std=CL2.0").module
        except CompileError:
            continue
        run_pipeline(module, "O2,inline,form-workgroups", verify_each=True)
        built += 1
        if name.startswith(("kernels/", "demo.py")):
            assert sum(s.generic_memory_ops for s in kernel_stats(module)) == 0, name
    assert built >= 75


BIG_HELPER = r"""
float *bump(float *p) {
    p[0] += 1.0f; p[1] += 2.0f; p[2] += 3.0f; p[3] += 4.0f; p[4] += 5.0f; p[5] += 6.0f;
    p[6] += 7.0f; p[7] += 8.0f; p[8] += 9.0f; p[9] += 10.0f; p[10] += 11.0f; p[11] += 12.0f;
    return p + 1;
}
kernel void k(global float *a) {
    int i = get_global_id(0) * 16;
    float *q = bump(a + i);
    *q += 100.0f;
    q = bump(q);
    *bump(q) += 1000.0f;
}
"""


def test_helper_kept_as_a_call_gets_a_named_signature_and_runs():
    module = _optimised(BIG_HELPER, 2)
    helper = module.get_function("bump")
    assert helper is not None and str(helper.type) == "ptr<global> (ptr<global>)"
    assert sum(s.generic_memory_ops for s in kernel_stats(module)) == 0
    n = 4
    data = np.arange(16 * n, dtype=np.float32)
    results = [_run(BIG_HELPER, f"-cl-std=CL2.0 {opt}", "k", n, 1, data.copy())[0]
               for opt in ("-cl-opt-disable", "")]
    assert results[0].tobytes() == results[1].tobytes()
    want = data.reshape(n, 16).copy()
    for start in (0, 1, 2):
        want[:, start:start + 12] += np.arange(1, 13, dtype=np.float32)
    want[:, 1] += 100.0
    want[:, 3] += 1000.0
    np.testing.assert_array_equal(results[1], want.reshape(-1))


@pytest.mark.parametrize("path", sorted((Path(__file__).parent.parent / "filecheck" /
                                         "infer-address-spaces").glob("*.oir")))
def test_a_second_run_changes_nothing(path):
    """The pass reports a change only when it makes one: run again, it says False
    and prints the same module."""
    from oclpy.ir.parser import parse_module
    from oclpy.ir.printer import print_module
    from oclpy.passes.infer_address_spaces import InferAddressSpaces

    text = path.read_text()
    for case in text.split("; -----"):
        module = parse_module(case)
        InferAddressSpaces().run(module)
        once = print_module(module)
        assert InferAddressSpaces().run(module) is False, case
        assert print_module(module) == once
