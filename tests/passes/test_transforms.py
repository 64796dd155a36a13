"""mem2reg, simplify, dce and inline as Python APIs (FileCheck tests cover the output)."""

import pytest

from oclpy.ir.parser import parse_module
from oclpy.ir.verifier import verify_module
from oclpy.passes.dce import is_removable
from oclpy.passes.inline import Inline, call_counts, call_graph, instruction_count
from oclpy.passes.manager import PassError, run_pipeline
from oclpy.passes.mem2reg import is_promotable, promote_function
from oclpy.passes.simplify import simplify_function

LOOP = """
define i32 @f(i32 %n) {
entry:
  %i = alloca i32
  store i32 0, ptr<private> %i
  br label %head
head:
  %v = load i32, ptr<private> %i
  %c = icmp slt i32 %v, %n
  condbr i1 %c, label %body, label %exit
body:
  %w = add i32 %v, 1
  store i32 %w, ptr<private> %i
  br label %head
exit:
  ret i32 %v
}
"""


def test_mem2reg_returns_whether_it_changed():
    module = parse_module(LOOP)
    fn = module.functions[0]
    assert promote_function(fn) is True
    assert promote_function(fn) is False
    assert not any(i.op in ("alloca", "load", "store") for i in fn.instructions())
    verify_module(module)


def test_is_promotable():
    module = parse_module(LOOP)
    fn = module.functions[0]
    alloca = fn.entry.instrs[0]
    users = alloca.users
    assert is_promotable(alloca, users)
    store = next(u for u in users if u.op == "store")
    store.attrs["volatile"] = True
    assert not is_promotable(alloca, users)


def test_simplify_is_idempotent_and_verifies():
    module = parse_module(LOOP)
    run_pipeline(module, "O1", verify_each=True)
    fn = module.functions[0]
    assert simplify_function(fn) is False


def test_is_removable():
    module = parse_module(LOOP)
    ops = {i.op: is_removable(i) for i in module.functions[0].instructions()}
    assert ops["add"] and ops["icmp"] and ops["alloca"]
    assert not ops["store"] and not ops["load"] and not ops["br"]


CALLS = """
define i32 @leaf(i32 %x) {
entry:
  %a = add i32 %x, 1
  ret i32 %a
}

define i32 @mid(i32 %x) {
entry:
  %a = call i32 @leaf(i32 %x)
  %b = call i32 @leaf(i32 %a)
  ret i32 %b
}

kernel void @k(ptr<global> %p) {
entry:
  %v = call i32 @mid(i32 1)
  store i32 %v, ptr<global> %p
  ret void
}
"""


def test_call_graph_and_counts():
    module = parse_module(CALLS)
    leaf, mid, k = module.functions
    assert call_graph(module)[mid] == {leaf}
    assert call_counts(module)[leaf] == 2 and call_counts(module)[mid] == 1
    assert instruction_count(leaf) == 2


def test_inline_threshold():
    module = parse_module(CALLS)
    assert Inline(threshold=0).run(module) is True  # only @mid (one call site)
    names = [f.name for f in module.functions]
    assert names == ["leaf", "k"]
    assert call_counts(module)[module.functions[0]] == 2
    verify_module(module)
    assert Inline(threshold=10).run(module) is True
    assert [f.name for f in module.functions] == ["k"]
    verify_module(module)
    assert Inline().run(module) is False


def test_verify_each_names_the_pass(monkeypatch):
    from oclpy.passes import manager

    class Breaker:
        name = "test-breaker"

        def run(self, module):
            module.functions[0].entry.instrs.pop()  # drop the terminator
            return True

    monkeypatch.setitem(manager.PASSES, "test-breaker", Breaker)
    with pytest.raises(PassError, match="pass 'test-breaker': module fails verification"):
        run_pipeline(parse_module(CALLS), "test-breaker", verify_each=True)
