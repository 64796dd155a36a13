"""Natural loop detection: headers, bodies, latches, exits, nesting."""

from oclpy.analysis.loops import LoopInfo
from oclpy.ir.parser import parse_module
from oclpy.ir.values import Function

NESTED = """
define void @f(i1 %c) {
entry:
  br label %outer
outer:
  condbr i1 %c, label %inner, label %exit
inner:
  condbr i1 %c, label %inner_body, label %outer_latch
inner_body:
  br label %inner
outer_latch:
  br label %outer
exit:
  ret void
}
"""

TWO_LATCHES = """
define void @f(i1 %c) {
entry:
  br label %h
h:
  condbr i1 %c, label %a, label %b
a:
  condbr i1 %c, label %h, label %out
b:
  br label %h
out:
  ret void
}
"""

IRREDUCIBLE = """
define void @f(i1 %c) {
entry:
  condbr i1 %c, label %a, label %b
a:
  condbr i1 %c, label %b, label %exit
b:
  condbr i1 %c, label %a, label %exit
exit:
  ret void
}
"""


def fn_of(text: str) -> Function:
    return parse_module(text).functions[0]


def by_name(fn: Function):
    return {b.name: b for b in fn.blocks}


def test_nested_loops():
    fn = fn_of(NESTED)
    b = by_name(fn)
    info = LoopInfo.compute(fn)
    assert len(info.loops) == 2
    (outer,) = info.top_level
    assert outer.header is b["outer"]
    assert {x.name for x in outer.blocks} == {"outer", "inner", "inner_body", "outer_latch"}
    assert [x.name for x in outer.latches] == ["outer_latch"]
    (inner,) = outer.children
    assert inner.parent is outer and inner.header is b["inner"]
    assert {x.name for x in inner.blocks} == {"inner", "inner_body"}
    assert [x.name for x in inner.exits] == ["outer_latch"]
    assert [x.name for x in outer.exits] == ["exit"]
    assert [x.name for x in outer.exiting] == ["outer"]
    assert info.loop_for(b["inner_body"]) is inner
    assert info.loop_for(b["outer_latch"]) is outer
    assert info.loop_for(b["exit"]) is None
    assert info.depth(b["inner_body"]) == 2 and info.depth(b["entry"]) == 0
    assert info.is_header(b["inner"]) and not info.is_header(b["inner_body"])
    assert "depth=2" in repr(inner)


def test_one_loop_for_two_latches():
    fn = fn_of(TWO_LATCHES)
    info = LoopInfo.compute(fn)
    (loop,) = info.loops
    assert sorted(x.name for x in loop.latches) == ["a", "b"]
    assert {x.name for x in loop.blocks} == {"h", "a", "b"}
    assert [x.name for x in loop.exits] == ["out"]


def test_self_loop():
    fn = fn_of("define void @f(i1 %c) {\nentry:\n  br label %l\nl:\n  condbr i1 %c, label %l, label %x\nx:\n  ret void\n}\n")
    (loop,) = LoopInfo.compute(fn).loops
    assert loop.header.name == "l" and {x.name for x in loop.blocks} == {"l"}
    assert [x.name for x in loop.latches] == ["l"]


def test_irreducible_cycle_is_not_a_natural_loop():
    info = LoopInfo.compute(fn_of(IRREDUCIBLE))
    assert info.loops == [] and info.top_level == []


def test_no_loops_in_straight_line_code():
    fn = fn_of("define void @f() {\nentry:\n  ret void\n}\n")
    assert LoopInfo.compute(fn).loops == []
