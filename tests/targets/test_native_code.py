"""Deferred native code: a cpu kernel's LLVM work runs at its first launch, once, for it alone."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from oclpy.compiler import compile_program
from oclpy.targets.llvm import binding
from oclpy.targets.llvm.cpu.compiled import NativeCode
from oclpy.targets.llvm.cpu.launcher import only_launcher
from tools.cpu_harness import run

SRC = """
__kernel void twice(__global int *x) { x[get_global_id(0)] *= 2; }
__kernel void plus1(__global int *x) { x[get_global_id(0)] += 1; }
"""
ADD = "define i64 @add(i64 %a, i64 %b) {\n  %s = add i64 %a, %b\n  ret i64 %s\n}\n"


def test_build_defers_llvm_to_each_kernels_first_launch() -> None:
    program = compile_program(SRC).program
    assert not program.compiled
    assert program.kernels["twice"].args[0].kind == "global"  # kernel facts without native code
    x = np.arange(4, dtype=np.int32)
    run(program.kernels["twice"], [x], (4,), (4,))
    assert program.compiled and x.tolist() == [0, 2, 4, 6]
    assert program.kernels["twice"].compiled and not program.kernels["plus1"].compiled
    run(program.kernels["plus1"], [x], (4,), (4,))  # compiled now, on its own
    assert x.tolist() == [1, 3, 5, 7]
    twice, plus1 = program.kernels["twice"]._jit, program.kernels["plus1"]._jit
    assert plus1 is not twice
    assert twice.address_of("twice.launch") and not twice.address_of("plus1.launch")
    assert plus1.address_of("plus1.launch") and not plus1.address_of("twice.launch")


def test_only_launcher_makes_the_other_launchers_internal() -> None:
    text = compile_program(SRC).program.llvm_ir
    alone = only_launcher(text, "plus1", ["twice", "plus1"])
    assert 'define internal void @"twice.launch"(' in alone
    assert 'define void @"plus1.launch"(' in alone
    with pytest.raises(ValueError, match="launcher of 'gone'"):
        only_launcher(text, "plus1", ["gone", "plus1"])


def test_the_whole_module_compiles_apart_for_inspection() -> None:
    program = compile_program(SRC).program
    optimized = program.optimized_llvm_ir
    assert "twice.launch" in optimized and "plus1.launch" in optimized
    assert not program.compiled  # the kernels' own code is still to come


def test_invalid_llvm_ir_still_fails_at_build() -> None:
    with pytest.raises(binding.LLVMError, match="invalid LLVM IR generated"):
        binding.defer_ir("define i32 @f() {\n  ret i64 0\n}\n")


def test_deferred_module_compiles_once() -> None:
    compile_now = binding.defer_ir(ADD)
    assert compile_now().address_of("add")
    with pytest.raises(binding.LLVMError, match="compiled twice"):
        compile_now()


def test_native_code_needs_exactly_one_source() -> None:
    with pytest.raises(ValueError, match="exactly one of a compile function and ready code"):
        NativeCode()
    ready = binding.compile_ir(ADD)
    with pytest.raises(ValueError, match="exactly one"):
        NativeCode(lambda: ready, ready)


def test_concurrent_first_needs_compile_once_and_call_back_once() -> None:
    calls: list[int] = []
    ready = binding.compile_ir(ADD)
    barrier = threading.Barrier(4)

    def compile_slowly() -> binding.JitModule:
        calls.append(1)
        return ready

    code = NativeCode(compile_slowly)
    notified: list[int] = []
    code.when_ready(lambda: notified.append(1))
    got: list[binding.JitModule] = []

    def need() -> None:
        barrier.wait()
        got.append(code.get())

    threads = [threading.Thread(target=need) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert calls == [1] and notified == [1] and all(g is ready for g in got)
    code.when_ready(lambda: notified.append(2))  # already ready: called at once
    assert notified == [1, 2]


def test_missing_launcher_is_an_llvm_error() -> None:
    program = compile_program(SRC).program
    kernel = program.kernels["twice"]
    kernel.name = "gone"  # its launcher symbol is then absent from the native code
    with pytest.raises(binding.LLVMError, match="no launcher for 'gone'"):
        kernel.launch(bytes(kernel.blob_size), 1, (1, 1, 1), (1, 1, 1), (0, 0, 0), 0, 1)


def test_a_failed_compile_fails_every_later_need_the_same_way() -> None:
    calls: list[int] = []

    def broken() -> binding.JitModule:
        calls.append(1)
        raise binding.LLVMError("codegen failed")

    code = NativeCode(broken)
    for _ in range(2):
        with pytest.raises(binding.LLVMError, match="codegen failed"):
            code.get()
    assert calls == [1] and not code.ready


def test_kernels_sharing_a_program_variable_share_one_native_module() -> None:
    src = """
int counter = 3;
kernel void set(global int *o) { counter = o[0]; }
kernel void get(global int *o) { o[0] = counter + 1; }
"""
    program = compile_program(src, "-cl-std=CL2.0").program
    x = np.array([41], dtype=np.int32)
    run(program.kernels["set"], [x], (1,), (1,))
    assert program.kernels["get"].compiled  # compiled with `set`, in one module
    run(program.kernels["get"], [x], (1,), (1,))
    assert x.tolist() == [42]
    assert program.kernels["get"]._jit is program.kernels["set"]._jit
