"""Large struct and array values on the cpu target (`targets/llvm/emit_indirect.py`):
past `INDIRECT_AGGREGATE_BYTES` they are pointers in the LLVM IR (FileCheck on the
emitted form: parameters, results through a last parameter, copies by
`llvm.memcpy`, kernel arguments in place in the blob), and every instruction
that makes or takes one gives the results NumPy computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from tools.cpu_harness import compile_text, run
from oclpy.compiler import compile_program
from oclpy.targets.llvm.cpu.cpu_target import INDIRECT_AGGREGATE_BYTES
from tests.test_filecheck import filecheck

T = "{[72 x float], {[80 x i32]}}"  # 608 bytes; its members are 288 and 320: all large
IR = f"""
declare i64 @ocl.get_global_id(i32)

define {T} @build(float %x, i32 %n) {{
entry:
  %a = insertvalue {T} zeroinitializer, float %x, 0, 3
  %b = insertvalue {T} %a, i32 %n, 1, 0, 7
  ret {T} %b
}}

define float @sum({T} %t) {{
entry:
  %f = extractvalue {T} %t, 0, 3
  %inner = extractvalue {T} %t, 1
  %v = extractvalue {{[80 x i32]}} %inner, 0, 7
  %vf = sitofp i32 %v to float
  %r = fadd float %f, %vf
  ret float %r
}}

kernel void @k(ptr<global> %out, ptr<global> %raw, {T} %t, i32 %c) {{
entry:
  %p = alloca {T}, align 4
  %g = call i64 @ocl.get_global_id(i32 0)
  %gi = trunc i64 %g to i32
  %gf = sitofp i32 %gi to float
  %built = call {T} @build(float %gf, i32 %gi)
  %s1 = call float @sum({T} %built)
  %s2 = call float @sum({T} %t)
  %cb = icmp ne i32 %c, 0
  %pick = select i1 %cb, {T} %t, {T} %built
  %s3 = call float @sum({T} %pick)
  %z = call float @sum({T} zeroinitializer)
  condbr i1 %cb, label %then, label %else
then:
  br label %merge
else:
  br label %merge
merge:
  %merged = phi {T} [ %built, %then ], [ %t, %else ]
  %s4 = call float @sum({T} %merged)
  br label %loop
loop:
  %i = phi i32 [ 0, %merge ], [ %i1, %loop ]
  %acc = phi {T} [ %t, %merge ], [ %next, %loop ]
  %old = extractvalue {T} %acc, 0, 3
  %inc = fadd float %old, 1.0
  %next = insertvalue {T} %acc, float %inc, 0, 3
  %again = extractvalue {T} %acc, 0, 3
  %i1 = add i32 %i, 1
  %more = icmp slt i32 %i1, %gi
  condbr i1 %more, label %loop, label %done
done:
  %last = extractvalue {T} %next, 0, 3
  store {T} %next, ptr<private> %p, align 4
  %back = load {T}, ptr<private> %p, align 4
  store {T} %t, ptr<private> %p, align 4
  %b3 = extractvalue {T} %back, 0, 3
  %u = insertvalue {T} undef, i32 %gi, 1, 0, 79
  %u19 = extractvalue {T} %u, 1, 0, 79
  %u19f = sitofp i32 %u19 to float
  %rp = getelementptr {T}, ptr<global> %raw, i64 %g
  store {T} %back, ptr<global> %rp, align 4
  %base = mul i64 %g, 9
  %o0 = getelementptr float, ptr<global> %out, i64 %base
  store float %s1, ptr<global> %o0, align 4
  %o1 = getelementptr float, ptr<global> %o0, i64 1
  store float %s2, ptr<global> %o1, align 4
  %o2 = getelementptr float, ptr<global> %o0, i64 2
  store float %s3, ptr<global> %o2, align 4
  %o3 = getelementptr float, ptr<global> %o0, i64 3
  store float %z, ptr<global> %o3, align 4
  %o4 = getelementptr float, ptr<global> %o0, i64 4
  store float %again, ptr<global> %o4, align 4
  %o5 = getelementptr float, ptr<global> %o0, i64 5
  store float %last, ptr<global> %o5, align 4
  %o6 = getelementptr float, ptr<global> %o0, i64 6
  store float %b3, ptr<global> %o6, align 4
  %o7 = getelementptr float, ptr<global> %o0, i64 7
  store float %u19f, ptr<global> %o7, align 4
  %o8 = getelementptr float, ptr<global> %o0, i64 8
  store float %s4, ptr<global> %o8, align 4
  ret void
}}
"""
DTYPE = np.dtype([("f", np.float32, (72,)), ("inner", np.int32, (80,))])

CHECKS = """
; CHECK-LABEL: define internal void @"build"(float %"x", i32 %"n", {{.*}}, ptr noalias align 4 dereferenceable(608) %"result")
; CHECK:         call void @"llvm.memset.p0.i64"(ptr %"a", i8 0, i64 608, i1 0)
; CHECK:         call void @"llvm.memcpy.p0.p0.i64"(ptr %"result", ptr {{%.+}}, i64 608, i1 0)
; CHECK-NEXT:    ret void
; CHECK-LABEL: define internal float @"sum"(ptr noalias align 4 dereferenceable(608) %"t", ptr %"wi.ctx"
; CHECK:         [[INNER:%.+]] = getelementptr i8, ptr %"t", i64 288
; CHECK:         getelementptr i8, ptr [[INNER]], i64 28
; CHECK-LABEL: define internal void @"k"(ptr %"out", ptr %"raw", ptr noalias align 4 dereferenceable(608) %"t", i32 %"c",
; CHECK:         call void @"build"(float %"gf", i32 %"gi", {{.*}}, ptr [[BUILT:%.+]])
; CHECK-NEXT:    call float @"sum"(ptr [[BUILT]],
; CHECK-NEXT:    call float @"sum"(ptr %"t",
; CHECK:         [[PICK:%.+]] = select i1 %"cb", ptr %"t", ptr [[BUILT]]
; CHECK-NEXT:    call float @"sum"(ptr [[PICK]],
; CHECK-NEXT:    call float @"sum"(ptr @"aggregate{{(.[0-9]+)?}}",
; CHECK:       merge:
; CHECK-NEXT:    %"merged" = phi {{ *}}ptr [[[BUILT]], %"then"], [%"t", %"else"]
; CHECK-NEXT:    call float @"sum"(ptr %"merged",
; CHECK:         [[FIRST:%.+]] = load {[72 x float], {[80 x i32]}}, ptr %"t", align 4
; CHECK-NEXT:    br label %"loop"
; CHECK:         %"acc" = phi {{ *}}{[72 x float], {[80 x i32]}} [[[FIRST]], %"merge"], [[[NEXT:%.+]], %"loop"]
; CHECK:         store {[72 x float], {[80 x i32]}} %"acc", ptr %"next", align 4
; CHECK-NEXT:    [[AT:%.+]] = getelementptr i8, ptr %"next", i64 12
; CHECK-NEXT:    store float %"inc", ptr [[AT]], align 4
; CHECK:         [[NEXT]] = load {[72 x float], {[80 x i32]}}, ptr %"next", align 4
; CHECK-NEXT:    br i1 %"more", label %"loop", label %"done"
; CHECK:       done:
; CHECK:         call void @"llvm.memcpy.p0.p0.i64"(ptr %"p", ptr %"next", i64 608, i1 0)
; CHECK-NEXT:    call void @"llvm.memcpy.p0.p0.i64"(ptr %"back", ptr %"p", i64 608, i1 0)
; CHECK-NEXT:    call void @"llvm.memcpy.p0.p0.i64"(ptr %"p", ptr %"t", i64 608, i1 0)
; CHECK:         call void @"llvm.memcpy.p0.p0.i64"(ptr %"rp", ptr %"back", i64 608, i1 0)
; CHECK-LABEL: define void @"k.launch"(
; CHECK:         [[ARG:%.+]] = getelementptr i8, ptr %".1", i64 16
; CHECK-NOT:     load {[72 x float]
; CHECK:         call void @"k"(ptr {{%.+}}, ptr {{%.+}}, ptr [[ARG]], i32
"""


def test_large_aggregates_are_pointers_in_the_llvm_ir(tmp_path: Path) -> None:
    assert DTYPE.itemsize > INDIRECT_AGGREGATE_BYTES
    text = compile_text(IR).llvm_ir
    assert filecheck(CHECKS, text, tmp_path) == 0


def test_every_instruction_on_large_aggregates_matches_numpy() -> None:
    kernel = compile_text(IR).kernels["k"]
    t = np.zeros((), DTYPE)
    t["f"] = np.arange(72, dtype=np.float32) * 1.5
    t["inner"] = np.arange(80, dtype=np.int32) * 3 - 7
    n = 8
    for c in (1, 0):
        out, raw = np.full(9 * n, -1.0, np.float32), np.zeros(n, DTYPE)
        run(kernel, [out, raw, t.tobytes(), np.int32(c)], (n,), (4,))
        g = np.arange(n, dtype=np.float32)
        iterations = np.maximum(g, 1)
        t3, i7 = np.float32(t["f"][3]), np.float32(t["inner"][7])
        expected = np.stack([g + g, np.full(n, t3 + i7), np.full(n, t3 + i7) if c else g + g, np.zeros(n),
                             t3 + iterations - 1, t3 + iterations, t3 + iterations, g,
                             g + g if c else np.full(n, t3 + i7)], axis=1)
        np.testing.assert_array_equal(out.reshape(n, 9), expected.astype(np.float32))
        want = np.repeat(t[None], n)
        want["f"][:, 3] = t3 + iterations
        assert raw.tobytes() == want.tobytes()


SMALL = """
typedef struct { float v[4]; } Small;
typedef struct { float v[65]; } Big;
__attribute__((noinline)) float first(Small s) { return s.v[0]; }
__attribute__((noinline)) float last(Big b) { return b.v[64]; }
__kernel void k(__global float *o, Small s, Big b) { o[0] = first(s) + last(b); }
"""
SMALL_CHECKS = """
; CHECK-LABEL: define internal float @"first"({[4 x float]} %"s",
; CHECK-LABEL: define internal float @"last"(ptr noalias align 4 dereferenceable(260) %"b",
; CHECK-LABEL: define internal void @"k"(ptr %"o", {[4 x float]} %"s", ptr noalias align 4 dereferenceable(260) %"b",
"""


def test_aggregates_up_to_the_limit_stay_values(tmp_path: Path) -> None:
    assert 16 <= INDIRECT_AGGREGATE_BYTES < 260
    text = compile_program(SMALL).program.llvm_ir
    assert filecheck(SMALL_CHECKS, text, tmp_path) == 0
