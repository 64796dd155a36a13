"""SSA liveness: live-in/live-out per block, phi conventions, live-across queries."""

from __future__ import annotations

from oclpy.analysis.liveness import compute_liveness, is_tracked
from oclpy.ir.parser import parse_module
from oclpy.ir.values import Function, Instr

LOOP = """
define i32 @f(i32 %n, i32 %k) {
entry:
  %base = add i32 %k, 1
  %unused = mul i32 %k, 2
  br label %head
head:
  %i = phi i32 [0, %entry], [%i1, %body]
  %acc = phi i32 [%base, %entry], [%acc1, %body]
  %more = icmp slt i32 %i, %n
  condbr i1 %more, label %body, label %exit
body:
  %acc1 = add i32 %acc, %i
  %i1 = add i32 %i, 1
  br label %head
exit:
  ret i32 %acc
}
"""


def _fn() -> Function:
    return parse_module(LOOP).functions[0]


def _names(values: set) -> set[str]:
    return {v.name for v in values}


def _block(fn: Function, name: str):
    return next(b for b in fn.blocks if b.name == name)


def test_live_sets_of_a_loop() -> None:
    fn = _fn()
    live = compute_liveness(fn)
    entry, head, body, exit_ = (_block(fn, n) for n in ("entry", "head", "body", "exit"))
    assert _names(live.live_in[entry]) == {"n", "k"}
    # phi operands are live-out of their incoming block, not live-in of the phi's block
    assert _names(live.live_out[entry]) == {"n", "base"}
    assert _names(live.live_in[head]) == {"n"}
    assert _names(live.live_in[body]) == {"n", "i", "acc"}
    assert _names(live.live_out[body]) == {"n", "i1", "acc1"}
    assert _names(live.live_in[exit_]) == {"acc"}
    assert live.live_out[exit_] == set()


def test_live_across_an_instruction() -> None:
    fn = _fn()
    live = compute_liveness(fn)
    body = _block(fn, "body")
    acc1, i1 = body.instrs[0], body.instrs[1]
    assert _names(live.live_across(acc1)) == {"n", "i"}  # not its own result, not dead %acc
    assert _names(live.live_after(acc1)) == {"n", "i", "acc1"}
    assert _names(live.live_across(i1)) == {"n", "acc1"}
    unused = _block(fn, "entry").instrs[1]
    assert "unused" not in _names(live.live_after(unused))


def test_only_values_with_results_are_tracked() -> None:
    fn = _fn()
    term = _block(fn, "body").terminator
    assert isinstance(term, Instr) and not is_tracked(term)
    assert is_tracked(fn.args[0])
    assert all(is_tracked(v) for s in compute_liveness(fn).live_in.values() for v in s)


def test_unreachable_blocks_have_no_sets() -> None:
    fn = parse_module("""
define i32 @g(i32 %a) {
entry:
  ret i32 %a
dead:
  %x = add i32 %a, 1
  ret i32 %x
}
""").functions[0]
    live = compute_liveness(fn)
    assert _block(fn, "dead") not in live.live_in
    assert _names(live.live_in[fn.entry]) == {"a"}
