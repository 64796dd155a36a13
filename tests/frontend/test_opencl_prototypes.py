"""OpenCL C's rules for prototypes as clang applies them (sema/prototypes.py): no variadic
functions but printf's and the implementation's, and printf's one signature from 1.2 on
(clang's SemaOpenCL/func.cl and CodeGenOpenCL/fpmath.cl)."""

from __future__ import annotations

import pytest

from oclpy.frontend.driver import compile_to_ir
from tests.frontend.sema_helpers import build_errors

VARIADIC = "invalid prototype, variadic arguments are not allowed in OpenCL"
CALL = '\nkernel void k() { printf("%d\\n", 1); }'


def test_variadic_prototypes_and_definitions_are_errors() -> None:
    src = "void vararg_f(int, ...);\nvoid __vararg_f(int, ...);\nvoid h(int n, ...) { }\nkernel void k() { }"
    assert build_errors(src) == [("1:6", VARIADIC), ("3:6", VARIADIC)]


def test_printf_may_be_declared_variadic_from_opencl_c_1_2() -> None:
    assert build_errors("int printf(__constant const char *st, ...);" + CALL, "CL1.1") == [("1:5", VARIADIC)]


@pytest.mark.parametrize("std", ["CL1.2", "CL2.0", "CL3.0"])
@pytest.mark.parametrize("decl", ["int printf(__constant const char *st, ...);",
                                  "extern int printf(const __constant char *const restrict fmt, ...);"])
def test_printfs_own_signature_names_the_builtin(decl: str, std: str) -> None:
    compile_to_ir(decl + CALL, f"-cl-std={std}")


@pytest.mark.parametrize("decl", ["void printf(constant char* fmt, ...);", "int printf(constant char *fmt, ...);",
                                  "int printf(const char *fmt, ...);", "int printf(__constant const char *st);"])
def test_printf_with_another_signature_conflicts(decl: str) -> None:
    assert build_errors(decl + CALL, "CL1.2")[0] == (f"1:{decl.index('printf') + 1}", "conflicting types for 'printf'")


def test_a_prototype_of_an_image_builtin_names_it() -> None:
    """clang's SemaOpenCL/sampler_t.cl declares `read_imagef` without `overloadable`: clang's
    builtins carry no such attribute, so the prototype redeclares the library's function."""
    src = """float4 read_imagef(read_only image2d_t, sampler_t, int2);
constant sampler_t s = CLK_NORMALIZED_COORDS_FALSE | CLK_ADDRESS_NONE | CLK_FILTER_NEAREST;
kernel void k(read_only image2d_t img, global float4 *o) { o[0] = read_imagef(img, s, (int2)(0, 0)); }"""
    compile_to_ir(src)


def test_a_program_function_redeclared_without_overloadable_is_still_an_error() -> None:
    src = "__attribute__((overloadable)) int f(int);\nint f(int);\nkernel void k() { }"
    assert build_errors(src) == [("2:5", "redeclaration of 'f' must have the 'overloadable' attribute")]
