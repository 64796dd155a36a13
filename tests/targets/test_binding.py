"""binding.py: the llvmlite.binding seam (verify errors, optimisation, host CPU, threads)."""

from __future__ import annotations

import ctypes
import threading

import pytest

from oclpy.targets.llvm import binding

ADD = """
define i64 @add(i64 %a, i64 %b) {
  %s = add i64 %a, %b
  ret i64 %s
}
"""


def test_compile_and_call() -> None:
    native = binding.compile_ir(ADD)
    add = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(native.address_of("add"))
    assert add(40, 2) == 42
    assert "add" in native.asm()


def test_invalid_ir_is_reported_as_an_llvm_error() -> None:
    with pytest.raises(binding.LLVMError, match="invalid LLVM IR generated"):
        binding.compile_ir("define i32 @f() {\n  ret i64 0\n}\n")


def test_host_cpu_and_layout() -> None:
    name, features = binding.host_cpu()
    assert name and ("+" in features or features == "")
    assert binding.host_data_layout().startswith(("e-", "E-"))


def test_compiles_from_threads_at_once() -> None:
    results: list[int] = []

    def build(k: int) -> None:
        native = binding.compile_ir(ADD.replace("@add", f"@add{k}"))
        fn = ctypes.CFUNCTYPE(ctypes.c_int64, ctypes.c_int64, ctypes.c_int64)(
            native.address_of(f"add{k}"))
        results.append(fn(k, 1))

    threads = [threading.Thread(target=build, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [1, 2, 3, 4]


def test_declined_vectorisation_hints_leave_stderr_alone(capfd) -> None:  # type: ignore[no-untyped-def]
    import os

    with binding._without_declined_hint_diagnostics():
        os.write(2, b"remark: <unknown>:0:0: loop not vectorized: Unsupported outer loop\n")
        os.write(2, b"warning: <unknown>:0:0: loop not vectorized: the optimizer was unable\n")
        os.write(2, b"something else\n")
    assert capfd.readouterr().err == "something else\n"


def test_a_kernel_whose_hint_llvm_declines_compiles_silently(capfd) -> None:  # type: ignore[no-untyped-def]
    # the outer loop holds an inner loop LLVM's outer-loop vectoriser declines (a reduction)
    from tests.targets.test_cpu_outer import OUTER_SHAPES
    from tools.cpu_harness import compile_without

    # without widen-work-items, which would take this kernel before LLVM's outer-loop vectoriser
    program = compile_without(OUTER_SHAPES["nested_loops"], ("widen-work-items",))
    assert "llvm.loop.vectorize.enable" in program.llvm_ir
    assert "<8 x" in program.optimized_llvm_ir or "<16 x" in program.optimized_llvm_ir
    assert capfd.readouterr().err == ""
