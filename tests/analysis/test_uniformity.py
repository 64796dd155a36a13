"""Unit tests of analysis/uniformity.py: sources, propagation, sync dependence
at joins, temporal divergence at loop exits, calls and helper arguments."""

from __future__ import annotations

import pytest

from oclpy.analysis.uniformity import analyze_uniformity
from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.parser import parse_module
from oclpy.ir.values import Function, Instr
from oclpy.passes.manager import PIPELINES, run_pipeline

QUERIES = "\n".join(f"declare i64 @ocl.{q}(i32 %a0)" for q in (
    "get_global_id", "get_local_id", "get_group_id", "get_local_size", "get_num_groups",
    "get_global_size", "get_global_offset", "get_global_linear_id", "get_local_linear_id"))


def _fn(text: str, name: str = "k") -> Function:
    fn = parse_module(QUERIES + "\n" + text).get_function(name)
    assert fn is not None
    return fn


def _by_name(fn: Function) -> dict[str, Instr]:
    return {i.name: i for i in fn.instructions() if i.name}


@pytest.mark.parametrize("query, divergent", [
    ("get_global_id", True), ("get_local_id", True), ("get_global_linear_id", True),
    ("get_local_linear_id", True), ("get_group_id", False), ("get_local_size", False),
    ("get_num_groups", False), ("get_global_size", False), ("get_global_offset", False),
])
def test_work_item_queries(query, divergent):
    for dim in (0, 1, 2):  # every dimension, get_global_id(1) included
        fn = _fn(f"kernel void @k() {{\nentry:\n  %q = call i64 @ocl.{query}(i32 {dim})\n  ret void\n}}")
        assert analyze_uniformity(fn).is_divergent(_by_name(fn)["q"]) is divergent


def test_arguments_constants_and_propagation():
    fn = _fn("""kernel void @k(i32 %n, ptr<global> %p) {
entry:
  %a = add i32 %n, 1
  %l = call i64 @ocl.get_local_id(i32 0)
  %t = trunc i64 %l to i32
  %b = add i32 %a, %t
  %s = select i1 true, i32 %a, i32 %b
  ret void
}""")
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_uniform(fn.args[0]) and info.is_uniform(v["a"])
    assert info.is_divergent(v["t"]) and info.is_divergent(v["b"]) and info.is_divergent(v["s"])
    assert info.is_uniform(fn.blocks[0].instrs[0].operands[1])  # the constant 1


def test_helper_arguments_are_divergent_unless_asked():
    fn = _fn("define i32 @h(i32 %x) {\nentry:\n  %y = add i32 %x, 1\n  ret i32 %y\n}", "h")
    assert analyze_uniformity(fn).is_divergent(_by_name(fn)["y"])
    assert analyze_uniformity(fn, uniform_args=True).is_uniform(_by_name(fn)["y"])


DIAMOND = """kernel void @k(i32 %n) {{
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  %g = call i64 @ocl.get_group_id(i32 0)
  %c = icmp eq i64 {cond}, 0
  condbr i1 %c, label %left, label %right
left:
  br label %join
right:
  br label %join
join:
  %v = phi i32 [ 1, %left ], [ 2, %right ]
  %w = phi i32 [ %n, %left ], [ %n, %right ]
  ret void
}}"""


def test_sync_dependence_makes_join_phis_divergent():
    fn = _fn(DIAMOND.format(cond="%l"))
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_divergent_branch(fn.blocks[0])
    assert info.divergent_branches == {fn.blocks[0]}
    assert info.is_divergent(v["v"]) and info.is_divergent(v["w"])


def test_uniform_branch_keeps_join_phis_uniform():
    fn = _fn(DIAMOND.format(cond="%g"))
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert not info.divergent_branches
    assert info.is_uniform(v["v"]) and info.is_uniform(v["w"])


def test_nested_uniform_branch_inside_divergent_region():
    fn = _fn("""kernel void @k(i32 %n) {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  %c = icmp eq i64 %l, 0
  condbr i1 %c, label %a, label %exit
a:
  %u = icmp sgt i32 %n, 3
  condbr i1 %u, label %b, label %c2
b:
  br label %c2
c2:
  %inner = phi i32 [ 1, %b ], [ 2, %a ]
  br label %exit
exit:
  %outer = phi i32 [ %inner, %c2 ], [ 0, %entry ]
  ret void
}""")
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_uniform(v["u"]) and not info.is_divergent_branch(fn.blocks[1])
    assert info.is_uniform(v["inner"])  # joined by a uniform branch
    assert info.is_divergent(v["outer"])  # joined by the divergent one


def test_switch_on_a_divergent_value():
    fn = _fn("""kernel void @k() {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  %t = trunc i64 %l to i32
  switch i32 %t, label %d [
    i32 1, label %one
  ]
one:
  br label %d
d:
  %v = phi i32 [ 0, %entry ], [ 1, %one ]
  ret void
}""")
    info = analyze_uniformity(fn)
    assert info.is_divergent_branch(fn.blocks[0]) and info.is_divergent(_by_name(fn)["v"])


def test_divergent_loop_exit_makes_values_used_after_it_divergent():
    fn = _fn("""kernel void @k(i32 %n) {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %latch ]
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %l
  condbr i1 %c, label %latch, label %exit
latch:
  br label %head
exit:
  %after = add i64 %i1, 0
  ret void
}""")
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_uniform(v["i"]) and info.is_uniform(v["i1"])
    assert info.is_divergent(v["after"])


def test_uniform_loop_exit_keeps_values_uniform():
    fn = _fn("""kernel void @k(i64 %n) {
entry:
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %head ]
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %n
  condbr i1 %c, label %head, label %exit
exit:
  %after = add i64 %i1, 0
  ret void
}""")
    info = analyze_uniformity(fn)
    assert not info.divergent_branches and info.is_uniform(_by_name(fn)["after"])


def test_memory_and_atomics():
    fn = _fn("""@c = addrspace(constant) constant i32 7, align 4
kernel void @k(ptr<constant> %cp, ptr<global> %g, ptr<generic> %p) {
entry:
  %a = load i32, ptr<constant> %cp
  %b = load i32, ptr<constant> @c
  %x = load i32, ptr<global> %g
  %y = load i32, ptr<generic> %p
  %l = call i64 @ocl.get_local_id(i32 0)
  %cq = getelementptr i32, ptr<constant> %cp, i64 %l
  %z = load i32, ptr<constant> %cq
  %old = atomicrmw add ptr<global> %g, i32 1 scope(device) monotonic
  %cx = cmpxchg ptr<global> %g, i32 0, i32 1 scope(device) monotonic
  ret void
}""")
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_uniform(v["a"]) and info.is_uniform(v["b"])
    for name in ("x", "y", "z", "old", "cx"):
        assert info.is_divergent(v[name]), name


def test_calls():
    fn = _fn("""declare i32 @printf(ptr<constant> %f, ...)
declare float @ocl.sqrt.f32(float %a0)
declare i32 @external(i32 %a0)

define i32 @rec(i32 %x) {
entry:
  %r = call i32 @rec(i32 %x)
  ret i32 %r
}

kernel void @k(float %f, i32 %n, ptr<constant> %fmt) {
entry:
  %s = call float @ocl.sqrt.f32(float %f)
  %p = call i32 @printf(ptr<constant> %fmt)
  %e = call i32 @external(i32 %n)
  %r = call i32 @rec(i32 %n)
  ret void
}""")
    info, v = analyze_uniformity(fn), _by_name(fn)
    assert info.is_uniform(v["s"])
    assert info.is_divergent(v["p"]) and info.is_divergent(v["e"]) and info.is_divergent(v["r"])


def test_frontend_kernel_at_o2():
    src = """kernel void k(global float *out, int n) {
        int gid = get_global_id(0);
        int grp = get_group_id(0);
        float acc = 0;
        for (int i = 0; i < n; i++) acc += i * grp;
        if (gid < n) out[gid] = acc;
    }"""
    module = compile_to_ir(src).module
    run_pipeline(module, PIPELINES["O2"])
    (kernel,) = module.kernels()
    info = analyze_uniformity(kernel)
    assert len(info.divergent_branches) == 1  # the `if (gid < n)`, not the loop
    branch = next(iter(info.divergent_branches))
    assert info.is_divergent(branch.terminator.operands[0])


def test_declaration_has_nothing_to_analyse():
    fn = parse_module(QUERIES).get_function("ocl.get_local_id")
    assert fn is not None and not analyze_uniformity(fn, uniform_args=True).divergent


def test_blocks_under_divergent_control():
    fn = _fn(DIAMOND.format(cond="%l"))
    info = analyze_uniformity(fn)
    entry, left, right, join = fn.blocks
    assert info.runs_divergently(left) and info.runs_divergently(right)
    assert not info.runs_divergently(entry) and not info.runs_divergently(join)
    assert not analyze_uniformity(_fn(DIAMOND.format(cond="%g"))).divergent_blocks


def test_divergent_loop_body_runs_divergently():
    fn = _fn("""kernel void @k() {
entry:
  %l = call i64 @ocl.get_local_id(i32 0)
  br label %head
head:
  %i = phi i64 [ 0, %entry ], [ %i1, %head ]
  %i1 = add i64 %i, 1
  %c = icmp ult i64 %i1, %l
  condbr i1 %c, label %head, label %exit
exit:
  ret void
}""")
    info = analyze_uniformity(fn)
    entry, head, exit_ = fn.blocks
    assert info.runs_divergently(head) and not info.runs_divergently(exit_)
