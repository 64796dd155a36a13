"""OpenCL 2.0 generic address space: to_global / to_local / to_private /
get_fence in sema and lowering, and the named->named rules."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import module_problems

CL20 = "-cl-std=CL2.0"


def ir_text(src: str, options: str = CL20) -> str:
    module = compile_to_ir(src, options).module
    assert module_problems(module) == []
    return print_module(module)


def first_error(src: str, options: str = CL20) -> str:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src, options)
    return info.value.log.splitlines()[0]


def test_generic_pointer_becomes_intrinsic_calls() -> None:
    text = ir_text("""int f(int *p) { return (to_global(p) != NULL) + (to_local(p) != NULL) * 2
                                       + (to_private(p) != NULL) * 4 + get_fence(p); }
                      kernel void k(global int *o) { o[0] = f(o); }""")
    for space in ("global", "local", "private"):
        assert f"call ptr<{space}> @ocl.to_{space}(ptr<generic>" in text


def test_known_space_is_folded() -> None:
    text = ir_text("""kernel void k(global int *o, local int *l) {
        global int *g = to_global(o); local int *n = to_local(o); o[0] = get_fence(l); g[0] = n == NULL; }""")
    assert "@ocl.to_" not in text
    assert "store i32 1" in text  # get_fence of a local pointer: CLK_LOCAL_MEM_FENCE


def test_result_types_are_named_pointers() -> None:
    ir_text("kernel void k(global int *o) { int *p = o; global int *g = to_global(p); local int *l = to_local(p);"
            " private int *q = to_private(p); cl_mem_fence_flags f = get_fence(p); g[0] = f; }")


@pytest.mark.parametrize("src, message", [
    ("kernel void k(constant int *c, global int *o) { o[0] = *to_global(c); }",
     "1:67: error: invalid argument of type '__constant int *' to function: 'to_global', "
     "expecting a generic pointer argument"),
    ("kernel void k(global int *o) { int x = 0; o[0] = *to_local(x); }",
     "1:60: error: invalid argument of type 'int' to function: 'to_local', expecting a generic pointer argument"),
    ("kernel void k(global int *o) { local int *l = to_local(o, o); }",
     "1:47: error: too many arguments to function call, expected 1, have 2"),
    ("kernel void k(global int *g, local int *l) { l = (local int *)g; }",
     "1:50: error: casting '__global int *' to type '__local int *' changes address space of pointer"),
    ("kernel void k(global int *g) { int *p = g; global int *q = p; }",
     "1:60: error: initializing '__global int *' with an expression of type '__generic int *' "
     "changes address space of pointer"),
])
def test_generic_space_errors(src: str, message: str) -> None:
    assert first_error(src) == "<kernel>:" + message


def test_explicit_generic_to_named_cast_is_allowed() -> None:
    ir_text("kernel void k(global int *g) { int *p = g; global int *q = (global int *)p; q[0] = 1; }")


def test_to_global_is_undeclared_before_cl20() -> None:
    assert first_error("kernel void k(global int *o) { o[0] = *to_global(o); }", "") == (
        "<kernel>:1:40: error: implicit declaration of function 'to_global' is invalid in OpenCL")


def test_null_is_predefined() -> None:
    ir_text("kernel void k(global int *o) { global int *p = NULL; o[0] = p == NULL; }", "")
