"""SPIR-V programs through the host API: Program(ctx, spirv_bytes),
create_program_with_il, program and device info, binaries, the build cache,
and build failures."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.compiler import cache, door
from tests.frontend.spirv.spirv_helpers import from_llvm, kernel_module

SCALE = from_llvm("""
declare spir_func i64 @_Z13get_global_idj(i32)
define spir_kernel void @scale(ptr addrspace(1) %p, float %f) {
  %g = call spir_func i64 @_Z13get_global_idj(i32 0)
  %q = getelementptr float, ptr addrspace(1) %p, i64 %g
  %x = load float, ptr addrspace(1) %q
  %y = fmul float %x, %f
  store float %y, ptr addrspace(1) %q
  ret void
}
""")


def _run_scale(ctx, queue, prg) -> np.ndarray:
    data = np.arange(8, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    prg.scale(queue, (8,), None, buf, np.float32(3))
    cl.enqueue_copy(queue, data, buf)
    return data


def test_program_from_spirv_bytes_builds_and_runs(ctx, queue):
    prg = cl.Program(ctx, SCALE).build()
    np.testing.assert_array_equal(_run_scale(ctx, queue, prg), np.arange(8) * 3)
    assert prg.get_info(cl.program_info.IL) == SCALE
    assert prg.get_info(cl.program_info.SOURCE) == ""
    assert prg.kind() == cl.program_kind.IL
    assert prg.kernel_names == "scale"
    assert prg.scale.get_arg_info(1, cl.kernel_arg_info.TYPE_NAME) == "float"
    assert prg.scale.get_arg_info(0, cl.kernel_arg_info.ADDRESS_QUALIFIER) == \
        cl.kernel_arg_address_qualifier.GLOBAL


def test_create_program_with_il(ctx, queue):
    prg = cl.create_program_with_il(ctx, bytearray(SCALE)).build()
    np.testing.assert_array_equal(_run_scale(ctx, queue, prg), np.arange(8) * 3)
    from oclpy import _cl

    assert _cl._create_program_with_il is cl.create_program_with_il
    with pytest.raises(cl.LogicError, match="no SPIR-V magic number") as info:
        cl.create_program_with_il(ctx, b"kernel void k() {}")
    assert info.value.code == cl.status_code.INVALID_VALUE
    with pytest.raises(cl.LogicError, match="the IL must be bytes, got str") as info:
        cl.create_program_with_il(ctx, "text")
    assert info.value.code == cl.status_code.INVALID_VALUE


def test_binaries_of_an_il_program_rebuild(ctx, queue):
    prg = cl.Program(ctx, SCALE).build()
    again = cl.Program(ctx, ctx.devices, prg.binaries).build()
    np.testing.assert_array_equal(_run_scale(ctx, queue, again), np.arange(8) * 3)
    assert again.get_info(cl.program_info.IL) == SCALE


def test_build_cache_is_keyed_on_the_il_bytes(ctx, monkeypatch):
    seen = []
    real = door.build
    monkeypatch.setattr(door, "build", lambda unit, *a: seen.append(unit) or real(unit, *a))
    first = cl.Program(ctx, SCALE).build()
    second = cl.Program(ctx, bytearray(SCALE)).build()
    dev = ctx.devices[0]
    assert seen == [SCALE, SCALE] and all(type(unit) is bytes for unit in seen)  # bytes end to end
    assert first._builds[dev].compiled is second._builds[dev].compiled
    key = cache.program_key(SCALE, "", "", door.resolve(dev.driver.target, ""))
    assert key != cache.program_key(SCALE.decode("latin-1"), "", "", door.resolve(dev.driver.target, ""))


def test_binaries_of_an_il_program_hold_the_module_as_it_is(ctx):
    prg = cl.Program(ctx, SCALE).build()
    binary, = prg.binaries
    assert binary.endswith(b"\n" + SCALE)
    v1 = binary.replace(b"OCLPY-BINARY 2 ", b"OCLPY-BINARY 1 ").replace(  # as binaries used to be
        SCALE, SCALE.decode("latin-1").encode("utf-8"))
    assert cl.Program(ctx, ctx.devices, [v1]).get_info(cl.program_info.IL) == SCALE


def test_bad_spirv_is_a_build_failure_with_the_reader_s_message(ctx):
    bad = kernel_module([("IAdd", [2, 20, 5, 99]), ("Return", [])])
    prg = cl.Program(ctx, bad)
    with pytest.raises(cl.RuntimeError) as info:
        prg.build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE
    assert "<spirv>: error: SPIR-V word 48 (OpIAdd): %99 is used but never defined" in str(info.value)
    log = prg.get_build_info(ctx.devices[0], cl.program_build_info.LOG)
    assert log == "<spirv>: error: SPIR-V word 48 (OpIAdd): %99 is used but never defined\n"


def test_compile_of_an_il_program_is_refused(ctx):
    with pytest.raises(cl.LogicError, match="linking of SPIR-V programs is not supported") as info:
        cl.Program(ctx, SCALE).compile()
    assert info.value.code == cl.status_code.INVALID_OPERATION


def test_device_reports_spirv_support(ctx):
    dev = ctx.devices[0]
    assert dev.il_version == "SPIR-V_1.0 SPIR-V_1.1 SPIR-V_1.2 SPIR-V_1.3 SPIR-V_1.4 SPIR-V_1.5 SPIR-V_1.6"
    assert dev.get_info(cl.device_info.IL_VERSION) == dev.il_version
    versions = dev.get_info(cl.device_info.ILS_WITH_VERSION)
    assert [(v.name, v.version >> 22, (v.version >> 12) & 0x3FF) for v in versions] == \
        [("SPIR-V", 1, minor) for minor in range(7)]
    assert "cl_khr_il_program" in dev.extensions.split()


def test_a_captured_call_of_an_il_kernel_replays(ctx, queue, tmp_path):
    import runpy

    prg = cl.Program(ctx, SCALE).build()
    data = np.arange(8, dtype=np.float32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=data)
    script = tmp_path / "replay.py"
    prg.scale.capture_call(str(script), queue, (8,), None, buf, np.float32(2))
    namespace = runpy.run_path(str(script))
    replayed = cl.Program(ctx, namespace["SOURCE"])
    assert replayed.kind() == cl.program_kind.IL and replayed.get_info(cl.program_info.IL) == SCALE
    namespace["main"]()
