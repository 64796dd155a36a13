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
    out = _run(queue, CL20_GLOBALS, "fill", np.zeros(4, np.int32), "-cl-std=CL2.0")
    np.testing.assert_array_equal(out, [3, 4, 5, 6])
    out = _run(queue, CL20_GLOBALS, "read_back", np.zeros(1, np.int32), "-cl-std=CL2.0")
    assert out[0] == 9 + 40


def test_cl12_unqualified_program_scope_variable_is_still_an_error() -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("int counter = 3; kernel void k(global int *o) { o[0] = counter; }")
    assert "program scope variable must reside in constant address space" in info.value.log
