"""Call-graph queries over IR built from OpenCL C."""

from oclpy.analysis.callgraph import functions_reached, local_vars_reached
from oclpy.frontend.driver import compile_to_ir

SRC = """
void fill(__local int *t) { t[get_local_id(0)] = 1; }
int helper(int x) { return x + 1; }
__kernel void a(__global int *o) {
    __local int mine[16];
    __local int other[8];
    fill(mine);
    o[0] = helper(other[0]);
}
__kernel void b(__global int *o) {
    __local int only_b[4];
    o[0] = only_b[1];
}
"""


def test_locals_and_functions_reached_per_kernel():
    module = compile_to_ir(SRC).module
    a, b = module.get_function("a"), module.get_function("b")
    assert sorted(g.name for g in local_vars_reached(a)) == ["a.mine", "a.other"]
    assert [g.name for g in local_vars_reached(b)] == ["b.only_b"]
    reached = {f.name for f in functions_reached(a)}
    assert {"a", "fill", "helper"} <= reached and "b" not in reached
