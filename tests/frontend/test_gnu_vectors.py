"""GCC's `__attribute__((vector_size(N)))` (and `__vector_size__`): N bytes of the element
type, an OpenCL vector in oclpy (clang's SemaOpenCL/init.cl builds a float8 of two of
them). clang's own rules for GCC vectors (no swizzles, bit-reinterpreting casts) are a
listed difference (tools/corpus/known_differences.toml). Also clang's stack-frame
builtins, which oclpy refuses with their own error (listed too)."""

from __future__ import annotations


import numpy as np
import pytest

from oclpy.frontend.driver import compile_to_ir
from tests.pocl_peer import pocl_context
from tests.frontend.sema_helpers import build_errors

cl = pytest.importorskip("oclpy")

SOURCE = """typedef float v4sf __attribute__((vector_size(16)));
typedef float v2sf __attribute__((vector_size(8)));
typedef float v3sf __attribute__((vector_size(12)));
typedef __attribute__((__vector_size__(16))) float pre;
typedef int v4si __attribute__((vector_size(16)));
kernel void k(global float *o, global int *p) {
  v4sf a = {1.0f, 2.0f, 3.0f, 4.0f};
  v2sf lo = {5.0f, 6.0f};
  float8 e = (float8)(a, a);
  float4 f4 = (float4)(lo, lo);
  float4 implicit = a;
  pre pp = a;
  v4sf b = a * 2.0f + implicit;
  v4si cmp = a > (v4sf){0.0f, 3.0f, 2.0f, 5.0f};
  a[2] = 9.0f;
  o[0] = e[5]; o[1] = f4[3]; o[2] = pp[0]; o[3] = b[1]; o[4] = a[2];
  p[0] = sizeof(v4sf); p[1] = sizeof(v3sf); p[2] = __alignof__(v3sf); p[3] = vec_step(v3sf);
  p[4] = cmp[0]; p[5] = cmp[1]; p[6] = cmp[2]; p[7] = sizeof(v2sf);
}"""
FLOATS = [2.0, 6.0, 1.0, 6.0, 9.0]
INTS = [16, 16, 16, 4, -1, 0, -1, 8]


def run(mod, ctx, queue) -> tuple[list[float], list[int]]:  # type: ignore[no-untyped-def]
    prg = mod.Program(ctx, SOURCE).build()
    o, p = np.zeros(5, np.float32), np.zeros(8, np.int32)
    flags = mod.mem_flags.READ_WRITE | mod.mem_flags.COPY_HOST_PTR
    bo, bp = mod.Buffer(ctx, flags, hostbuf=o), mod.Buffer(ctx, flags, hostbuf=p)
    mod.Kernel(prg, "k")(queue, (1,), None, bo, bp)
    mod.enqueue_copy(queue, o, bo)
    mod.enqueue_copy(queue, p, bp)
    return o.tolist(), p.tolist()


def errors(src: str) -> list[tuple[str, str]]:
    return build_errors(src)


def test_gcc_vectors_are_opencl_vectors(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    assert run(cl, ctx, q) == (FLOATS, INTS)


def test_gcc_vectors_on_pocl() -> None:
    pyopencl, ctx = pocl_context()
    assert run(pyopencl, ctx, pyopencl.CommandQueue(ctx)) == (FLOATS, INTS)


def test_clangs_init_cl_builds() -> None:
    src = """typedef float float8 __attribute((ext_vector_type(8)));
    typedef float float32_t;
    typedef __attribute__(( __vector_size__(16) )) float32_t __neon_float32x4_t;
    typedef struct __simd128_float32_t { __neon_float32x4_t val; } float32x4_t;
    float8 foo(float8 x) { float32x4_t lo; float32x4_t hi; return (float8) (lo.val, hi.val); }
    kernel void k(global float8 *o) { o[0] = foo(o[1]); }"""
    assert compile_to_ir(src).log == ""


def test_bad_vector_sizes_are_clangs_errors() -> None:
    src = """typedef struct { int a; } S;
typedef S vs __attribute__((vector_size(16)));
typedef bool vb __attribute__((vector_size(4)));
typedef float vbad __attribute__((vector_size(6)));
typedef float v5 __attribute__((vector_size(20)));
kernel void k(global float *o) { }"""
    assert errors(src) == [
        ("2:29", "invalid vector element type 'struct (anonymous)'"),
        ("3:32", "invalid vector element type 'bool'"),
        ("4:35", "vector size not an integral multiple of component size"),
        # clang takes any count (a listed difference, as for ext_vector_type)
        ("5:33", "vectors of 5 elements are not supported (OpenCL C vectors have 2, 3, 4, 8 or 16)"),
    ]


def test_stack_frame_builtins_are_refused_with_their_own_error() -> None:
    src = "kernel void k(global long *o) {\n  o[0] = (long)__builtin_frame_address(0);\n" \
          "  o[1] = (long)__builtin_return_address(0);\n}"
    assert errors(src) == [
        ("2:16", "'__builtin_frame_address' is not supported (oclpy's devices have no stack frames a program may "
                 "address)"),
        ("3:16", "'__builtin_return_address' is not supported (oclpy's devices have no stack frames a program may "
                 "address)"),
    ]
