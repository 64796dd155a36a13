"""Programs through the real compiler: builds, build errors, options, info."""

from __future__ import annotations


import numpy as np
import pytest

import oclpy as cl
from oclpy.compiler import cache, door, toolchain

from .fakes import buffer_of, read

VADD = """
__kernel void vadd(__global const float *a, __global const float *b,
                   __global float *out, const int n)
{
    int i = get_global_id(0);
    if (i < n)
        out[i] = a[i] + b[i];
}
"""

BAD = "__kernel void k(__global int *out)\n{\n    out[0] = x + 1;\n}\n"


def test_build_returns_self_and_runs(ctx, queue):
    prg = cl.Program(ctx, VADD)
    assert prg.build() is prg
    n = 1000
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    b = np.random.default_rng(1).random(n, dtype=np.float32)
    out = cl.Buffer(ctx, cl.mem_flags.WRITE_ONLY, a.nbytes)
    prg.vadd(queue, (1024,), (64,), buffer_of(ctx, a), buffer_of(ctx, b), out, np.int32(n))
    assert np.allclose(read(queue, out, a), a + b)
    dev = ctx.devices[0]
    assert prg.get_build_info(dev, cl.program_build_info.STATUS) == cl.build_status.SUCCESS
    assert prg.get_info(cl.program_info.KERNEL_NAMES) == "vadd"
    assert prg.get_info(cl.program_info.SOURCE) == VADD
    assert prg.vadd.get_arg_info(0, cl.kernel_arg_info.TYPE_NAME) == "float*"


def test_builds_are_cached_per_source_options_and_device(ctx):
    first = cl.Program(ctx, VADD).build(options="-D UNUSED=1")
    second = cl.Program(ctx, VADD).build(options=["-D", "UNUSED=1"])
    dev = ctx.devices[0]
    assert first._builds[dev].compiled is second._builds[dev].compiled
    third = cl.Program(ctx, VADD).build(options="-D UNUSED=2")
    assert third._builds[dev].compiled is not first._builds[dev].compiled


def test_build_failure_message(ctx):
    prg = cl.Program(ctx, BAD)
    with pytest.raises(cl.RuntimeError) as info:
        prg.build(options="-D FOO=1")
    err = info.value
    assert err.code == cl.status_code.BUILD_PROGRAM_FAILURE and err.routine == "clBuildProgram"
    text = str(err)
    assert text.startswith("clBuildProgram failed: BUILD_PROGRAM_FAILURE - clBuildProgram failed: "
                           "BUILD_PROGRAM_FAILURE - clBuildProgram failed: BUILD_PROGRAM_FAILURE\n\n"
                           "Build on <oclpy.Device 'oclpy cpu' on 'oclpy'>:\n\n")
    assert "<kernel>:3:14: error: use of undeclared identifier 'x'" in text
    assert "(options: -D FOO=1)" in text
    assert "source saved as" not in text  # a failed build writes no file
    dev = ctx.devices[0]
    assert prg.get_build_info(dev, cl.program_build_info.STATUS) == cl.build_status.ERROR
    assert "use of undeclared identifier 'x'" in prg.get_build_info(dev, cl.program_build_info.LOG)
    assert prg.get_build_info(dev, cl.program_build_info.OPTIONS) == "-D FOO=1"
    with pytest.raises(cl.LogicError, match="INVALID_PROGRAM_EXECUTABLE"):
        prg.k


def test_invalid_build_options(ctx):
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, VADD).build(options="-fno-such-option")
    assert info.value.code == cl.status_code.INVALID_BUILD_OPTIONS
    assert str(info.value).startswith("clBuildProgram failed: INVALID_BUILD_OPTIONS - ")
    assert "-fno-such-option" in str(info.value)


def test_internal_compiler_error_is_a_build_failure(ctx, monkeypatch):
    def explode(*args, **kwargs):
        raise KeyError("oops")

    monkeypatch.setattr(door, "build", explode)
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, "// ice\n").build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE
    assert "error: internal compiler error: KeyError: 'oops'" in str(info.value)


def test_non_empty_log_warns(ctx, monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(door, "build", lambda *args: SimpleNamespace(
        program=SimpleNamespace(kernels={}), log="<kernel>:1:1: warning: something\n"))
    monkeypatch.delenv("PYOPENCL_COMPILER_OUTPUT", raising=False)
    with pytest.warns(cl.CompilerWarning, match="Non-empty compiler output encountered"):
        cl.Program(ctx, "// w1\n").build()
    monkeypatch.setenv("PYOPENCL_COMPILER_OUTPUT", "1")
    with pytest.warns(cl.CompilerWarning, match="warning: something"):
        cl.Program(ctx, "// w2\n").build()


def test_program_argument_errors(ctx):
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, 42)
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, [ctx.devices[0]], [b"binary"])
    assert info.value.code == cl.status_code.INVALID_BINARY
    with pytest.raises(cl.LogicError) as info:
        cl.Program(ctx, VADD).build(devices=["gpu"])
    assert info.value.code == cl.status_code.INVALID_DEVICE
    assert cl.Program(ctx, VADD.encode()).build().vadd.num_args == 4


def test_programs_share_the_compilers_bounded_build_cache(ctx, monkeypatch):
    calls = []
    real = toolchain.compile_program
    monkeypatch.setattr(toolchain, "compile_program", lambda s, *a: calls.append(s) or real(s, *a))
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")  # memory only
    monkeypatch.setattr(cache, "MEMORY_ENTRIES", 2)
    cache.clear_memory()
    for src in ("// a\n", "// b\n", "// a\n", "// c\n", "// a\n", "// b\n"):
        cl.Program(ctx, src).build()
    assert calls == ["// a\n", "// b\n", "// c\n", "// b\n"]  # a stayed (recently used), b was dropped
