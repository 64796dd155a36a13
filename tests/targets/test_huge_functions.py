"""LLVM's SLP vectoriser spared on huge functions (targets/llvm/huge_functions.py, issue 13).

Structure, not time: the count of a function's instruction lines, the decision
against `SLP_MAX_INSTRUCTIONS`, and the optimised IR: four adjacent stores of sums
come out as one vector store below the bound and as four scalar stores above it.
"""

from __future__ import annotations

from oclpy.targets.llvm import binding, huge_functions
from oclpy.targets.llvm.huge_functions import largest_function, slp_vectorization

STORES = "".join(f"  %p{k} = getelementptr inbounds i32, ptr %a, i64 {k}\n"
                 f"  %q{k} = getelementptr inbounds i32, ptr %b, i64 {k}\n"
                 f"  %x{k} = load i32, ptr %p{k}, align 4\n"
                 f"  %y{k} = load i32, ptr %q{k}, align 4\n"
                 f"  %s{k} = add i32 %x{k}, %y{k}\n"
                 f"  store i32 %s{k}, ptr %p{k}, align 4\n" for k in range(4))
TEXT = f"""declare i32 @g(i32)

define void @f(ptr noalias %a, ptr noalias %b) {{
entry:
{STORES}  ret void
}}

define i32 @h(i32 %n) {{
entry:
  switch i32 %n, label %out [
    i32 0, label %out
  ]

out:
  ret i32 %n
}}
"""


def test_the_largest_function_counts_its_instruction_lines_only() -> None:
    assert largest_function(TEXT) == 25  # f: 24 and its ret; h: a switch (its case line is not one)
    assert largest_function("declare void @f()\n") == 0


def test_the_slp_vectoriser_is_kept_up_to_the_bound_and_dropped_past_it(monkeypatch) -> None:
    assert huge_functions.SLP_MAX_INSTRUCTIONS >= 10000
    assert slp_vectorization(TEXT)
    monkeypatch.setattr(huge_functions, "SLP_MAX_INSTRUCTIONS", 24)
    assert not slp_vectorization(TEXT)


def test_past_the_bound_the_stores_stay_scalar(monkeypatch) -> None:
    monkeypatch.setenv("OCLPY_LLVM_HELPER", "0")  # optimised in this process
    packed = binding.compile_ir(TEXT).optimized_ir
    assert "store <4 x i32>" in packed and "store i32" not in packed
    monkeypatch.setattr(huge_functions, "SLP_MAX_INSTRUCTIONS", 24)
    scalar = binding.compile_ir(TEXT + "; past the bound\n").optimized_ir
    assert "<4 x i32>" not in scalar and scalar.count("store i32") == 4
