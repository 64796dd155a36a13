"""Images and samplers in the frontend: where the types may appear, access
qualifiers, sampler constants, kernel-argument info, and the image library
(built only when named, under any options, dropped by global-dce when unused)."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.c.builtins.images import library_source, wants_images
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module
from oclpy.ir.verifier import module_problems

USE = ("kernel void k(read_only image2d_t i, sampler_t s, global float4 *o)"
       "{ o[0] = read_imagef(i, s, (float2)(0.5f, 0.5f)); }")


def errors(src: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    assert "internal compiler error" not in info.value.log
    return [line for line in info.value.log.splitlines() if ": error: " in line]


@pytest.mark.parametrize("options", ["", "-Werror", "-cl-std=CL2.0", "-cl-std=CL3.0", "-cl-fast-relaxed-math",
                                     "-O0", "-Dh=1 -Dc=2 -Dp=3 -Dv=4 -DOCLPY_WORDS=5 -Dx=6"])
def test_the_library_builds_quietly_under_any_options(options):
    result = compile_to_ir(USE, options)
    assert result.log == ""
    assert module_problems(result.module) == []


def test_the_library_comes_only_when_an_image_function_is_named():
    plain = compile_to_ir("kernel void k(image2d_t i, global int *o) { o[0] = 1; }")
    assert "__oclpy_" not in print_module(plain.module)
    assert "__oclpy_texel" in print_module(compile_to_ir(USE).module)
    assert wants_images("x = get_image_width(img);") and not wants_images("my_read_imagef(x)")
    assert "read_imagef" in library_source()


def test_kernel_argument_info():
    k = next(f for f in compile_to_ir(
        "kernel void k(image3d_t a, write_only image2d_t b, read_write image1d_t c, sampler_t s) {}",
        "-cl-std=CL2.0").module.functions if f.name == "k")
    assert [a.attrs["type_name"] for a in k.args] == ["image3d_t", "image2d_t", "image1d_t", "sampler_t"]
    assert [a.attrs["access_qualifier"] for a in k.args] == ["read_only", "write_only", "read_write", "none"]
    assert [a.attrs["opaque"] for a in k.args] == ["image", "image", "image", "sampler"]
    assert [a.attrs["address_qualifier"] for a in k.args] == ["global", "global", "global", "private"]


def test_sampler_constants_fold_to_their_bits():
    src = ("constant sampler_t a = CLK_NORMALIZED_COORDS_TRUE | CLK_ADDRESS_REPEAT | CLK_FILTER_LINEAR;\n"
           "const sampler_t b = CLK_ADDRESS_CLAMP;\n" + USE.replace("read_imagef(i, s,", "read_imagef(i, a,"))
    text = print_module(compile_to_ir(src).module)
    assert "@a = addrspace(constant) constant i32 39" in text
    assert "@b = addrspace(constant) constant i32 4" in text


@pytest.mark.parametrize("src, message", [
    ("kernel void k(image2d_t i) { image2d_t j = i; }",
     "1:40: error: type 'image2d_t' can only be used as a function parameter in OpenCL"),
    ("kernel void k(global image2d_t *i) {}", "1:33: error: pointer to type 'image2d_t' is invalid in OpenCL"),
    ("kernel void k(image2d_t i) { image2d_t a[2]; }",
     "1:40: error: array of 'image2d_t' type is invalid in OpenCL"),
    ("sampler_t s = 0;", "1:11: error: global sampler requires a const or constant address space qualifier"),
    ("struct S { image2d_t i; };\nkernel void k(global struct S *s) {}",
     "1:1: error: the 'image2d_t' type cannot be used to declare a structure or union field"),
    ("kernel void k(read_only image2d_depth_t i) {}",
     "1:41: error: image type 'image2d_depth_t' is not supported (oclpy has no depth or multisample images)"),
    ("kernel void k(global float *o) { const sampler_t s = 2.5f; }",
     "1:54: error: initializing 'sampler_t' with an expression of incompatible type 'float'"),
    ("kernel void k(image2d_t i, write_only image2d_t o) { write_imagef(i, (int2)(0, 0), (float4)(1.0f)); }",
     "1:54: error: 'write_imagef' needs a write_only or read_write image, but 'i' is read_only"),
    ("kernel void k(write_only image2d_t o, global int4 *d) { d[0] = read_imagei(o, (int2)(0, 0)); }",
     "1:64: error: 'read_imagei' needs a read_only or read_write image, but 'o' is write_only"),
    ("kernel void k(image2d_t i, global int *o) { o[0] = get_image_depth(i); }",
     "1:68: error: passing 'image2d_t' to parameter of incompatible type 'image3d_t'"),
    ("kernel void k(sampler_t s, global int *o) { o[0] = s + 1; }",
     "1:54: error: invalid operands to binary expression ('sampler_t' and 'int')"),
])
def test_misuses_are_diagnosed(src, message):
    assert errors(src)[0] == f"<kernel>:{message}"


def test_read_write_images_may_be_read_and_written_from_opencl_c_2_0():
    src = ("kernel void k(read_write image2d_t i) { int2 p = (int2)(0, 0);"
           " write_imageui(i, p, read_imageui(i, p) + 1u); }")
    assert compile_to_ir(src, "-cl-std=CL2.0").log == ""
    assert compile_to_ir(src, "-cl-std=CL3.0").log == ""
    assert errors(src) == ["<kernel>:1:36: error: access qualifier 'read_write' can not be used for "
                           "'__read_write image2d_t' prior to OpenCL C version 2.0"]


def test_an_integer_sampler_argument_and_a_user_read_image():
    src = ("int read_image(int x) { return x; }\n"
           "kernel void k(write_only image2d_t o, read_only image2d_t i, global float4 *r) {"
           " r[0] = read_imagef(i, CLK_NORMALIZED_COORDS_FALSE | CLK_FILTER_NEAREST, (int2)(0, 0))"
           " + (float4)(read_image(3)); }")
    assert compile_to_ir(src).log == ""


def test_access_qualifiers_only_qualify_images():
    """clang's SemaOpenCL/access-qualifier.cl: `typedef read_only int IntRO;` and the like."""
    src = ("typedef read_only int IntRO;\nvoid f(read_only int x);\n"
           "kernel void k(global int *o) { read_only int y = 1; o[0] = y; }\n"
           "typedef read_only image2d_t I;\nvoid g(write_only I img);\n")
    message = "error: access qualifier can only be used for pipe and image type"
    assert errors(src) == [f"<kernel>:1:9: {message}", f"<kernel>:2:8: {message}", f"<kernel>:3:32: {message}"]


def test_an_access_qualified_pipe_gets_only_the_pipe_error():
    """`read_only pipe int p` (SPIR-V translator's pipe_builtins.cl): oclpy offers no pipes,
    and that is the error; the access qualifier is not reported as misplaced as well."""
    src = "kernel void k(read_only pipe int p, global int *o) { o[0] = 1; }\n"
    assert errors(src)[0] == "<kernel>:1:25: error: unknown type name 'pipe'"
    assert not [e for e in errors(src) if "access qualifier" in e]
