"""`ir.cfg.strongly_connected_components`: Tarjan's components of a CFG, each
listed after every component it reaches (what cpu/reorder.py and cpu/outer.py use)."""

from __future__ import annotations

from oclpy.ir.cfg import strongly_connected_components
from oclpy.ir.parser import parse_module

SOURCE = """
define void @f(i32 %n) {
entry:
  br label %head
head:
  %c = icmp slt i32 %n, 3
  condbr i1 %c, label %body, label %spin
body:
  br label %head
spin:
  condbr i1 %c, label %spin, label %exit
exit:
  ret void
}
"""


def test_components_of_a_loop_a_self_loop_and_straight_blocks():
    fn = parse_module(SOURCE).get_function("f")
    components = [sorted(b.name for b in c) for c in strongly_connected_components([fn.entry])]
    assert components == [["exit"], ["spin"], ["body", "head"], ["entry"]]
    from_spin = strongly_connected_components([b for b in fn.blocks if b.name == "spin"])
    assert [[b.name for b in c] for c in from_spin] == [["exit"], ["spin"]]
