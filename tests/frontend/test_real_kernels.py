"""Constructs found in public OpenCL C kernels that oclpy mishandled:
each test builds the construct and, where it runs, checks its output."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir


@pytest.fixture(scope="module")
def queue():
    ctx = cl.create_some_context()
    return cl.CommandQueue(ctx)


def _run(queue, src: str, name: str, out: np.ndarray, options: str = "", gsize=None, lsize=None, args=()):
    prg = cl.Program(queue.context, src).build(options=options)
    mf = cl.mem_flags
    buf = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=out)
    getattr(prg, name)(queue, gsize or out.shape, lsize, buf, *args)
    cl.enqueue_copy(queue, out, buf)
    queue.finish()
    return out


# -- OpenCL C 2.0: program scope variables without an address space are global ----------

CL20_GLOBALS = """
int counter = 3;
float table[4];
global int *last;
kernel void fill(global int *o) {
    int i = get_global_id(0);
    table[i] = i * 1.5f;
    o[i] = counter + i;
}
kernel void read_back(global int *o) {
    o[0] = (int)(table[3] * 2.0f);
    counter = 40;
    last = o;
    *last += counter;
}
"""


def test_cl20_unqualified_program_scope_variables_are_global(queue) -> None:
    prg = cl.Program(queue.context, CL20_GLOBALS).build(options="-cl-std=CL2.0")
    mf = cl.mem_flags
    filled, read = np.zeros(4, np.int32), np.zeros(1, np.int32)
    buf = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=filled)
    prg.fill(queue, (4,), None, buf)
    cl.enqueue_copy(queue, filled, buf)
    np.testing.assert_array_equal(filled, [3, 4, 5, 6])
    buf = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=read)
    prg.read_back(queue, (1,), None, buf)  # the same program: fill's table[3] = 4.5
    cl.enqueue_copy(queue, read, buf)
    assert read[0] == 9 + 40
    # another program of the same source has variables of its own: table is all zero
    out = _run(queue, CL20_GLOBALS, "read_back", np.zeros(1, np.int32), "-cl-std=CL2.0")
    assert out[0] == 0 + 40


def test_cl12_unqualified_program_scope_variable_is_still_an_error() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("int counter = 3; kernel void k(global int *o) { o[0] = counter; }")
    assert "program scope variable must reside in constant address space" in info.value.log


# -- compound literals of vector type: `(float3){x, y, z}` ----------------------------------

COMPOUND_LITERALS = """
typedef float4 vec;
constant float4 whole = (float4){1.0f, 2.0f, 0.0f, 0.0f};
kernel void k(global float4 *o, global float *f) {
    int i = get_global_id(0);
    float2 h = (float2){0.5f, 0.25f};
    o[0] = (float4){1.0f, 2.0f, 3.0f, i + 4.0f};
    o[1] = (float4){7.0f, 0.0f, 0.0f, 0.0f};
    o[2] = (vec){h, 9.0f, 0.0f};
    o[3] = whole;
    o[4] = (float4){};
    f[0] = (float2){5.0f, 6.0f}.y + (float){2};
}
"""


def test_vector_compound_literals(queue) -> None:
    prg = cl.Program(queue.context, COMPOUND_LITERALS).build()
    mf = cl.mem_flags
    o = np.full((5, 4), -1, np.float32)
    f = np.zeros(1, np.float32)
    bo = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=o)
    bf = cl.Buffer(queue.context, mf.READ_WRITE | mf.COPY_HOST_PTR, hostbuf=f)
    prg.k(queue, (1,), None, bo, bf)
    cl.enqueue_copy(queue, o, bo)
    cl.enqueue_copy(queue, f, bf)
    # `(float4){}` is zero; a braced vector initializer never replicates
    np.testing.assert_array_equal(o, [[1, 2, 3, 4], [7, 0, 0, 0], [0.5, 0.25, 9, 0], [1, 2, 0, 0], [0, 0, 0, 0]])
    assert f[0] == 8.0


def test_compound_literal_errors_stay_diagnostics() -> None:
    for body, message in [
        ("struct S; kernel void k(global int *o) { o[0] = (struct S){1}.a; }",
         "variable has incomplete type 'struct S'"),
        ("kernel void k(global float2 *o) { o[0] = (float2){1.0f, 2.0f, 3.0f}; }",
         "1:63: error: excess elements in vector initializer"),
        ("constant float4 p = (float4){1.0f, 2.0f};\nkernel void k(global float4 *o) { o[0] = p; }",
         "1:29: error: too few elements in vector initialization (expected 4 elements, have 2)"),
        ("kernel void k(global float4 *o) { o[0] = (float4){7.0f}; }",
         "1:50: error: too few elements in vector initialization (expected 4 elements, have 1)"),
    ]:
        with pytest.raises(CompileError) as info:
            compile_to_ir(body)
        assert message in info.value.log
        assert "internal compiler error" not in info.value.log
