"""CompiledKernel.launch: the packed context + blob, by-value vectors, local memory."""

from __future__ import annotations

import numpy as np

from oclpy.compiler import build_program
from oclpy.targets.llvm import cpu_program
from tests.targets.cpu_harness import pack, pad3


def _kernel(src: str, name: str = "k"):  # type: ignore[no-untyped-def]
    return build_program(src).program.kernels[name]


def test_context_words_and_blob_offset() -> None:
    data = cpu_program._launch_words(2, (8, 4, 1), (4, 2, 1), (1, 0, 0), [2, 2, 1],
                                     (100, 200, 3, 4, 150, 260))
    assert len(data) == cpu_program._CTX.size and len(data) % 64 == 0
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
