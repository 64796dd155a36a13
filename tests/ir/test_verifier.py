"""One test per verifier rule; each checks that the message names the function,
the block and the printed instruction."""

from __future__ import annotations

import pytest

from irmodules import ALL_MODULES, new_function
from oclpy.ir.builder import Builder
from oclpy.ir.datalayout import DataLayout
from oclpy.ir.parser import parse_module
from oclpy.ir.types import F32, I32, I64, VOID, AddressSpace, StructType, VectorType, ptr
from oclpy.ir.values import (
    Block, ConstAggregate, ConstFloat, ConstInt, ConstOffset, Function, GlobalVar, Instr, Module,
)
from oclpy.ir.verifier import VerifyError, module_problems, verify_function, verify_module


def problems(text: str, **kw) -> list[str]:
    return module_problems(parse_module(text), **kw)


def only(text: str, **kw) -> str:
    found = problems(text, **kw)
    assert len(found) == 1, found
    return found[0]


@pytest.mark.parametrize("name", sorted(set(ALL_MODULES) - {"naming"}))
def test_well_formed_modules_pass(name):
    verify_module(ALL_MODULES[name]())


def test_error_lists_every_problem():
    text = """
define i32 @f(i32 %a) {
entry:
  %x = trunc i32 %a to i64
  %y = zext i32 %a to i16
}"""
    with pytest.raises(VerifyError) as info:
        verify_module(parse_module(text))
    err = info.value
    assert len(err.problems) == 3
    assert str(err).splitlines() == ["IR verification failed (3 problems):", *err.problems]
    assert err.problems == [
        "in function @f, block %entry: block does not end in a terminator (last: '%y = zext i32 %a to i16')",
        "in function @f, block %entry: instruction '%x = trunc i32 %a to i64': cannot cast i32 to i64",
        "in function @f, block %entry: instruction '%y = zext i32 %a to i16': cannot cast i32 to i16"]


# -- block structure ------------------------------------------------------------------------


def test_block_must_end_in_a_terminator():
    msg = only("define void @f() {\nentry:\n  %x = add i32 1, 2\n}")
    assert msg == ("in function @f, block %entry: block does not end in a terminator "
                   "(last: '%x = add i32 1, 2')")


def test_terminator_in_the_middle():
    msg = only("define void @f() {\nentry:\n  ret void\n  ret void\n}")
    assert msg == "in function @f, block %entry: terminator 'ret void' in the middle of the block"


def test_empty_block():
    m = parse_module("define void @f() {\nentry:\n  ret void\n}")
    fn = m.functions[0]
    fn.add_block("hole")
    assert module_problems(m) == ["in function @f, block %hole: block is empty (it needs a terminator)"]


def test_entry_block_has_no_predecessors():
    msg = only("define void @f() {\nentry:\n  br label %entry\n}")
    assert msg == "in function @f: the entry block %entry has predecessors"


def test_branch_to_block_of_another_function():
    m = parse_module("define void @f() {\nentry:\n  ret void\n}\ndefine void @g() {\nx:\n  ret void\n}")
    f, g = m.functions
    f.blocks[0].instrs[0] = Instr("br", VOID, targets=[g.blocks[0]], parent=f.blocks[0])
    assert module_problems(m) == [
        "in function @f, block %entry: branch to %?x, which is not a block of this function"]


def test_duplicate_block_names():
    m = parse_module("define void @f() {\na:\n  br label %b\nb:\n  ret void\n}")
    m.functions[0].blocks[1].name = "a"
    assert module_problems(m) == ["in function @f: duplicate block name '%a'"]


# -- phis -------------------------------------------------------------------------------------

DIAMOND = """
define i32 @f(i1 %c) {{
entry:
  condbr i1 %c, label %l, label %r
l:
  %a = add i32 1, 2
  br label %join
r:
  br label %join
join:
{body}
}}"""


def test_phi_not_at_block_start():
    found = problems(DIAMOND.format(body="  %z = add i32 0, 0\n  %p = phi i32 [ 1, %l ], [ 2, %r ]\n  ret i32 %p"))
    assert found == ["in function @f, block %join: phi '%p = phi i32 [ 1, %l ], [ 2, %r ]' "
                     "is not at the start of the block"]


def test_phi_missing_predecessor():
    msg = only(DIAMOND.format(body="  %p = phi i32 [ 1, %l ]\n  ret i32 %p"))
    assert msg == ("in function @f, block %join: instruction '%p = phi i32 [ 1, %l ]': "
                   "no incoming value for predecessor %r")


def test_phi_incoming_from_non_predecessor_and_duplicates():
    found = problems(DIAMOND.format(
        body="  %p = phi i32 [ 1, %l ], [ 2, %r ], [ 3, %r ], [ 4, %entry ]\n  ret i32 %p"))
    prefix = "in function @f, block %join: instruction '%p = phi i32 [ 1, %l ], [ 2, %r ], [ 3, %r ], [ 4, %entry ]': "
    assert found == [prefix + "2 incoming values for predecessor %r",
                     prefix + "incoming block %entry is not a predecessor"]


def test_phi_value_must_dominate_end_of_incoming_block():
    msg = only(DIAMOND.format(body="  %p = phi i32 [ 1, %l ], [ %a, %r ]\n  ret i32 %p"))
    assert msg == ("in function @f, block %join: instruction '%p = phi i32 [ 1, %l ], [ %a, %r ]': "
                   "operand %a does not dominate the end of incoming block %r")


def test_phi_incoming_type():
    m = parse_module(DIAMOND.format(body="  %p = phi i32 [ 1, %l ], [ 2, %r ]\n  ret i32 %p"))
    phi = m.functions[0].blocks[3].instrs[0]
    phi.set_operand(0, ConstFloat(F32, 1.0))
    assert module_problems(m) == [
        "in function @f, block %join: instruction '%p = phi i32 [ 1.0, %l ], [ 2, %r ]': "
        "incoming value has type float, the phi is i32"]


# -- SSA --------------------------------------------------------------------------------------


def test_use_not_dominated_by_definition():
    msg = only(DIAMOND.format(body="  %u = add i32 %a, 1\n  ret i32 %u"))
    assert msg == "in function @f, block %join: instruction '%u = add i32 %a, 1': operand %a does not dominate this use"


def test_use_before_definition_in_the_same_block():
    msg = only("define i32 @f() {\nentry:\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret i32 %a\n}")
    assert msg == "in function @f, block %entry: instruction '%a = add i32 %b, 1': operand %b is used before it is defined"


def _two_functions() -> tuple[Module, Function, Function, Builder]:
    m = Module()
    f = new_function(m, "f", I32, [I32], ["x"])
    g = new_function(m, "g", I32, [I32], ["y"])
    bg = Builder(g.add_block("entry"))
    bg.ret(bg.binop("add", g.args[0], g.args[0], "gv"))
    return m, f, g, Builder(f.add_block("entry"))


def test_operand_from_another_function():
    m, f, g, b = _two_functions()
    b.ret(b.binop("add", g.blocks[0].instrs[0], g.args[0], "s"))
    prefix = "in function @f, block %entry: instruction '%s = add i32 %?gv, %?y': "
    assert module_problems(m) == [prefix + "operand %gv is an instruction of function @g",
                                  prefix + "operand %y is an argument of another function"]


def test_operand_not_in_any_block():
    m, f, g, b = _two_functions()
    stray = Instr("add", I32, [ConstInt(I32, 1), ConstInt(I32, 2)], name="gone")
    b.ret(b.binop("add", stray, f.args[0], "s"))
    assert module_problems(m) == ["in function @f, block %entry: instruction '%s = add i32 %?gone, %x': "
                                  "operand %gone is an instruction that is not in any block"]


# -- operand types ----------------------------------------------------------------------------

TYPE_CASES = [
    ("%r = fadd i32 %i, %i", "operands must be float scalars or vectors, not i32"),
    ("%r = fneg i32 %i", "operand must be a float scalar or vector, not i32"),
    ("%r = icmp slt float %x, %x", "invalid operand type float for icmp"),
    ("%r = fcmp olt i32 %i, %i", "invalid operand type i32 for fcmp"),
    ("%r = sext i32 %i to i16", "cannot cast i32 to i16"),
    ("%r = bitcast i32 %i to double", "cannot cast i32 to double"),
    ("%r = select i32 %i, float %x, float %x", "condition must be i1 or a matching i1 vector, not i32"),
    ("%r = select i1 true, float %x, i32 %i", "arm types differ (float vs i32)"),
    ("%r = load i32, i32 %i", "address must be a pointer, not i32"),
    ("store i32 %i, float %x", "address must be a pointer, not float"),
    ("%r = getelementptr {i32, float}, ptr<global> %p, i64 0, i32 %i", "struct index must be a constant"),
    ("%r = getelementptr i32, ptr<global> %p, float %x", "index must be an integer, not float"),
    ("%r = getelementptr i32, ptr<global> %p", "getelementptr needs a base pointer and at least one index"),
    ("%r = atomicrmw fadd ptr<global> %p, i32 %i scope(device) monotonic", "atomicrmw fadd needs a float value, not i32"),
    ("%r = atomicrmw add ptr<global> %p, float %x scope(device) monotonic", "atomicrmw add needs an integer value, not float"),
    ("%r = cmpxchg ptr<global> %p, i32 %i, float %x scope(device) monotonic", "expected and new value types differ (i32 vs float)"),
    ("%r = extractelement <4 x float> %v, float %x", "index must be an integer, not float"),
    ("%r = insertelement <4 x float> %v, i32 %i, i32 0", "cannot insert i32 into <4 x float>"),
    ("%r = shufflevector <4 x float> %v, <4 x float> %v, [0, 8]", "mask element 8 out of range for two <4 x float>"),
    ("%r = shufflevector <4 x float> %v, float %x, [0]", "operands must be vectors of one type (<4 x float> vs float)"),
    ("%r = insertvalue {i32, float} %s, i32 %i, 1", "inserted value is i32, the indexed field is float"),
    ("%r = call i32 @h(i32 %i, i32 %i)", "@h takes 1 arguments, found 2"),
    ("%r = call i32 @h(float %x)", "argument 0 is float, @h expects i32"),
    ("condbr i32 %i, label %entry, label %entry", "condition must be i1, not i32"),
    ("switch float %x, label %entry [\n  ]", "switch value must be an integer, not float"),
    ("switch i32 %i, label %entry [\n i32 1, label %entry\n i32 1, label %entry\n ]", "duplicate case value 1"),
    ("ret i32 %i", "returns i32, but @f returns void"),
]


@pytest.mark.parametrize("line, problem", TYPE_CASES, ids=[c[1][:40] for c in TYPE_CASES])
def test_operand_types(line, problem):
    text = ("define i32 @h(i32 %a) {\n  ret i32 %a\n}\n"
            "define void @f(i32 %i, float %x, ptr<global> %p, <4 x float> %v, {i32, float} %s) {\n"
            f"entry:\n  {line}\n  ret void\n}}")
    found = [p for p in problems(text) if "terminator" not in p and "entry block" not in p]
    instr = line.split("\n")[0] if not line.startswith("switch") else None
    assert len(found) == 1, found
    if instr is not None:
        assert found[0] == f"in function @f, block %entry: instruction '{instr}': {problem}"
    else:
        assert found[0].startswith("in function @f, block %entry: instruction 'switch ")
        assert found[0].endswith(f"': {problem}")


def test_binary_operand_types_differ():
    m = Module()
    f = new_function(m, "k", VOID, [I32, F32], ["a", "b"])
    blk = f.add_block("loop")
    blk.append(Instr("add", I32, [f.args[0], f.args[1]]))
    Builder(blk).ret()
    f.add_block("entry")
    f.blocks.reverse()
    Builder(f.blocks[0]).br(blk)
    assert module_problems(m) == [
        "in function @k, block %loop: instruction '%0 = add i32 %a, %b': operand types differ (i32 vs float)"]


def test_result_types_and_arity():
    m = Module()
    f = new_function(m, "f", VOID, [I32, StructType((I32,))], ["a", "s"])
    b = Builder(f.add_block("entry"))
    b.insert(Instr("add", I64, [f.args[0], f.args[0]], name="wide"))
    b.insert(Instr("sub", I32, [f.args[0]], name="one"))
    b.insert(Instr("extractvalue", I32, [f.args[1]], {"indices": (3,)}, name="ev"))
    b.ret()
    prefix = "in function @f, block %entry: instruction "
    assert module_problems(m) == [
        prefix + "'%wide = add i32 %a, %a': result type is i64, expected i32",
        prefix + "'%one = sub <malformed: expected 2 operands, found 1>': expected 2 operands, found 1",
        prefix + "'%ev = extractvalue {i32} %s, 3': invalid index 3 into {i32}",
    ]


def test_unknown_opcode_is_reported_alone():
    m = Module()
    f = new_function(m, "f", VOID, [], [])
    f.add_block("entry").append(Instr("frob", I32, [], name="odd"))
    assert module_problems(m) == [
        "in function @f, block %entry: instruction '%odd = <unknown op frob>': unknown opcode 'frob'"]


def test_call_of_function_outside_the_module():
    m, f, g, b = _two_functions()
    stranger = Function("stranger", g.type, list(g.args))
    b.ret(b.call(stranger, [f.args[0]], "r"))
    assert module_problems(m) == ["in function @f, block %entry: instruction '%r = call i32 @stranger(i32 %x)': "
                                  "callee @stranger is not a function of this module"]


def test_variadic_call_takes_extra_arguments():
    verify_module(parse_module("declare i32 @ocl.printf(ptr<constant> %f, ...)\n"
                               "@s = addrspace(constant) constant i8 0\n"
                               "define void @f() {\n  %r = call i32 @ocl.printf(ptr<constant> @s, i32 1)\n  ret void\n}"))
    msg = only("declare i32 @ocl.printf(ptr<constant> %f, ...)\n"
               "define void @f() {\n  %r = call i32 @ocl.printf()\n  ret void\n}")
    assert msg.endswith("'%r = call i32 @ocl.printf()': @ocl.printf takes 1 arguments, found 0")


# -- functions and the module -----------------------------------------------------------------


def test_kernel_must_return_void():
    msg = only("kernel i32 @k() {\nentry:\n  ret i32 0\n}")
    assert msg == "in function @k: a kernel must return void, not i32"


def test_arguments_match_signature():
    m = parse_module("declare void @f(i32 %a)")
    m.functions[0].args[0].index = 3
    m.functions[0].args[0].type = F32
    assert module_problems(m) == [
        "in function @f: arguments (float) do not match the signature void (i32)",
        "in function @f: argument %a has index 3, expected 0"]


def test_duplicate_module_names():
    m = parse_module("declare void @x()\n")
    m.globals.append(GlobalVar("x", I32, AddressSpace.GLOBAL))
    assert module_problems(m) == ["duplicate name '@x'"]


def test_global_initializer_problems():
    m = Module()
    m.add_global(GlobalVar("g", I32, AddressSpace.GLOBAL, ConstFloat(F32, 1.0)))
    arr = VectorType(I32, 2)
    m.add_global(GlobalVar("h", arr, AddressSpace.GLOBAL, ConstAggregate(arr, [ConstInt(I32, 1)])))
    m.add_global(GlobalVar("e", I32, AddressSpace.GLOBAL, GlobalVar("elsewhere", I32, AddressSpace.GLOBAL)))
    assert module_problems(m) == [
        "global @g: initializer has type float, expected i32",
        "global @h: initializer: aggregate elements do not match <2 x i32>",
        "global @e: initializer has type ptr<global>, expected i32",
        "global @e: initializer: @elsewhere is not a global of this module",
    ]


def test_constant_getelementptr_problems():
    m = parse_module("@l = addrspace(local) global [4 x i32]\n"
                     "@a = addrspace(global) global ptr<local> getelementptr (i8, ptr<local> @l, i64 4)\n"
                     "@g = addrspace(global) global i32 0\n"
                     "define void @f(ptr<global> %o) {\nentry:\n  ret void\n}\n")
    elsewhere = GlobalVar("elsewhere", I32, AddressSpace.GLOBAL)
    m.add_global(GlobalVar("b", ptr(AddressSpace.GLOBAL), AddressSpace.GLOBAL, ConstOffset(elsewhere, 8)))
    entry = m.functions[0].entry
    b = Builder(entry)
    b.position_before(entry.instrs[0])
    b.store(ConstInt(I32, 1), ConstOffset(m.globals[2], 0))
    assert module_problems(m) == [
        "global @a: initializer: @l is __local: its address is no constant",
        "global @b: initializer: @elsewhere is not a global of this module",
        "in function @f, block %entry: instruction 'store i32 1, ptr<global> getelementptr (i8, ptr<global> @g, "
        "i64 0)': operand getelementptr (i8, ptr<global> @g, i64 0): a constant getelementptr may only "
        "initialize a global",
    ]


def test_constant_addrspacecast_problems():
    # only a global's address converts, and only to generic (OpenCL C 2.0: constant is no
    # part of the generic space; no other named space holds a global)
    m = parse_module("@g = addrspace(global) global i32 0\n@c = addrspace(constant) constant i32 0\n"
                     "@ok = addrspace(global) global ptr<generic> addrspacecast (ptr<global> @g to ptr<generic>)\n"
                     "@a = addrspace(global) global ptr<generic> addrspacecast (ptr<constant> @c to ptr<generic>)\n"
                     "@b = addrspace(global) global ptr<local> addrspacecast (ptr<global> @g to ptr<local>)\n")
    assert module_problems(m) == [
        "global @a: initializer: a constant addrspacecast of @c to ptr<generic>: only a global's address converts, to generic",
        "global @b: initializer: a constant addrspacecast of @g to ptr<local>: only a global's address converts, to generic",
    ]


def test_verify_function_alone():
    m = parse_module("define void @f() {\nentry:\n  ret i32 1\n}")
    with pytest.raises(VerifyError) as info:
        verify_function(m.functions[0])
    assert info.value.problems == [
        "in function @f, block %entry: instruction 'ret i32 1': returns i32, but @f returns void"]


# -- address spaces -----------------------------------------------------------------------------

SPACES = "define void @f(ptr<constant> %c, ptr<global> %g, ptr<generic> %p) {{\nentry:\n  {line}\n  ret void\n}}"


@pytest.mark.parametrize("line, problem", [
    ("store i32 1, ptr<constant> %c", "store through ptr<constant> (constant memory is read-only)"),
    ("%r = atomicrmw add ptr<constant> %c, i32 1 scope(device) monotonic",
     "atomicrmw through ptr<constant> (constant memory is read-only)"),
    ("%r = cmpxchg ptr<constant> %c, i32 1, i32 2 scope(device) monotonic",
     "cmpxchg through ptr<constant> (constant memory is read-only)"),
    ("%r = addrspacecast ptr<global> %g to ptr<local>",
     "addrspacecast from ptr<global> to ptr<local>: a cast between two named address spaces is "
     "not allowed (only to or from generic)"),
    ("%r = addrspacecast ptr<generic> %p to ptr<generic>", "cannot cast ptr<generic> to ptr<generic>"),
    ("%r = alloca i32, addrspace(local)", "alloca in address space local; the cpu target allocates in private"),
])
def test_address_space_rules(line, problem):
    msg = only(SPACES.format(line=line))
    assert msg == f"in function @f, block %entry: instruction '{line}': {problem}"


def test_address_space_casts_to_and_from_generic_are_fine():
    verify_module(parse_module(SPACES.format(
        line="%a = addrspacecast ptr<global> %g to ptr<generic>\n"
             "  %b = addrspacecast ptr<generic> %p to ptr<global>\n"
             "  %l = load i32, ptr<constant> %c")))


def test_alloca_space_comes_from_the_data_layout():
    layout = DataLayout("gpu", alloca_space=AddressSpace.GENERIC)
    text = SPACES.format(line="%r = alloca i32")
    assert problems(text, layout=layout) == [
        "in function @f, block %entry: instruction '%r = alloca i32': "
        "alloca in address space private; the gpu target allocates in generic"]
    verify_module(parse_module(SPACES.format(line="%r = alloca i32, addrspace(generic)")), layout)


def test_malformed_attributes_are_reported_not_crashed_on():
    m = parse_module("define void @f(i32 %i, <2 x i32> %v) {\nentry:\n"
                     "  %s = shufflevector <2 x i32> %v, <2 x i32> %v, [0]\n"
                     "  switch i32 %i, label %entry [\n  ]\n}")
    shuffle, switch = m.functions[0].blocks[0].instrs
    shuffle.attrs["mask"] = None
    switch.attrs["cases"] = ("one",)
    found = module_problems(m)
    assert found[-2].endswith("mask must be a tuple of integers, not None")
    assert found[-1].endswith("switch cases must be a tuple of integers, not ('one',)")
