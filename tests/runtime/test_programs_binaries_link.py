"""Program binaries, Program.compile + link_program, build options, release."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.runtime.linking import MAGIC, parse_binary

COPY_SRC = """
#define SCALE 3.0f
__kernel void scale(__global const float *a, __global float *b)
{ b[get_global_id(0)] = SCALE * a[get_global_id(0)]; }
"""


def _run_scale(ctx, queue, prg, n=64):
    a = np.arange(n, dtype=np.float32)
    a_buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=a)
    b_buf = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
    prg.scale(queue, (n,), None, a_buf, b_buf)
    b = np.empty_like(a)
    cl.enqueue_copy(queue, b, b_buf)
    return a, b


def test_binary_round_trip_rebuilds_the_same_kernels(ctx, queue):
    prg = cl.Program(ctx, COPY_SRC).build("-O1")
    binary, = prg.get_info(cl.program_info.BINARIES)
    assert binary.startswith(MAGIC)
    assert prg.get_info(cl.program_info.BINARY_SIZES) == [len(binary)]
    again = cl.Program(ctx, ctx.devices, [binary])
    assert again.kind() == cl.program_kind.BINARY
    again.build()
    assert again.get_build_info(ctx.devices[0], cl.program_build_info.BINARY_TYPE) == 4
    a, b = _run_scale(ctx, queue, again)
    assert (b == 3 * a).all()
    meta = parse_binary(binary)
    assert meta.options == "-O1" and "SCALE" not in meta.text  # macros already expanded
    assert again.get_info(cl.program_info.BINARIES) == [binary]  # deterministic


def test_unbuilt_program_has_empty_binaries(ctx):
    assert cl.Program(ctx, COPY_SRC).get_info(cl.program_info.BINARIES) == [b""]


@pytest.mark.parametrize("data, message", [
    (b"not a binary", "not an oclpy program binary"),
    (MAGIC + b"{broken\n", "corrupt oclpy program binary"),
    (MAGIC + b'{"type": "x", "device": "cpu", "options": ""}\n', "unknown binary type 'x'"),
    (MAGIC + b'{"type": "executable", "device": "simt", "options": ""}\n',
     "the binary was built for a 'simt' device"),
    (42, "a binary must be bytes, got int"),
])
def test_bad_binaries(ctx, data, message):
    with pytest.raises(cl.LogicError, match=message) as info:
        cl.Program(ctx, ctx.devices, [data])
    assert info.value.code == cl.status_code.INVALID_BINARY
    assert info.value.routine == "clCreateProgramWithBinary"


def test_binaries_must_match_devices(ctx):
    with pytest.raises(cl.LogicError, match="one binary per device") as info:
        cl.Program(ctx, ctx.devices, [])
    assert info.value.code == cl.status_code.INVALID_VALUE


def test_compile_and_link(ctx, queue):
    sink = cl.Program(ctx, "void value_sink(__global float *o, float x) { o[0] = x; }").compile()
    header = cl.Program(ctx, "inline float get_pi() { return 3.5f; }")
    main = cl.Program(ctx, """#include "pi.h"
        void value_sink(__global float *o, float x);
        __kernel void experiment(__global float *o) { value_sink(o, get_pi() + 1.0f); }
        """).compile(headers=[("pi.h", header)])
    assert main.get_build_info(ctx.devices[0], cl.program_build_info.BINARY_TYPE) == 1
    linked = cl.link_program(ctx, [sink, main], devices=ctx.devices)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, 4)
    linked.experiment(queue, (1,), (1,), out)
    res = np.empty(1, np.float32)
    cl.enqueue_copy(queue, res, out)
    assert res[0] == 4.5
    obj, = sink.get_info(cl.program_info.BINARIES)  # an object binary links too
    relinked = cl.link_program(ctx, [cl.Program(ctx, ctx.devices, [obj]), main])
    assert relinked.kernel_names_list() == ["experiment"]


def test_compile_reports_syntax_errors(ctx):
    with pytest.raises(cl.RuntimeError, match="expected") as info:
        cl.Program(ctx, "void f( { }").compile()
    assert info.value.code == cl.status_code.COMPILE_PROGRAM_FAILURE
    assert info.value.routine == "clCompileProgram"


def test_link_errors(ctx):
    user = cl.Program(ctx, "void g(void); __kernel void k() { g(); }").compile()
    with pytest.raises(cl.RuntimeError, match="'g' is used but not defined") as info:
        cl.link_program(ctx, [user])
    assert info.value.code == cl.status_code.LINK_PROGRAM_FAILURE
    with pytest.raises(cl.LogicError, match="was not compiled") as info:
        cl.link_program(ctx, [cl.Program(ctx, "void g(void) {}")])
    assert info.value.code == cl.status_code.INVALID_PROGRAM
    with pytest.raises(cl.LogicError, match="no programs to link"):
        cl.link_program(ctx, [])
    with pytest.raises(cl.LogicError, match="headers are \\(name, Program\\) pairs"):
        cl.Program(ctx, "void g(void) {}").compile(headers=["pi.h"])


@pytest.mark.parametrize("name", ["{tmp}/abs.h", "../up.h", "a/../../up.h", "", "a//b.h", "nul\0.h"])
def test_header_names_are_include_names_never_paths_to_write(ctx, tmp_path, name):
    """Issue 13: a header named by an absolute path or climbing out with '..' wrote there."""
    name = name.format(tmp=tmp_path)
    header = cl.Program(ctx, "#define PI 3.14f\n")
    with pytest.raises(cl.LogicError, match="not a relative include name") as info:
        cl.Program(ctx, '#include "up.h"\n').compile(headers=[(name, header)])
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert not list(tmp_path.iterdir()) and not (tmp_path.parent / "up.h").exists()


def test_headers_in_subfolders_are_found(ctx):
    header = cl.Program(ctx, "#define PI 3.14f\n")
    unit = cl.Program(ctx, '#include "inc/pi.h"\nfloat pi(void) { return PI; }\n')
    assert unit.compile(headers=[("inc/pi.h", header)]).object_text() is not None


def test_bad_options_and_bad_source_have_their_own_codes(ctx):
    with pytest.raises(cl.LogicError, match="unknown build option '-fancy'") as info:
        cl.Program(ctx, COPY_SRC).build("-fancy")
    assert info.value.code == cl.status_code.INVALID_BUILD_OPTIONS
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, COPY_SRC).compile("-cl-std=CL9.9")
    assert info.value.code == cl.status_code.INVALID_BUILD_OPTIONS
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "__kernel void k() { nope; }").build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE


def test_release_drops_kernels_and_builds(ctx):
    prg = cl.Program(ctx, COPY_SRC + "// release test\n").build()
    assert prg.scale.function_name == "scale"
    prg.release()
    with pytest.raises(cl.LogicError) as info:
        prg.scale
    assert info.value.code == cl.status_code.INVALID_PROGRAM_EXECUTABLE
    with pytest.raises(cl.LogicError, match="the program was released") as info:
        prg.build()
    assert info.value.code == cl.status_code.INVALID_PROGRAM


def test_bad_spirv_and_undecodable_bytes_are_refused(ctx):
    with pytest.raises(cl.RuntimeError, match="SPIR-V word 1: unsupported SPIR-V version") as info:
        cl.Program(ctx, b"\x03\x02\x23\x07" + bytes(16)).build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE
    with pytest.raises(cl.LogicError, match="not UTF-8 text") as info:
        cl.Program(ctx, b"\xff\xfe kernel")
    assert info.value.code == cl.status_code.INVALID_VALUE
    assert cl.Program(ctx, COPY_SRC.encode()).build().kernel_names_list() == ["scale"]
    with pytest.raises(cl.LogicError, match="expected a Context, got NoneType") as info:
        cl.Program(None, COPY_SRC)
    assert info.value.code == cl.status_code.INVALID_CONTEXT
