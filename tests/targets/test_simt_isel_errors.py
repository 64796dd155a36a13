"""What simt's instruction selection cannot compile is a build error that says why."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.ir.parser import parse_module
from oclpy.passes.manager import run_pipeline
from oclpy.targets.simt.isel import SelectError, select_module
from tests.targets.simt_cl_harness import compile_cl


def cl_error(source: str, options: str = "") -> str:
    with pytest.raises(CompileError) as info:
        compile_cl(source, options=options)
    return str(info.value)


def test_too_much_local_memory() -> None:
    log = cl_error("kernel void k(global int *o) { local int big[20000]; big[get_local_id(0)] = 1; "
                   "barrier(CLK_LOCAL_MEM_FENCE); o[0] = big[3]; }")
    assert "error: simt: kernel 'k' needs 80000 bytes of __local memory; a simt work-group has 65536" in log


def test_the_address_of_a_local_variable_in_a_program_scope_initializer() -> None:
    """Program-scope data holds addresses of `__constant` and `__global` variables (relocated
    when the program is loaded, constant_data.py); a `__local` variable has no address before
    a work-group runs (OpenCL C cannot write this; IR can)."""
    text = """@tile = addrspace(local) global [4 x i32], align 4
@p = addrspace(constant) constant ptr<local> @tile, align 8
kernel void @k(ptr<global> %o) {
entry:
  %q = load ptr<local>, ptr<constant> @p
  %v = load i32, ptr<local> %q
  store i32 %v, ptr<global> %o
  ret void
}
"""
    with pytest.raises(SelectError, match=r"simt: the initializer of @p holds the address of @tile, a local "
                                          r"variable, which has no address before a launch"):
        select_ir(text)


def test_math_function_without_a_formula(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every OpenCL math builtin has a formula today; one taken out of the table is a build
    error naming it, not an internal error."""
    from oclpy.targets.simt import math_library
    monkeypatch.delitem(math_library.FORMULAS, "tgamma")
    log = cl_error("kernel void k(global double *o) { o[0] = tgamma(o[1]); }")
    assert "the math function 'tgamma' on double is not supported on simt yet" in log


def test_printf_with_more_arguments_than_a_record_holds() -> None:
    args = ", ".join(["x"] * 127)
    log = cl_error(f'kernel void k(int x) {{ printf("{"%d" * 127}", {args}); }}')
    assert "printf with 127 arguments (simt takes at most 126)" in log


def select_ir(text: str) -> None:
    select_module(parse_module(text))


def test_frem_names_the_instruction() -> None:
    with pytest.raises(SelectError, match=r"in function 'k', instruction '%r = frem half %a, %b': frem"):
        select_ir("kernel void @k(ptr<global> %p, half %a, half %b) {\nentry:\n"
                  "  %r = frem half %a, %b\n  store half %r, ptr<global> %p\n  ret void\n}\n")


def test_private_atomics() -> None:
    with pytest.raises(SelectError, match="atomics on private memory are not supported on simt"):
        select_ir("kernel void @k() {\nentry:\n  %a = alloca i32\n"
                  "  %r = atomicrmw add ptr<private> %a, i32 1 scope(work_item) monotonic\n  ret void\n}\n")


IRREDUCIBLE = """kernel void @k(i32 %n) {
entry:
  %c = icmp slt i32 %n, 3
  condbr i1 %c, label %a, label %b

a:
  %d = icmp slt i32 %n, 5
  condbr i1 %d, label %b, label %done

b:
  %e = icmp slt i32 %n, 7
  condbr i1 %e, label %a, label %done

done:
  ret void
}
"""


def test_irreducible_control_flow_is_refused_without_the_split_and_selected_after_it() -> None:
    with pytest.raises(SelectError, match="in function 'k': irreducible control flow is not supported on simt"):
        select_ir(IRREDUCIBLE)
    module = parse_module(IRREDUCIBLE)
    run_pipeline(module, "split-irreducible", verify_each=True)
    select_module(module)


def test_an_irreducible_function_past_the_split_bound_is_still_a_build_error() -> None:
    module = parse_module(IRREDUCIBLE)
    run_pipeline(module, "split-irreducible{max_blocks=4}", verify_each=True)
    with pytest.raises(SelectError, match="irreducible control flow is not supported on simt"):
        select_module(module)


def test_calling_a_declaration() -> None:
    with pytest.raises(SelectError, match="call to @ext, which is declared but not defined"):
        select_ir("declare i32 @ext(i32 %x)\n\nkernel void @k(i32 %n) {\nentry:\n"
                  "  %r = call i32 @ext(i32 %n)\n  ret void\n}\n")


def test_a_large_aggregate_carried_around_a_loop_is_refused() -> None:
    """A phi of a struct held by reference at a loop header could keep last iteration's
    address while its definition overwrites the memory (isel_aggregates.py): refused, by
    name (the frontend keeps aggregate locals in allocas and never makes one)."""
    text = """kernel void @k(ptr<private> %p, i32 %n) {
entry:
  %a = load {[80 x float]}, ptr<private> %p
  br label %loop
loop:
  %v = phi {[80 x float]} [ %a, %entry ], [ %b, %loop ]
  %i = phi i32 [ 0, %entry ], [ %j, %loop ]
  %b = load {[80 x float]}, ptr<private> %p
  %j = add i32 %i, 1
  %c = icmp slt i32 %j, %n
  condbr i1 %c, label %loop, label %done
done:
  store {[80 x float]} %v, ptr<private> %p
  ret void
}
"""
    with pytest.raises(SelectError, match=r"in function 'k', instruction '%v = phi .*': a 320-byte aggregate "
                                          r"carried around a loop as a value is not supported on simt"):
        select_ir(text)
