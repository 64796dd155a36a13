"""Huge basic blocks cut before LLVM's code generation (targets/llvm/split_blocks.py, issue 13).

Structure, not time: after the cut no block is larger than the piece size (the bound
that keeps instruction selection and the machine scheduler linear), every phi that named
a cut block names the piece holding its terminator, no cut falls before a phi, an alloca
or a terminator, LLVM accepts the text, and kernels give the same results.
"""

from __future__ import annotations

import ctypes

import numpy as np

from oclpy.compiler import compile_program
from oclpy.targets.llvm import binding
from oclpy.targets.llvm.split_blocks import MAX_BLOCK, PIECE, SPLIT_BLOCKS, largest_block, split_huge_blocks
from tools.cpu_harness import run

CHAIN = "".join(f"  %v{k + 1} = add i32 %v{k}, {k + 1}\n" for k in range(12))
TEXT = f"""define i32 @f(i32 %n, i1 %c) {{
entry:
  %slot = alloca i32
  %v0 = add i32 %n, 0
{CHAIN}  store i32 %v12, ptr %slot
  br i1 %c, label %other, label %join

other:
  br label %join

join:
  %r = phi i32 [ %v12, %entry ], [ 7, %other ]
  ret i32 %r
}}
"""


def test_a_block_past_the_bound_is_cut_into_pieces_llvm_accepts() -> None:
    assert largest_block(TEXT) == 16
    out, cuts = split_huge_blocks(TEXT, max_block=10, piece=4)
    assert cuts == 3 and largest_block(out) <= 5
    assert "%r = phi i32 [ %v12, %oclpy.split.2 ], [ 7, %other ]" in out
    assert f"{SPLIT_BLOCKS} = internal constant [3 x ptr] [ptr blockaddress(@f, %oclpy.split.0)," in out
    lines = out.splitlines()
    for n, line in enumerate(lines):
        if line.startswith("oclpy.split."):
            assert lines[n - 1] == f"  br label %{line[:-1]}"
            assert not lines[n + 1].lstrip().startswith(("%slot = alloca", "br ", "ret ", "%r = phi"))
    assert lines.index("  %slot = alloca i32") < lines.index("  br label %oclpy.split.0")
    binding.verify_ir(out)
    f = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.c_bool)
    whole, cut = binding.compile_ir(TEXT), binding.compile_ir(out)
    for n, c in ((5, False), (5, True), (-100, False)):
        assert f(cut.address_of("f"))(n, c) == f(whole.address_of("f"))(n, c) == (7 if c else n + 78)


def test_a_block_ending_in_a_switch_is_cut_before_it_never_inside_it() -> None:
    text = TEXT.replace("  br i1 %c, label %other, label %join\n",
                        "  switch i32 %n, label %join [\n    i32 0, label %other\n    i32 1, label %other\n  ]\n")
    text = text.replace("  store i32 %v12, ptr %slot\n", "  store i32 %v12, ptr %slot\n" + "  %w = add i32 %n, 1\n")
    out, cuts = split_huge_blocks(text, max_block=10, piece=4)
    assert cuts == 3
    assert "  %w = add i32 %n, 1\n  switch i32 %n, label %join [\n    i32 0, label %other\n" \
           "    i32 1, label %other\n  ]\n" in out
    assert "%r = phi i32 [ %v12, %oclpy.split.2 ], [ 7, %other ]" in out
    binding.verify_ir(out)


def test_small_blocks_and_unnamed_entry_blocks_are_left_alone() -> None:
    assert split_huge_blocks(TEXT) == (TEXT, 0)
    unnamed = TEXT.replace("entry:\n", "").replace("%entry", "%2").replace("%n, i1 %c", "i32 %0, i1 %1")
    assert split_huge_blocks(unnamed, max_block=10, piece=4) == (unnamed, 0)
    assert split_huge_blocks(TEXT + f"\n{SPLIT_BLOCKS} = internal constant i32 0\n", 10, 4)[1] == 0


def test_a_kernel_cut_before_code_generation_gives_the_same_results(monkeypatch) -> None:
    monkeypatch.setenv("OCLPY_LLVM_HELPER", "0")  # the cut happens in this process, where it is seen
    lines = "".join(f"    x = x * {k % 7 + 2} + (x >> {k % 5 + 1}) - {k};\n" for k in range(80))
    src = f"__kernel void k(__global int *a) {{\n    int x = a[get_global_id(0)];\n{lines}    a[get_global_id(0)] = x;\n}}\n"
    a = np.arange(-32, 32, dtype=np.int32) * 7919
    b = a.copy()
    run(compile_program(src).program.kernels["k"], [a], (64,), (16,))
    seen = []

    def recording(text):  # type: ignore[no-untyped-def]
        out, cuts = split_huge_blocks(text, max_block=100, piece=40)
        seen.append((cuts, largest_block(text), largest_block(out)))
        return out, cuts

    monkeypatch.setattr(binding, "split_huge_blocks", recording)
    run(compile_program(src + "// cut\n").program.kernels["k"], [b], (64,), (16,))
    assert (a == b).all()
    [(cuts, before, after)] = [s for s in seen if s[0]]
    assert before > 300 and after <= 41 and cuts >= before // 40 - 1


def test_by_default_blocks_of_loads_and_stores_are_cut_into_pieces_of_500() -> None:
    body = "".join(f"  %p{k} = getelementptr i32, ptr %a, i64 {k % 4}\n  %q{k} = getelementptr i32, ptr %b, i64 {k}\n"
                   f"  %x{k} = load i32, ptr %p{k}\n  %y{k} = load i32, ptr %q{k}\n  %s{k} = add i32 %x{k}, %y{k}\n"
                   f"  store i32 %s{k}, ptr %p{k}\n" for k in range(400))
    text = f"define void @f(ptr %a, ptr %b) {{\nentry:\n{body}  ret void\n}}\n"
    assert largest_block(text) == 2401
    out, cuts = split_huge_blocks(text)
    assert (MAX_BLOCK, PIECE) == (1000, 500)
    assert cuts == 4 and largest_block(out) <= PIECE + 1
    binding.verify_ir(out)
