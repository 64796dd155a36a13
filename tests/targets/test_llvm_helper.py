"""llvm_helper.py: LLVM's optimiser in a helper process (issue 13: memory over thousands of builds).

llvmlite keeps ~60 KiB per optimisation run; past `IN_PROCESS_RUNS` runs the
optimisation and code generation move to a helper process, replaced after
`RUNS_PER_HELPER` requests. These tests force the helper from the first run.
"""

from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest

import oclpy as cl
from oclpy.targets.llvm import binding, llvm_helper

ADD = """
define i64 @add(i64 %a, i64 %b) {
  %s = add i64 %a, %b
  ret i64 %s
}
"""


@pytest.fixture
def helper(monkeypatch):
    """A fresh helper, used from the first optimisation; stopped afterwards."""
    monkeypatch.setenv("OCLPY_LLVM_HELPER", "1")
    fresh = llvm_helper.Helper()
    monkeypatch.setitem(binding._state, "helper", fresh)
    yield fresh
    fresh.close()


def _call_add(native: binding.JitModule) -> int:
    add = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(native.address_of("add"))
    return add(40, 2)


def test_code_from_the_helper_runs(helper) -> None:
    native = binding.compile_ir(ADD)
    assert _call_add(native) == 42
    assert helper._proc is not None and helper._proc.poll() is None
    assert "define i64 @add" in native.optimized_ir and native.object_code


def test_a_helper_is_replaced_after_its_runs(helper, monkeypatch) -> None:
    monkeypatch.setattr(llvm_helper, "RUNS_PER_HELPER", 2)
    pids = []
    for _ in range(5):
        assert _call_add(binding.compile_ir(ADD)) == 42
        pids.append(helper._proc.pid if helper._proc is not None else None)
    assert pids[1] is None and pids[3] is None  # stopped after its second request
    assert pids[0] != pids[2] != pids[4]


def test_a_helper_that_dies_fails_that_build_only(helper) -> None:
    binding.compile_ir(ADD)
    helper._proc.kill()
    helper._proc.wait()
    with pytest.raises(binding.LLVMError, match="helper process ended"):
        binding.compile_ir(ADD)
    assert _call_add(binding.compile_ir(ADD)) == 42  # a fresh helper


def test_an_error_in_the_helper_is_an_llvm_error(helper, monkeypatch) -> None:
    def refuse(*args):
        raise llvm_helper.HelperError("LLVMError: invalid LLVM IR generated: nope")

    monkeypatch.setattr(helper, "request", refuse)
    with pytest.raises(binding.LLVMError, match="in the helper process: LLVMError: invalid LLVM IR"):
        binding.compile_ir(ADD)


def test_the_helper_answers_an_invalid_module_with_an_error(helper) -> None:
    with pytest.raises(llvm_helper.HelperError, match="invalid LLVM IR generated"):
        helper.request("object", "define i32 @f() {\n  ret i64 0\n}\n", 3, "", "")
    assert helper.request("object", ADD, 3, "", "")[1]  # and goes on serving


def test_the_helper_refuses_an_unknown_request(helper) -> None:
    with pytest.raises(llvm_helper.HelperError, match="ValueError: unknown request 'nope'"):
        helper.request("nope", ADD)


def test_ptx_from_the_helper_is_the_ptx_made_here(helper, monkeypatch) -> None:
    from oclpy.targets.llvm.nvptx.ptx_codegen import compile_ptx

    kernel = ("define void @k(ptr addrspace(1) %p) {\n"
              "  %v = load float, ptr addrspace(1) %p\n  %w = fmul float %v, 2.0\n"
              "  store float %w, ptr addrspace(1) %p\n  ret void\n}\n")
    there = compile_ptx(kernel, {"k"})
    assert helper._proc is not None and helper._proc.poll() is None  # it went there
    monkeypatch.setenv("OCLPY_LLVM_HELPER", "0")
    here = compile_ptx(kernel, {"k"})
    assert there == here
    assert ".visible .func k(" in there[0] and "ld.global.b32" in there[0]


def test_kernels_built_through_the_helper_give_the_same_results(helper, monkeypatch) -> None:
    monkeypatch.setenv("OCLPY_NO_CACHE", "1")
    ctx = cl.Context(dev_type=cl.device_type.CPU)
    queue = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 256)
    src = "__kernel void k(__global float *a, float s) { int i = get_global_id(0); a[i] = sqrt((float)i) * s; }"
    cl.Program(ctx, src + f"// {os.getpid()}").build().k(queue, (256,), None, buf, np.float32(3))
    out = np.empty(256, np.float32)
    cl.enqueue_copy(queue, out, buf)
    np.testing.assert_allclose(out, np.sqrt(np.arange(256, dtype=np.float32)) * 3, rtol=1e-6)
    assert helper._proc is not None
    ctx.release()


@pytest.mark.parametrize("mode, runs, expected", [
    ("", 0, False), ("", llvm_helper.IN_PROCESS_RUNS, True), ("0", 10**6, False), ("1", 0, True)])
def test_when_the_helper_is_used(monkeypatch, mode, runs, expected) -> None:
    monkeypatch.setenv("OCLPY_LLVM_HELPER", mode)
    assert llvm_helper.use_helper(runs) is expected


def test_where_no_helper_can_start_the_process_optimises_itself(helper, monkeypatch) -> None:
    monkeypatch.setattr(llvm_helper.sys, "executable", "")
    assert _call_add(binding.compile_ir(ADD)) == 42
    assert helper._proc is None and "no Python executable" in helper.unavailable
    assert _call_add(binding.compile_ir(ADD)) == 42  # not tried again


def test_an_interrupted_request_stops_the_helper(helper, monkeypatch) -> None:
    binding.compile_ir(ADD)
    proc = helper._proc

    def interrupted(stream):
        raise KeyboardInterrupt

    monkeypatch.setattr(llvm_helper, "read_frame", interrupted)
    with pytest.raises(KeyboardInterrupt):
        binding.compile_ir(ADD)
    assert helper._proc is None and proc.poll() is not None
