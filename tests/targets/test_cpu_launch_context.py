"""CompiledKernel.launch: the packed context, by-value vectors, local memory, shared contexts."""

from __future__ import annotations

import numpy as np

from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu import compiled as cpu_program
from tools.cpu_harness import pack, pad3


def _kernel(src: str, name: str = "k"):  # type: ignore[no-untyped-def]
    return compile_program(src).program.kernels[name]


def test_context_words() -> None:
    data = cpu_program._launch_words(2, (8, 4, 1), (4, 2, 1), (1, 0, 0), [2, 2, 1],
                                     (100, 200, 3, 4, 150, 260))
    assert len(data) == cpu_program._CTX.size == 8 * cpu_program.CTX_SLOTS
    words = np.frombuffer(data, dtype=np.int64)
    assert words[:17].tolist() == [2, 8, 4, 1, 4, 2, 1, 1, 0, 0, 2, 2, 1, 100, 200, 3, 4]
    assert words[cpu_program.LOCAL_END_SLOT] == 150 and words[cpu_program.FRAMES_END_SLOT] == 260


def test_by_value_vectors_need_their_alignment() -> None:
    k = _kernel("__kernel void k(__global float4 *o, float4 v, double16 w) {"
                " o[get_global_id(0)] = v + (float4)((float)w.sf); }")
    assert k._blob_align == 128
    out = np.zeros((4, 4), np.float32)
    w = np.arange(16, dtype=np.float64)
    v = np.array([1, 2, 3, 4], np.float32)
    blob = pack(k, out, v.tobytes(), w.tobytes())
    k.launch(blob, 1, pad3((4,), 1), pad3((2,), 1), (0, 0, 0), 0, 2)
    assert out.tolist() == [[16.0, 17.0, 18.0, 19.0]] * 4


def test_plain_kernel_blob_alignment_is_eight() -> None:
    assert _kernel("__kernel void k(__global int *x, int a) { x[0] = a; }")._blob_align == 8


def test_local_arguments_get_memory_each_launch() -> None:
    k = _kernel("__kernel void k(__global int *x, __local int *t) {"
                " t[get_local_id(0)] = get_global_id(0); x[get_global_id(0)] = t[get_local_id(0)] * 2; }")
    assert k._has_local_args
    x = np.zeros(8, np.int32)
    k.launch(pack(k, x, 16), 1, (8, 1, 1), (4, 1, 1), (0, 0, 0), 0, 2)
    assert x.tolist() == [0, 2, 4, 6, 8, 10, 12, 14]


def test_context_without_call_memory_is_kept_per_shape_and_reused() -> None:
    k = _kernel("__kernel void k(__global int *x, int a) { x[get_global_id(0)] += a; }")
    assert not k._needs_call_memory
    x = np.zeros(8, np.int32)
    for a in (1, 2):
        k.launch(pack(k, x, np.int32(a)), 1, (8, 1, 1), (4, 1, 1), (0, 0, 0), 0, 2)
    k.launch(pack(k, x, np.int32(10)), 1, (8, 1, 1), (2, 1, 1), (0, 0, 0), 1, 3)  # another shape
    assert x.tolist() == [3, 3, 13, 13, 13, 13, 3, 3]
    assert len(k._contexts) == 2


def test_kept_contexts_are_bounded() -> None:
    k = _kernel("__kernel void k(__global int *x) { x[get_global_id(0)] = 1; }")
    x = np.zeros(1, np.int32)
    for begin in range(cpu_program.CONTEXTS_KEPT + 5):
        k.launch(pack(k, x), 1, (1, 1, 1), (1, 1, 1), (0, 0, 0), begin, begin)
    assert 0 < len(k._contexts) <= cpu_program.CONTEXTS_KEPT


def test_kernels_with_local_memory_get_fresh_context_each_launch() -> None:
    k = _kernel("__kernel void k(__global int *x) { __local int t[4];"
                " t[get_local_id(0)] = 1; barrier(CLK_LOCAL_MEM_FENCE); x[get_global_id(0)] = t[0]; }")
    assert k._needs_call_memory
    x = np.zeros(4, np.int32)
    k.launch(pack(k, x), 1, (4, 1, 1), (4, 1, 1), (0, 0, 0), 0, 1)
    assert x.tolist() == [1, 1, 1, 1] and not k._contexts
