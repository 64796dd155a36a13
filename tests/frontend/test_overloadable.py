"""clang's `__attribute__((overloadable))` (issue 12): overloads of one name chosen
by argument types, mangled IR names, at most one unmarked overload, and clang's
diagnostics for conflicting declarations and ambiguous or impossible calls."""

from __future__ import annotations

import re

import numpy as np
import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

cl = pytest.importorskip("oclpy")


def diagnostics(src: str) -> list[str]:
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    return re.findall(r"^<kernel>:(\d+:\d+: (?:error|warning|note): .*)$", info.value.log, re.M)


OVERLOADS = """#define OVL __attribute__((overloadable))
OVL float sq(float x) { return x * x; }
OVL double sq(double x) { return x * x + 0.5; }
OVL float4 sq(float4 v) { return v * v; }
OVL int sq(int x) { return x * x + 1; }
OVL int first(global const int *p) { return p[0]; }
OVL int first(local const int *p) { return p[0] + 1000; }
OVL int first(private const int *p) { return p[0] + 2000; }
int plain(int x);
OVL int plain(float x) { return (int)x * 3; }
int plain(int x) { return x + 7; }
OVL long pick(long x) { return 1; }
OVL long pick(int x) { return 2; }
int __attribute__((overloadable)) after(int x);
int after(int x) __attribute__((overloadable)) { return -x; }
kernel void k(global int *o, local int *l) {
    l[0] = 5;
    int p[1] = {9};
    o[0] = (int)sq(3.0f);
    o[1] = (int)(sq(3.0) * 2);
    o[2] = (int)sq((float4)(2.0f)).w;
    o[3] = sq(3) + sq((short)2);
    o[4] = first(o + 10) + first(l) + first(p);
    o[5] = plain(1) + plain(2.0f);
    o[6] = pick((char)1) * 10 + pick(1L);
    o[7] = after(4);
}
"""


def test_overloads_are_chosen_by_argument_types(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    prg = cl.Program(ctx, OVERLOADS).build()
    out = np.zeros(11, np.int32)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    prg.k(q, (1,), None, buf, cl.LocalMemory(16))
    cl.enqueue_copy(q, out, buf)
    assert out[:8].tolist() == [9, 19, 4, 15, 3014, 14, 21, -4]


def test_overloads_have_mangled_ir_names_and_the_unmarked_one_keeps_its_name() -> None:
    names = {f.name for f in compile_to_ir(OVERLOADS).module.functions}
    assert {"_Z2sqf", "_Z2sqd", "_Z2sqDv4_f", "_Z2sqi", "_Z5firstPU3AS1Ki", "_Z5firstPU3AS3Ki",
            "_Z5firstPKi", "plain", "_Z5plainf", "_Z4pickl", "_Z4picki", "_Z5afteri", "k"} <= names


def test_overload_declaration_errors() -> None:
    src = """int m(int x);
int m(float x);
int q(int x);
int q(float x) __attribute__((overloadable));
int q(double x);
__attribute__((overloadable)) int g(int x);
int g(int x) { return x; }
__attribute__((overloadable)) int r(int x) { return x; }
__attribute__((overloadable)) int r(int y) { return y; }"""
    assert diagnostics(src) == [
        "2:5: error: conflicting types for 'm'",
        "1:5: note: previous declaration is here",
        "5:5: error: at most one overload for a given name may lack the 'overloadable' attribute",
        "3:5: note: previous unmarked overload of function is here",
        "7:5: error: redeclaration of 'g' must have the 'overloadable' attribute",
        "6:35: note: previous overload of function is here",
        "9:35: error: redefinition of 'r'",
        "8:35: note: previous definition is here",
    ]


def test_ambiguous_and_impossible_calls() -> None:
    src = """__attribute__((overloadable)) int a(int x, float y);
__attribute__((overloadable)) int a(float x, int y);
__attribute__((overloadable)) int b(global int *p);
__attribute__((overloadable)) int b(local int *p);
kernel void k(global int *o) {
  o[0] = a(1, 1);
  o[1] = a(o, 1);
  o[2] = b(0);
  o[3] = a(1);
}"""
    assert diagnostics(src) == [
        "6:10: error: call to 'a' is ambiguous",
        "1:35: note: candidate function",
        "2:35: note: candidate function",
        "7:10: error: no matching function for call to 'a'",
        "1:35: note: candidate function not viable: no known conversion from '__global int *' to 'int' for 1st argument",
        "2:35: note: candidate function not viable: no known conversion from '__global int *' to 'float' for 1st "
        "argument",
        "8:10: error: call to 'b' is ambiguous",
        "3:35: note: candidate function",
        "4:35: note: candidate function",
        "9:10: error: no matching function for call to 'a'",
        "1:35: note: candidate function not viable: requires 2 arguments, but 1 was provided",
        "2:35: note: candidate function not viable: requires 2 arguments, but 1 was provided",
    ]


def test_recursion_between_overloads_is_named_by_source_names() -> None:
    src = """__attribute__((overloadable)) int f(int x);
__attribute__((overloadable)) int f(float x) { return f((int)x); }
__attribute__((overloadable)) int f(int x) { return f((float)x); }
kernel void k(global int *o) { o[0] = f(1); }"""
    assert any("recursive call to 'f' (f -> f -> f)" in d for d in diagnostics(src))
