"""What `half` allows before and after `#pragma OPENCL EXTENSION cl_khr_fp16 : enable`:
clang-14's messages at clang-14's places (each case was checked with
`clang-14 -x cl -cl-std=CL1.2 -fsyntax-only`), and the pragma's reach (enable,
disable, `all`, a header's pragma)."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError, SourceLocation
from oclpy.frontend.c.extension_pragmas import extension_pragmas
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module

from .sema_helpers import messages

ENABLE = "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
LOAD = "requires cl_khr_fp16. Use vector data load builtin functions instead"


@pytest.mark.parametrize("src, want", [
    ("kernel void k(global half *p, global float *q) { half x = p[0]; q[0] = x; }",
     ["1:55: declaring variable of type '__private half' is not allowed"]),
    ("half f1(half x);", ["1:6: declaring function return value of type 'half' is not allowed ; did you forget * ?",
                          "1:14: declaring function parameter of type '__private half' is not allowed; "
                          "did you forget * ?"]),
    ("kernel void k(global half *p, global float *o) { o[0] = p[0]; }",
     [f"1:57: loading directly from pointer to type '__global half' {LOAD}"]),
    ("kernel void k(global half *p) { p[1] = 1.0f; }",
     ["1:38: assigning directly to pointer to type 'half' requires cl_khr_fp16. "
      "Use vector data store builtin functions instead"]),
    ("kernel void k(global float *o) { o[1] = 1.0h; }", ["1:41: half precision constant requires cl_khr_fp16"]),
    ("kernel void k(global float *o) { o[3] = (half)2.0f; }", ["1:47: casting to type 'half' is not allowed"]),
    ("constant half ch = 1;", ["1:15: declaring variable of type '__constant half' is not allowed"]),
    ("void f() { half arr[4]; }", ["1:17: declaring variable of type '__private half[4]' is not allowed"]),
    ("void f(global float *o) { half4 v = (half4)(1.0f); o[0] = v.x; }",
     [f"1:59: loading directly from pointer to type '__private half' {LOAD}"]),
    # allowed without the extension: pointers, half vectors, struct fields, sizeof, vload_half
    ("struct S { half a; }; typedef half H; kernel void k(global half *p, global half4 *q, global float *o) "
     "{ half4 v; global half *r = p + 1; o[0] = sizeof(half) + vload_half(0, r); }", []),
])
def test_half_without_the_extension(src: str, want: list[str]) -> None:
    assert messages(src) == want


def test_the_pragma_enables_half_from_where_it_stands() -> None:
    src = ("kernel void a(global half *p) { half x = p[0]; }\n" + ENABLE
           + "kernel void b(global half *p) { half x = p[0] * 2.0h; p[1] = (half)x; }\n"
           "#pragma OPENCL EXTENSION cl_khr_fp16 : disable\n"
           "kernel void c(global half *p) { half x = p[0]; }\n"
           "#pragma OPENCL EXTENSION cl_khr_fp16 : enable\n"
           "#pragma OPENCL EXTENSION all : disable\n"
           "kernel void d(global half *p) { half x = p[0]; }\n")
    got = messages(src)
    assert got == ["1:38: declaring variable of type '__private half' is not allowed",
                   "5:38: declaring variable of type '__private half' is not allowed",
                   "8:38: declaring variable of type '__private half' is not allowed"]


def test_all_enable_is_ignored_as_clang_does() -> None:
    # clang: "expected 'disable' - ignoring"; the extension stays disabled
    assert messages("#pragma OPENCL EXTENSION all : enable\nvoid f() { half x; }") == [
        "2:17: declaring variable of type '__private half' is not allowed"]


def test_a_headers_pragma_reaches_the_includer(tmp_path) -> None:
    (tmp_path / "fp16.h").write_text(ENABLE)
    src = '#include "fp16.h"\nkernel void k(global half *p) { half x = p[0]; p[1] = x + 1.0h; }\n'
    result = compile_to_ir(src, f"-I{tmp_path}")
    assert "fadd half" in print_module(result.module)


def test_half_arithmetic_stays_half() -> None:
    src = ENABLE + "kernel void k(global half *p) { p[0] = p[1] * p[2] + sqrt(p[3]); }"
    ir = print_module(compile_to_ir(src).module)
    assert "fmul half" in ir and "fadd half" in ir and "@ocl.sqrt.f16" in ir


def test_the_image_library_keeps_its_pragma_to_itself() -> None:
    src = ("kernel void k(read_only image2d_t img, global float4 *o) { o[0] = read_imagef(img, (int2)(0, 0)); "
           "half x = 1; }")
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    assert "declaring variable of type '__private half' is not allowed" in info.value.log


def test_extension_pragmas_places_locations_in_text_order() -> None:
    text = ('#line 1 "a.cl"\nint x;\n#pragma OPENCL EXTENSION cl_khr_fp16 : enable\nint y;\n'
            '#line 1 "h.h"\n#pragma OPENCL EXTENSION cl_khr_fp16 : disable\nint z;\n')
    p = extension_pragmas(text)
    assert not p.enabled("cl_khr_fp16", SourceLocation("a.cl", 1, 5))
    assert p.enabled("cl_khr_fp16", SourceLocation("a.cl", 3, 5))
    assert not p.enabled("cl_khr_fp16", SourceLocation("h.h", 2, 1))
    assert not p.enabled("cl_khr_fp64", SourceLocation("a.cl", 3, 5))
    assert not p.enabled("cl_khr_fp16", SourceLocation("elsewhere", 9, 1))  # not shown: the state at the end


@pytest.mark.parametrize("src, want", [
    # the fast_ geometric functions are float only (clang: no half or double candidate)
    (ENABLE + "void f(half4 h) { fast_length(h); }", ["2:19: no matching function for call to 'fast_length'"]),
    ("void f(double2 d) { fast_normalize(d); }", ["1:21: no matching function for call to 'fast_normalize'"]),
    (ENABLE + "void f(half4 h) { length(h); distance(h, h); normalize(h); half_sqrt(h.x); }", []),
    # half and float arguments together: neither overload is better, as in clang
    (ENABLE + "void f(half h, float x) { fmax(h, x); }", ["2:27: call to 'fmax' is ambiguous"]),
])
def test_half_overloads_as_clang_declares_them(src: str, want: list[str]) -> None:
    assert messages(src) == want
