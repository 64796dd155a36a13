"""Address constants past a global's start in program-scope and static initializers
(issue 12: clang's `&t[2]`, `t + 1`, `&s.f` as pointer initializers), and OpenCL C
2.0's static local variables that may hold them. Each kernel runs on the first device
and, where PoCL is installed (through pyopencl), on PoCL too: both must agree with the
values the C says. The IR side is tests/filecheck/global-dce/constant_offsets.oir.
Also null pointers cast between address spaces at program scope (clang's amdgpu-nullptr.cl)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.printer import print_module
from tests.pocl_peer import pocl_context
from tests.frontend.sema_helpers import build_errors

cl = pytest.importorskip("oclpy")

TABLE = """constant int t[4] = {10, 20, 30, 40};
typedef struct { int a; float b; int c[3]; } S;
constant S s = {1, 2.5f, {7, 8, 9}};
constant int *constant third = &t[2];
constant int *constant second = t + 1;
constant int *constant back = &t[3] - 2;
constant float *constant field = &s.b;
constant int *constant inner = &s.c[1];
constant char *constant text = "hello" + 2;
typedef struct { constant int *p; int n; } Entry;
constant Entry entries[2] = { { t + 3, 1 }, { &s.c[2], 2 } };
"""
KERNEL = """kernel void k(global int *o) {
    o[0] = *third; o[1] = *second; o[2] = *back; o[3] = (int)(*field * 2.0f);
    o[4] = *inner; o[5] = text[0]; o[6] = *entries[0].p; o[7] = *entries[1].p + entries[1].n;
}"""
EXPECTED = [30, 20, 20, 5, 8, ord("l"), 40, 11]

CL2 = """constant int t[4] = {10, 20, 30, 40};
typedef struct { int a; float b; int c[3]; } S;
global S g = {1, 2.0f, {7, 8, 9}};
constant int *p = &t[2];
global int *pg = &g.c[2];
global float *pf = &g.b;
kernel void k(global int *o) {
    static constant int *const sp = &t[1];
    static int counter = 5;
    static global int *pc = &counter;
    *pc += 1;
    o[0] = *p; o[1] = *pg + (int)*pf; o[2] = *sp; o[3] = counter;
    *pg = 100; o[4] = g.c[2];
}"""
CL2_EXPECTED = [30, 11, 20, 6, 100]


def run(mod, ctx, queue, src: str, n: int, options: str = "") -> list[int]:  # type: ignore[no-untyped-def]
    """Kernel `k(global int *o)` of `src` on one work-item, through `mod` (oclpy or PyOpenCL)."""
    prg = mod.Program(ctx, src).build(options=options)
    out = np.zeros(n, np.int32)
    buf = mod.Buffer(ctx, mod.mem_flags.READ_WRITE | mod.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(queue, (1,), None, buf)
    mod.enqueue_copy(queue, out, buf)
    return out.tolist()


def run_oclpy(queue, src: str, n: int, options: str = "") -> list[int]:  # type: ignore[no-untyped-def]
    ctx, q = queue
    return run(cl, ctx, q, src, n, options)


def run_pocl(src: str, n: int, options: str = "") -> list[int]:
    pyopencl, ctx = pocl_context()
    version = ctx.devices[0].opencl_c_version
    if "-cl-std=CL2.0" in options and not version.startswith(("OpenCL C 2", "OpenCL C 3")):
        pytest.skip(f"this PoCL's device takes no -cl-std=CL2.0 ({version})")
    return run(pyopencl, ctx, pyopencl.CommandQueue(ctx), src, n, options)


def errors(src: str, std: str = "CL1.2") -> list[tuple[str, str]]:
    return build_errors(src, std)


def test_addresses_past_a_globals_start(queue) -> None:  # type: ignore[no-untyped-def]
    assert run_oclpy(queue, TABLE + KERNEL, 8) == EXPECTED


def test_addresses_past_a_globals_start_on_pocl() -> None:
    assert run_pocl(TABLE + KERNEL, 8) == EXPECTED


def test_opencl_c_2_program_scope_and_static_pointers(queue) -> None:  # type: ignore[no-untyped-def]
    assert run_oclpy(queue, CL2, 5, "-cl-std=CL2.0") == CL2_EXPECTED


def test_opencl_c_2_program_scope_and_static_pointers_on_pocl() -> None:
    # PoCL (pthread device) loses a static local's initializer once the kernel writes the
    # variable: `kernel void k(global int *o) { static int n = 5; n += 1; o[0] = n; }`
    # gives 1 (clang's IR keeps `@k.n = internal addrspace(1) global i32 5`; oclpy gives 6);
    # so on PoCL the static counter is written through a program-scope pointer only
    src = CL2.replace("static int counter = 5;", "").replace("&counter", "&g.a")
    assert run_pocl(src.replace("o[3] = counter", "o[3] = g.a"), 5, "-cl-std=CL2.0") == [30, 11, 20, 2, 100]


def test_the_ir_holds_byte_offsets_from_the_globals() -> None:
    text = print_module(compile_to_ir(TABLE + KERNEL).module)
    assert "@third = addrspace(constant) constant ptr<constant> getelementptr (i8, ptr<constant> @t, i64 8)" in text
    assert "@back = addrspace(constant) constant ptr<constant> getelementptr (i8, ptr<constant> @t, i64 4)" in text
    assert "@field = addrspace(constant) constant ptr<constant> getelementptr (i8, ptr<constant> @s, i64 4)" in text
    assert "@inner = addrspace(constant) constant ptr<constant> getelementptr (i8, ptr<constant> @s, i64 12)" in text
    assert re.search(r"@text = .* getelementptr \(i8, ptr<constant> @\.str\.\d+, i64 2\)", text), text
    assert re.search(r"\{ptr<constant> getelementptr \(i8, ptr<constant> @s, i64 16\), i32 2\}", text), text
    cl2 = print_module(compile_to_ir(CL2, "-cl-std=CL2.0").module)
    assert "@k.sp = addrspace(global) global ptr<constant> getelementptr (i8, ptr<constant> @t, i64 4)" in cl2
    assert "@k.pc = addrspace(global) global ptr<global> @k.counter" in cl2


def test_static_locals_need_opencl_c_2_and_a_global_or_constant_space() -> None:
    # clang: none before 2.0; from 2.0 an unqualified one is global, private and local are errors
    src = "kernel void k(global int *o) {\n  static constant int c = 1;\n  static int n;\n  o[0] = c + n;\n}"
    assert errors(src) == [("2:23", "variables in function scope cannot be declared static"),
                           ("3:14", "variables in function scope cannot be declared static")]
    src = "kernel void k(global int *o) {\n  static private int a = 1;\n  static local int b;\n  o[0] = a + b;\n}"
    message = "static local variable must reside in global or constant address space"
    assert errors(src, "CL2.0") == [("2:22", message), ("3:20", message)]


def test_an_address_that_is_no_constant_is_still_an_error() -> None:
    # a kernel's private variable has no address before the kernel runs
    src = "kernel void k(global int *o) {\n  int x[2];\n  static int *p = &x[1];\n  o[0] = *p;\n}"
    assert errors(src, "CL2.0") == [("3:19", "initializer element is not a compile-time constant")]


# integers folded from address constants, as clang folds them (issue 12): offsetof's idiom
# on a null pointer, the difference of two addresses into one object, a comparison with null
INTEGERS = """constant int t[4] = {10, 20, 30, 40};
typedef struct { int a; char b; long c[3]; } S;
constant long l6 = (long)((constant int *)0 + 3);
constant long l7 = &t[3] - &t[0];
constant size_t l8 = (size_t)&((constant int *)0)[5];
constant size_t l9 = (size_t)&((S *)0)->c[2];
constant bool b10 = &t[1] != 0;
constant int i11 = &t[3] > &t[1];
constant int i12 = (bool)&t[2] + (&t[1] == t + 1) * 10;
kernel void k(global int *o) {
    o[0] = l6; o[1] = l7; o[2] = l8; o[3] = l9; o[4] = b10; o[5] = i11; o[6] = i12;
}"""
INTEGERS_EXPECTED = [12, 3, 20, 24, 1, 1, 11]


def test_integers_folded_from_addresses(queue) -> None:  # type: ignore[no-untyped-def]
    assert run_oclpy(queue, INTEGERS, 7) == INTEGERS_EXPECTED


def test_integers_folded_from_addresses_on_pocl() -> None:
    assert run_pocl(INTEGERS, 7) == INTEGERS_EXPECTED


def test_integers_from_an_objects_address_are_clangs_errors() -> None:
    # clang-14: "initializer element is not a compile-time constant" on both (an object's
    # address has no value as an integer before the program is placed)
    src = "constant int t[2] = {1, 2};\nconstant long d = (long)&t[1] - (long)&t[0];\n" \
          "constant int i = (int)(long)&t[0];\nkernel void k(global int *o) { o[0] = d + i; }"
    message = "initializer element is not a compile-time constant"
    assert errors(src) == [("2:19", message), ("3:18", message)]


def test_integer_addresses_and_address_integers_clang_takes_are_listed_differences() -> None:
    # clang-14 accepts each of these (tools/corpus/known_differences.toml says why oclpy does not)
    head = "constant int t[2] = {1, 2};\n"
    kernel = "\nkernel void k(global int *o) { o[0] = 1; }"
    unsupported = "an integer address other than null in a constant pointer initializer is not supported by oclpy"
    for decl in ("constant int *constant p = (constant int *)0 + 4;", "constant int *constant p = (constant int *)16;"):
        assert errors(head + decl + kernel) == [("2:28", unsupported)], decl
    as_integer = "the address of a program-scope object as an integer is not supported by oclpy in a constant initializer"
    for decl in ("constant long l = (long)&t[1];", "constant ulong l = (ulong)(t + 1);",
                 "constant int *constant p = (constant int *)(long)&t[1];"):
        assert [m for _, m in errors(head + decl + kernel)] == [as_integer], decl


# null pointers cast between address spaces (issue 12: clang's amdgpu-nullptr.cl): a null
# pointer of one space cast to another is that space's null (OpenCL C 2.0 6.5.5), also at
# program scope, in struct fields and arrays; `(void)0, 0` folds to 0 as clang folds it
NULLS = """typedef struct { private char *p1; local char *p2; constant char *p3; global char *p4; generic char *p5; } S;
generic int *fold_generic = (global int *)(generic float *)(private char *)0;
private short *fold_priv = (private short *)(generic int *)(global void *)0;
local int *fold_local = (local int *)(generic int *)((void *)0);
global int *fold_global = (global int *)(generic char *)(local char *)0;
constant int *c0 = 0;
S s = {(private char *)(generic char *)0, (local char *)(generic char *)(global char *)0, 0,
       (global char *)(generic char *)(private char *)0, (global char *)0};
generic int *arr[3] = {(global int *)0, (local int *)0, (private int *)(generic int *)0};
int fold_int = (int)(private void *)(generic char *)(global int *)0 + 14;
int fold_int2 = (int)((private void *)0 + 13);
int fold_int_local = (int)(local void *)(generic char *)(global int *)0 + 14;
long fold_long_local = (long)((local int *)0);
kernel void k(global int *o) {
  static private char *sp4 = (private char *)((void)0, 0);
  static local char *lp = (local char *)(generic char *)(global char *)0;
  o[0] = fold_generic == NULL; o[1] = fold_priv == 0; o[2] = fold_local == NULL; o[3] = fold_global == 0;
  o[4] = c0 == 0; o[5] = s.p1 == 0; o[6] = s.p2 == NULL; o[7] = s.p3 == 0; o[8] = s.p4 == NULL;
  o[9] = s.p5 == NULL; o[10] = arr[0] == NULL; o[11] = arr[1] == NULL; o[12] = arr[2] == NULL;
  o[13] = sp4 == 0; o[14] = lp == 0;
  global int *gnull = o[20] ? o : 0;
  local int scratch[1];
  local int *lnull = o[20] ? scratch : 0;
  o[15] = fold_int == (int)(private void *)(generic char *)gnull + 14;
  o[16] = fold_int2 == (int)((private void *)(generic int *)gnull + 13);
  o[17] = fold_int_local == (int)(local void *)(generic char *)gnull + 14;
  o[18] = fold_long_local == (long)lnull;
  o[19] = fold_int;
}"""


def test_null_pointers_cast_between_address_spaces_are_null() -> None:
    import oclpy

    for device in oclpy.get_platforms()[0].get_devices():
        ctx = oclpy.Context([device])
        # o[20] is 0: the kernel's own conversions of null pointers it cannot fold give
        # what the program-scope initializers hold (simt's private and local null is all ones)
        out = run(oclpy, ctx, oclpy.CommandQueue(ctx), NULLS, 21, "-cl-std=CL2.0")
        assert out[:19] == [1] * 19, (device.name, out)
        assert out[19] == (13 if "simt" in device.name else 14), (device.name, out)


def test_null_pointers_cast_between_address_spaces_in_the_ir() -> None:
    text = print_module(compile_to_ir(NULLS, "-cl-std=CL2.0").module)
    for decl in ("@fold_generic = addrspace(global) global ptr<generic> null",
                 "@fold_priv = addrspace(global) global ptr<private> null",
                 "@fold_local = addrspace(global) global ptr<local> null",
                 "@fold_global = addrspace(global) global ptr<global> null",
                 "@s = addrspace(global) global {ptr<private>, ptr<local>, ptr<constant>, ptr<global>, ptr<generic>} "
                 "{ptr<private> null, ptr<local> null, ptr<constant> null, ptr<global> null, ptr<generic> null}",
                 "@arr = addrspace(global) global [3 x ptr<generic>] [ptr<generic> null, ptr<generic> null, ptr<generic> null]",
                 "@fold_int = addrspace(global) global i32 14", "@fold_int2 = addrspace(global) global i32 13",
                 "@fold_int_local = addrspace(global) global i32 14", "@fold_long_local = addrspace(global) global i64 0",
                 "@k.sp4 = addrspace(global) global ptr<private> null", "@k.lp = addrspace(global) global ptr<local> null"):
        assert decl in text, decl


def test_integers_from_null_pointers_follow_the_targets_null() -> None:
    # simt's private and local null is all ones (as amdgcn's): clang's amdgcn values
    from oclpy.targets.simt.memory_model import SIMT_LAYOUT

    text = print_module(compile_to_ir(NULLS, "-cl-std=CL2.0", layout=SIMT_LAYOUT).module)
    for decl in ("@fold_int = addrspace(global) global i32 13", "@fold_int2 = addrspace(global) global i32 12",
                 "@fold_int_local = addrspace(global) global i32 13",
                 "@fold_long_local = addrspace(global) global i64 4294967295"):
        assert decl in text, decl


def test_what_clang_rejects_or_oclpy_lists_stays_an_error() -> None:
    kernel = "\nkernel void k(global int *o) { o[0] = 1; }"
    unsupported = "an integer address other than null in a constant pointer initializer is not supported by oclpy"
    # clang folds these to inttoptr constants: a listed difference (known_differences.toml)
    assert errors("private char *p = (private char *)0 + 10;" + kernel, "CL2.0") == [("1:19", unsupported)]
    assert errors("global int *p = (global int *)((void)0, 1);" + kernel, "CL2.0") == [("1:17", unsupported)]
    # a non-null integer address moved to another space: no value oclpy can give on every target
    assert errors("generic int *p = (generic int *)(private char *)16;" + kernel, "CL2.0") == \
        [("1:18", "initializer element is not a compile-time constant")]
    # clang's errors: `__constant` is no part of the generic space, in casts and in conversions
    src = "constant int *a = (constant int *)((void *)0);\nconstant int *b = (constant int *)(generic int *)0;\n" \
          "generic int *c = (generic int *)(constant int *)0;" + kernel
    assert errors(src, "CL2.0") == [
        ("1:19", "casting '__generic void *' to type '__constant int *' changes address space of pointer"),
        ("2:19", "casting '__generic int *' to type '__constant int *' changes address space of pointer"),
        ("3:18", "casting '__constant int *' to type '__generic int *' changes address space of pointer")]
    src = "void f(generic const int *p);\nkernel void k(constant int *q) {\n  generic const int *p = q;\n  f(q);\n}"
    assert errors(src, "CL2.0") == [
        ("3:26", "initializing '__generic const int *' with an expression of type '__constant int *' "
                 "changes address space of pointer"),
        ("4:5", "passing '__constant int *' to parameter of type '__generic const int *' changes address space of pointer")]


def test_a_comma_with_a_constant_discarded_operand_folds() -> None:
    # clang's errors are on the same lines, at the variable read (3:17, 4:11)
    src = "int x = ((void)0, 5);\nint y = (1, 2);\nint z = ((void)x, 3);\nint w = (x, 3);\n" \
          "kernel void k(global int *o) { o[0] = x; }"
    message = "initializer element is not a compile-time constant"
    assert errors(src, "CL2.0") == [("3:10", message), ("4:10", message)]


# a global's address converted to generic at program scope (clang: an addrspacecast constant)
GENERIC_ADDRESSES = """typedef struct { int a; int c[3]; } S;
global int g = 5;
global S gs = {1, {7, 8, 9}};
generic int *gp = &g;
generic int *gp2 = &gs.c[1];
global int *back = (global int *)(generic int *)&gs.c[2];
generic int *arr[2] = {&g, (generic int *)&gs.a};
struct { generic int *p; int n; } st = {&gs.c[0], 3};
kernel void k(global int *o) {
  static generic int *sp = &g;
  o[0] = *gp; o[1] = *gp2; o[2] = *back; o[3] = *arr[0] + *arr[1]; o[4] = *st.p + st.n; o[5] = *sp;
  *gp = 42; o[6] = g; o[7] = gp == (generic int *)&g;
}"""


def test_generic_addresses_of_globals_at_program_scope() -> None:
    import oclpy

    for device in oclpy.get_platforms()[0].get_devices():
        ctx = oclpy.Context([device])
        out = run(oclpy, ctx, oclpy.CommandQueue(ctx), GENERIC_ADDRESSES, 8, "-cl-std=CL2.0")
        assert out == [5, 8, 9, 6, 10, 5, 42, 1], (device.name, out)
    text = print_module(compile_to_ir(GENERIC_ADDRESSES, "-cl-std=CL2.0").module)
    assert "@gp2 = addrspace(global) global ptr<generic> addrspacecast (ptr<global> " \
           "getelementptr (i8, ptr<global> @gs, i64 8) to ptr<generic>)" in text
    assert "@back = addrspace(global) global ptr<global> getelementptr (i8, ptr<global> @gs, i64 12)" in text


def test_a_globals_address_cast_to_another_named_space_is_no_constant() -> None:
    # clang-14 and 23 take it (an addrspacecast of @g to local, a pointer to nothing
    # oclpy could place); oclpy says it is no constant
    src = "global int g;\nlocal int *lp = (local int *)(generic int *)&g;\nkernel void k(global int *o) { o[0] = 1; }"
    assert errors(src, "CL2.0") == [("2:17", "initializer element is not a compile-time constant")]
