"""Unit tests of analysis/address_spaces.py: the lattice, each transfer rule,
pointer slots, helper arguments and results, and what stays unknown or generic."""

from __future__ import annotations

from oclpy.analysis.address_spaces import Inference, meet
from oclpy.ir.parser import parse_module
from oclpy.ir.types import AddressSpace
from oclpy.ir.values import Module, Value

GENERIC, GLOBAL, LOCAL, PRIVATE = (AddressSpace.GENERIC, AddressSpace.GLOBAL, AddressSpace.LOCAL,
                                   AddressSpace.PRIVATE)


def _solve(text: str) -> tuple[Inference, dict[str, Value]]:
    module: Module = parse_module(text)
    inference = Inference(module)
    inference.solve()
    values: dict[str, Value] = {}
    for fn in module.functions:
        values.update({a.name: a for a in fn.args})
        values.update({i.name: i for i in fn.instructions() if i.name})
    return inference, values


def _space(text: str, name: str):
    inference, values = _solve(text)
    return inference.spaces[values[name]]


def test_meet():
    assert meet(None, GLOBAL) is GLOBAL and meet(LOCAL, None) is LOCAL
    assert meet(GLOBAL, GLOBAL) is GLOBAL
    assert meet(GLOBAL, LOCAL) is GENERIC and meet(GENERIC, GLOBAL) is GENERIC
    assert meet(None, None) is None


def test_cast_gep_select_phi():
    text = """define void @f(ptr<local> %l, ptr<global> %g, i1 %c) {
entry:
  %pl = addrspacecast ptr<local> %l to ptr<generic>
  %pg = addrspacecast ptr<global> %g to ptr<generic>
  %q = getelementptr i8, ptr<generic> %pl, i64 3
  %s = select i1 %c, ptr<generic> %q, ptr<generic> null
  %m = select i1 %c, ptr<generic> %q, ptr<generic> %pg
  condbr i1 %c, label %a, label %b
a:
  br label %b
b:
  %p = phi ptr<generic> [ %q, %a ], [ undef, %entry ]
  ret void
}"""
    inference, v = _solve(text)
    assert [inference.spaces[v[n]] for n in ("pl", "pg", "q", "s", "m", "p")] == \
        [LOCAL, GLOBAL, LOCAL, LOCAL, GENERIC, LOCAL]


def test_a_cycle_without_a_root_stays_unknown():
    text = """define void @f(i1 %c) {
entry:
  br label %loop
loop:
  %p = phi ptr<generic> [ null, %entry ], [ %q, %loop ]
  %q = getelementptr float, ptr<generic> %p, i64 1
  condbr i1 %c, label %loop, label %exit
exit:
  ret void
}"""
    assert _space(text, "p") is None and _space(text, "q") is None


def test_inttoptr_and_unknown_loads_are_generic():
    text = """define void @f(i64 %a, ptr<global> %g) {
entry:
  %p = inttoptr i64 %a to ptr<generic>
  %q = getelementptr float, ptr<generic> %p, i64 1
  %l = load ptr<generic>, ptr<global> %g
  ret void
}"""
    assert _space(text, "q") is GENERIC and _space(text, "l") is GENERIC


SLOT = """define void @f(ptr<local> %a, ptr<{space}> %b, i64 %i) {{
entry:
  %arr = alloca [2 x ptr<generic>]
  %pa = addrspacecast ptr<local> %a to ptr<generic>
  %pb = addrspacecast ptr<{space}> %b to ptr<generic>
  %s1 = getelementptr [2 x ptr<generic>], ptr<private> %arr, i64 0, i64 1
  store ptr<generic> %pa, ptr<private> %arr
  store ptr<generic> %pb, ptr<private> %s1
  %si = getelementptr [2 x ptr<generic>], ptr<private> %arr, i64 0, i64 %i
  %p = load ptr<generic>, ptr<private> %si
  {extra}
  ret void
}}"""


def test_pointer_slot_meets_what_is_stored():
    assert _space(SLOT.format(space="local", extra=""), "p") is LOCAL
    assert _space(SLOT.format(space="global", extra=""), "p") is GENERIC


def test_pointer_slot_that_escapes_or_is_punned_is_not_a_slot():
    escape = "%n = ptrtoint ptr<private> %arr to i64"
    pun = "%w = load i64, ptr<private> %arr"
    assert _space(SLOT.format(space="local", extra=escape), "p") is GENERIC
    assert _space(SLOT.format(space="local", extra=pun), "p") is GENERIC


HELPER = """define ptr<generic> @h(ptr<generic> %x) {{
entry:
  %y = getelementptr i8, ptr<generic> %x, i64 1
  ret ptr<generic> %y
}}

kernel void @k(ptr<global> %g, ptr<{space}> %o) {{
entry:
  %pg = addrspacecast ptr<global> %g to ptr<generic>
  %po = addrspacecast ptr<{space}> %o to ptr<generic>
  %r1 = call ptr<generic> @h(ptr<generic> %pg)
  %r2 = call ptr<generic> @h(ptr<generic> %po)
  ret void
}}"""


def test_helper_arguments_and_results_meet_over_call_sites():
    inference, v = _solve(HELPER.format(space="global"))
    assert inference.spaces[v["x"]] is GLOBAL and inference.spaces[v["r1"]] is GLOBAL
    assert inference.returns[v["r1"].attrs["callee"]] is GLOBAL
    inference, v = _solve(HELPER.format(space="local"))
    assert inference.spaces[v["x"]] is GENERIC and inference.spaces[v["r2"]] is GENERIC


def test_functions_without_callers_and_declarations_are_not_seen_through():
    text = """declare ptr<generic> @ext(ptr<generic> %a0)

define void @alone(ptr<generic> %x) {
entry:
  ret void
}

kernel void @k(ptr<global> %g) {
entry:
  %pg = addrspacecast ptr<global> %g to ptr<generic>
  %r = call ptr<generic> @ext(ptr<generic> %pg)
  ret void
}"""
    inference, v = _solve(text)
    assert inference.spaces[v["x"]] is GENERIC and inference.spaces[v["r"]] is GENERIC
