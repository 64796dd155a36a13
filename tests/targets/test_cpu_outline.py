"""A kernel too large to inline into its work-item loops is called from them (issue 13).

Past `OUTLINE_MIN_INSTRUCTIONS` the kernel's function is `noinline` and the launcher's
x loop holds a call: LLVM's loop passes (LICM, LoopInstSimplify, SimpleLoopUnswitch,
LSR) then work on a loop of a few instructions, where the body's size made them
superlinear (benchmarks/results/compile-time-lines-20261202-*.json). The checks are on
the structure LLVM is given and gives back, not on time: the size bound is what keeps
the work bounded, and the results must not change.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu import cpu_target
from tools.cpu_harness import run

LINES = "".join(f"    x = x * {k % 7 + 2} + (x >> {k % 5 + 1}) - {k};\n" for k in range(60))
SOURCE = f"__kernel void k(__global int *a) {{\n    int x = a[get_global_id(0)];\n{LINES}    a[get_global_id(0)] = x;\n}}\n"
GUARDED = ("__kernel void g(__global int *a, int n) { int i = get_global_id(0); if (i >= n) return;\n"
           f"    int x = a[i];\n{LINES}    a[i] = x;\n}}\n")


def _kernel_attributes(llvm_ir: str, name: str) -> str:
    [line] = [l for l in llvm_ir.splitlines() if l.startswith("define") and f'@"{name}"(' in l]
    return line.rsplit(")", 1)[1]


def _reference(a: np.ndarray) -> np.ndarray:
    out = a.astype(np.int64)
    for k in range(60):
        out = (out * (k % 7 + 2) + (out >> (k % 5 + 1)) - k)
        out = ((out + 2**31) % 2**32) - 2**31  # int wraps (the kernel's int arithmetic)
    return out.astype(np.int32)


def test_a_small_kernel_is_inlined_into_its_loops() -> None:
    prog = compile_program(SOURCE).program
    assert "alwaysinline" in _kernel_attributes(prog.llvm_ir, "k")
    assert not re.search(r"call .*@k\(", prog.optimized_llvm_ir)


@pytest.mark.parametrize("source, name, args", [(SOURCE, "k", []), (GUARDED, "g", [np.int32(50)])])
def test_a_kernel_past_the_bound_is_called_from_its_work_item_loop(monkeypatch, source, name, args) -> None:
    small = compile_program(source).program
    monkeypatch.setattr(cpu_target, "OUTLINE_MIN_INSTRUCTIONS", 100)
    large = compile_program(source).program
    assert "noinline" in _kernel_attributes(large.llvm_ir, name)
    launcher = large.optimized_llvm_ir.split(f"define void @{name}.launch(", 1)[1].split("\n}\n", 1)[0]
    assert re.search(rf"call .*@{name}(\.unguarded)?\(", launcher)  # the body stays out of the loop
    a = np.arange(-32, 32, dtype=np.int32) * 12345
    b = a.copy()
    run(small.kernels[name], [a, *args], (64,), (16,))
    run(large.kernels[name], [b, *args], (64,), (16,))
    assert (a == b).all()
    n = int(args[0]) if args else 64
    assert (a[:n] == _reference(np.arange(-32, 32, dtype=np.int32) * 12345)[:n]).all()


def test_the_bound_counts_the_body_and_what_it_calls() -> None:
    from oclpy.compiler.toolchain import frontend_for, optimize

    front = frontend_for(SOURCE, "", "k.cl")
    optimize(front.module, 2, "cpu")
    [fn] = [f for f in front.module.functions if f.name == "k"]
    assert 60 * 3 < cpu_target.instruction_count(fn) < 60 * 8
    assert cpu_target.inline_attribute(fn) == "alwaysinline"


# The launcher of a kernel with barriers calls it once per resume state; LLVM inlines
# every copy before the constant state each is called with prunes it to its region.
BARRIERS = (f"__kernel void b(__global int *a) {{\n    __local int t[16];\n    int l = get_local_id(0);\n"
            f"    int x = a[get_global_id(0)];\n{LINES}"
            "    t[l] = x;\n    barrier(CLK_LOCAL_MEM_FENCE);\n    int y = t[(l + 1) % 16];\n"
            "    barrier(CLK_LOCAL_MEM_FENCE);\n    t[l] = y * 3;\n    barrier(CLK_LOCAL_MEM_FENCE);\n"
            "    a[get_global_id(0)] = t[(l + 3) % 16] ^ y;\n}\n")


def _barriers_reference(a: np.ndarray) -> np.ndarray:
    x = _reference(a).reshape(-1, 16).astype(np.int64)
    y = np.roll(x, -1, axis=1)
    t = ((y * 3 + 2**31) % 2**32) - 2**31
    return (np.roll(t, -3, axis=1) ^ y).astype(np.int32).reshape(-1)


def test_a_resumable_kernel_whose_copies_pass_the_bound_is_called(monkeypatch) -> None:
    small = compile_program(BARRIERS).program
    assert "alwaysinline" in _kernel_attributes(small.llvm_ir, "b")
    monkeypatch.setattr(cpu_target, "VECTORIZE_MAX_INSTRUCTIONS", 100)
    monkeypatch.setattr(cpu_target, "OUTLINE_MIN_INSTRUCTIONS", 1000)  # the body alone is under it
    large = compile_program(BARRIERS).program
    assert "noinline" in _kernel_attributes(large.llvm_ir, "b")
    launcher = large.optimized_llvm_ir.split("define void @b.launch(", 1)[1].split("\n}\n", 1)[0]
    assert len(re.findall(r"call .*@b\(", launcher)) == 4  # a call per resume state, none inlined
    a = np.arange(-32, 32, dtype=np.int32) * 12345
    b = a.copy()
    run(small.kernels["b"], [a], (64,), (16,))
    run(large.kernels["b"], [b], (64,), (16,))
    assert (a == b).all()
    assert (a == _barriers_reference(np.arange(-32, 32, dtype=np.int32) * 12345)).all()


def test_the_copies_count_only_past_the_vectoriser_bound(monkeypatch) -> None:
    from oclpy.compiler.toolchain import frontend_for, optimize

    front = frontend_for(BARRIERS, "", "b.cl")
    optimize(front.module, 2, "cpu")
    [fn] = [f for f in front.module.functions if f.name == "b"]
    assert cpu_target.launcher_calls(fn) == 4  # states 0, 1, 2, 3
    size = cpu_target.instruction_count(fn)
    monkeypatch.setattr(cpu_target, "OUTLINE_MIN_INSTRUCTIONS", size * 2)
    assert cpu_target.inline_attribute(fn) == "alwaysinline"  # a body the loop vectoriser takes
    monkeypatch.setattr(cpu_target, "VECTORIZE_MAX_INSTRUCTIONS", size - 1)
    assert cpu_target.inline_attribute(fn) == "noinline"
