"""`sizeof`, `__alignof__`/`_Alignof` and `vec_step` of expressions in integer constant
expressions that the parser folds (array sizes, enum values), and in case labels (issue
12: clang's spir64_target.cl, `int a[sizeof(x)]`, `sizeof(arr) / sizeof(arr[0])`).
The parser types the operand from the declarations in scope (`c/decl_types.py`).
sizeof_constants.cl writes each array's size; the values are what C and OpenCL C
give (checked against clang through PoCL where pyopencl finds it)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from oclpy.frontend.driver import compile_to_ir
from tests.pocl_peer import pocl_context
from tests.frontend.sema_helpers import build_errors

cl = pytest.importorskip("oclpy")

SOURCE = (Path(__file__).parent / "sizeof_constants.cl").read_text()
# a1..a22 of sizeof_constants.cl (S is {int, char, double}: 16 bytes, aligned 8;
# vec_step of a 3-vector is 4; `sizeof(x < 2)` is an int; `sizeof(&arr[1] - &arr[0])` a long;
# a19..a22 builtin calls: size_t, uint get_work_dim, float dot, float fmax(float, int),
# int4 isequal, uint abs(int), float4 fmax(float4, int))
SIZES = [4, 8, 24, 20, 40, 568, 3, 848, 1, 5, 444, 832, 448, 1684, 964, 148, 88, 1716,
         488, 4456, 568, 17656]
# o[0] selects a case label: sizeof(x), sizeof(S) * 2, _Alignof(S) + 1, sizeof(cs) + 1
CASES = {4: 1, 32: 2, 9: 3, 17: 4, 5: 0}


def run(mod, ctx, queue, selector: int) -> list[int]:  # type: ignore[no-untyped-def]
    prg = mod.Program(ctx, SOURCE).build()
    o = np.zeros(24, np.int32)
    o[0] = selector
    buf = mod.Buffer(ctx, mod.mem_flags.READ_WRITE | mod.mem_flags.COPY_HOST_PTR, hostbuf=o)
    vectors = mod.Buffer(ctx, mod.mem_flags.READ_WRITE, 64)
    mod.Kernel(prg, "k")(queue, (1,), None, buf, vectors, mod.LocalMemory(256))
    mod.enqueue_copy(queue, o, buf)
    return o.tolist()


def pocl():  # type: ignore[no-untyped-def]
    pyopencl, ctx = pocl_context()
    return pyopencl, ctx, pyopencl.CommandQueue(ctx)


def errors(src: str) -> list[tuple[str, str]]:
    return build_errors(src)


def test_sizes_and_case_labels(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    for selector, case in CASES.items():
        out = run(cl, ctx, q, selector)
        assert out[1] == case, selector
        assert out[2:2 + len(SIZES)] == SIZES


def test_sizes_and_case_labels_on_pocl() -> None:
    mod, ctx, q = pocl()
    for selector, case in CASES.items():
        out = run(mod, ctx, q, selector)
        assert out[1] == case and out[2:2 + len(SIZES)] == SIZES


def test_clangs_spir64_target_test_builds() -> None:
    # clang's CodeGenOpenCL/spir64_target.cl: a negative size would be an error
    src = """typedef struct { char c; void *v; void *v2; } my_st;
    kernel void foo(global long *arg) {
      int res1[sizeof(my_st) == 24 ? 1 : -1];
      int res2[sizeof(void *) == 8 ? 1 : -1];
      int res3[sizeof(arg) == 8 ? 1 : -1];
      arg[0] = sizeof(res1) + sizeof(res2) + sizeof(res3);
    }"""
    assert compile_to_ir(src).log == ""
    assert errors(src.replace("== 24", "== 16")) == [("3:16", "array has negative size")]


def test_sizeof_of_a_function_call_takes_its_return_type() -> None:
    src = "double h(int i);\nkernel void k(global int *o) { char a[sizeof(h(1))]; o[0] = sizeof(a); }\n" \
          "double h(int i) { return i; }"
    assert compile_to_ir(src).log == ""


def test_sizeof_of_a_builtin_call_clang_finds_ambiguous_is_rejected_on_its_line() -> None:
    # clang: "call to 'max' is ambiguous" (max(int, uint)), "call to 'sin' is ambiguous" (an int)
    for call in ("max(x, 2u)", "sin(x)", "mad24(x, 2u, 3)"):
        src = f"kernel void k(global int *o) {{\n  int x = 1;\n  char a[sizeof({call})];\n  o[0] = sizeof(a);\n}}"
        assert errors(src) == [("3:10", "array size is not an integer constant expression")], call


def test_undeclared_names_in_constant_expressions_are_clangs_error() -> None:
    assert errors("kernel void k(global int *o) {\n  char a[sizeof(o[zz + 1])];\n  o[0] = sizeof(a);\n}") == \
        [("2:19", "use of undeclared identifier 'zz'")]
    assert errors("kernel void k(global int *o) { char a[N]; o[0] = sizeof(a); }") == \
        [("1:39", "use of undeclared identifier 'N'")]


def test_vec_step_takes_scalars_vectors_and_void_only() -> None:
    # clang's SemaOpenCL/vec_step.cl: vec_step(void) is 1; a struct, pointer or function is an error
    src = """typedef int int16v __attribute__((ext_vector_type(16)));
void foo(int3 arg1) {
  struct S *incomplete1;
  int res1[vec_step(arg1) == 4 ? 1 : -1];
  int res12[vec_step(void) == 1 ? 1 : -1];
  int res13 = vec_step(*incomplete1);
  int res14 = vec_step(int16v*);
  int res15 = vec_step(void(void));
}
kernel void k() { foo((int3)(1)); }"""
    assert errors(src) == [
        ("6:24", "'vec_step' requires built-in scalar or vector type, '__private struct S' invalid"),
        ("7:15", "'vec_step' requires built-in scalar or vector type, '__private int16 *' invalid"),
        ("8:15", "'vec_step' requires built-in scalar or vector type, 'void (void)' invalid"),
    ]
