"""`oclpy build --device cuda --emit ptx`, and the cuda kernel ABI the driver relies on
(argument blob offsets, parameter offsets, shared memory sizes)."""

from __future__ import annotations

import struct

import pytest

from oclpy.cli import main
from oclpy.compiler import DEVICE_KINDS, compile_program, cuda_target

SRC = """
typedef struct { char c; double d; } S;
__kernel void k(char a, __global float *g, __local int *l1, S s, float3 v,
                __constant int *c, __local double *l2) {
  __local float tile[10];
  __local char flag;
  tile[get_local_id(0)] = a + s.d + v.z + c[0];
  flag = 1;
  l1[0] = (int)tile[1] + flag;
  l2[0] = 2.0;
  g[get_global_id(0)] = l1[0] + l2[0];
}
"""


@pytest.fixture(autouse=True)
def _private_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("OCLPY_CACHE_DIR", str(tmp_path / "cache"))


def test_cuda_is_a_device_kind():
    assert "cuda" in DEVICE_KINDS


def test_emit_ptx_prints_ptx(tmp_path, capsys):
    path = tmp_path / "k.cl"
    path.write_text(SRC)
    assert main(["build", str(path), "--device", "cuda", "--emit", "ptx"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("//") and ".target sm_" in out and ".visible .entry k(" in out


def test_build_for_cuda_and_bad_source(tmp_path, capsys):
    good, bad = tmp_path / "k.cl", tmp_path / "bad.cl"
    good.write_text(SRC)
    bad.write_text("__kernel void k(__global int *p) { p[0] = q; }\n")
    assert main(["build", str(good), "--device", "cuda"]) == 0
    assert "built for cuda" in capsys.readouterr().err
    assert main(["build", str(bad), "--emit", "ptx"]) == 1
    assert "use of undeclared identifier 'q'" in capsys.readouterr().err


def test_kernel_abi():
    kernel = compile_program(SRC, "", cuda_target()).program.kernels["k"]
    kinds = [(a.name, a.kind, a.size, a.offset) for a in kernel.args]
    assert kinds == [("a", "scalar", 1, 0), ("g", "global", 8, 8), ("l1", "local", 8, 16),
                     ("s", "scalar", 16, 24), ("v", "scalar", 16, 48),
                     ("c", "constant", 8, 64), ("l2", "local", 8, 72)]
    assert kernel.blob_size == 80 and kernel.hidden_offset == 80
    assert kernel.param_offsets == (0, 8, 16, 24, 48, 64, 72, 80, 88, 96, 104)
    assert kernel.static_local_bytes == 41  # tile (40 bytes) then flag
    blob = bytearray(80)
    struct.pack_into("<Q", blob, 16, 20)
    struct.pack_into("<Q", blob, 72, 8)
    assert kernel.dynamic_local_bytes(bytes(blob)) == 32 + 8  # l2 starts 16-byte aligned


def test_ptx_entry_parameters_match_the_abi():
    ptx = compile_program(SRC, "", cuda_target()).program.ptx
    entry = ptx[ptx.index(".entry k("):ptx.index(")", ptx.index(".entry k("))]
    params = [line.strip() for line in entry.splitlines()[1:]]
    assert params == [
        ".param .u8 k_param_0,", ".param .u64 .ptr .global .align 1 k_param_1,",
        ".param .u64 k_param_2,", ".param .align 8 .b8 k_param_3[16],",
        ".param .align 8 .b8 k_param_4[16],", ".param .u64 .ptr .global .align 1 k_param_5,",
        ".param .u64 k_param_6,", ".param .u64 k_param_7,", ".param .u64 k_param_8,",
        ".param .u64 k_param_9,", ".param .u32 k_param_10"]
