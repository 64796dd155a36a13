"""Parsing hand-written IR text, and the line:col and message of each parse error."""

from __future__ import annotations

import math

import pytest

from oclpy.ir.parser import IRParseError, parse_module
from oclpy.ir.printer import print_module
from oclpy.ir.types import F32, I32, VOID, AddressSpace, PtrType, StructType, VectorType
from oclpy.ir.values import ConstOffset

LOOP = """\
; a comment before everything
define i32 @count(i32 %n) {   ; trailing comment
  br label %head              ; the entry block may go unlabelled
head:
  %i = phi i32 [ 0, %0 ], [ %next, %body ]
  %c = icmp slt i32 %i, %n
  condbr i1 %c, label %body, label %exit
body:
  %next = add i32 %i, 1
  br label %head
exit:
  ret i32 %i
}
"""


def test_forward_references_to_values_and_blocks():
    m = parse_module(LOOP)
    fn = m.get_function("count")
    entry, head, body, exit_ = fn.blocks
    phi = head.instrs[0]
    assert entry.name == "" and head.name == "head"
    assert phi.operands[1] is body.instrs[0]
    assert phi.blocks == [entry, body]
    assert entry.instrs[0].targets == [head]
    assert head.instrs[2].targets == [body, exit_]


def test_printed_form_of_hand_written_text_is_canonical():
    text = print_module(parse_module(LOOP))
    assert text.startswith("define i32 @count(i32 %n) {\n0:\n  br label %head\n\nhead:\n")
    assert print_module(parse_module(text)) == text


def test_numbered_values_need_not_be_in_order():
    m = parse_module("define i32 @f(i32 %7) {\n%9 = add i32 %7, %7\n%4 = mul i32 %9, 2\nret i32 %4\n}")
    fn = m.functions[0]
    assert [i.name for i in fn.instructions()] == ["", "", ""]
    assert print_module(m).endswith("1:\n  %2 = add i32 %0, %0\n  %3 = mul i32 %2, 2\n  ret i32 %3\n}\n")


def test_calls_and_globals_may_come_before_their_definitions():
    m = parse_module("""
define float @f(float %x) {
  %g = load float, ptr<constant> @table
  %r = call float @g(float %g)
  ret float %r
}
define float @g(float %y) {
  ret float %y
}
@table = addrspace(constant) constant float 1.0
""")
    call = m.functions[0].blocks[0].instrs[1]
    assert call.attrs["callee"] is m.get_function("g")
    assert m.functions[0].blocks[0].instrs[0].operands[0] is m.get_global("table")
    assert [f.name for f in m.functions] == ["f", "g"]


def test_intrinsic_declarations_get_their_base_from_the_name():
    m = parse_module("declare float @ocl.sqrt.v4f32(<4 x float> %a0)\n"
                     "declare i64 @ocl.get_global_id(i32)\n"
                     "declare i32 @ocl.printf(ptr<constant> %fmt, ...)\n"
                     "declare void @helper()\n")
    assert [f.attrs for f in m.functions] == [
        {"intrinsic": "sqrt"}, {"intrinsic": "get_global_id"},
        {"intrinsic": "printf", "variadic": True}, {}]


def test_kernel_and_argument_attributes():
    m = parse_module("""
kernel void @k(ptr<global> %a #{type_name = "float*", address_qualifier = "global",
                                access_qualifier = "none", type_qualifiers = {"const", "restrict"}},
               i32 %n #{type_qualifiers = {}})
    #{reqd_work_group_size = (16, 16, 1), vec_type_hint = type(<4 x float>), tag = "a\\22b",
      list = [1, -2, 0x3FF0000000000000], one = (none,), "weird key" = false} {
entry:
  ret void
}""")
    k = m.functions[0]
    assert k.is_kernel
    assert k.args[0].attrs == {"type_name": "float*", "address_qualifier": "global",
                               "access_qualifier": "none", "type_qualifiers": {"const", "restrict"}}
    assert k.args[1].attrs == {"type_qualifiers": set()}
    assert k.attrs == {"reqd_work_group_size": (16, 16, 1), "vec_type_hint": VectorType(F32, 4),
                       "tag": 'a"b', "list": [1, -2, 1.0], "one": (None,), "weird key": False}


def test_nan_attribute():
    m = parse_module("declare void @f() #{x = 0x7FF8000000000000}")
    assert math.isnan(m.functions[0].attrs["x"])


def test_parsed_attrs_are_the_builders():
    m = parse_module("""
define void @f(ptr<global> %p, i32 %i) {
  %a = alloca {i32, float}, align 8
  %l = load volatile i32, ptr<global> %p
  store i32 %l, ptr<global> %p, align 4
  %g = getelementptr inbounds {i32, float}, ptr<private> %a, i64 0, i32 1
  %x = atomicrmw add ptr<global> %p, i32 1 scope(work_group) seq_cst
  %s = switch_is_not_here
}""".replace("  %s = switch_is_not_here\n", "  ret void\n"))
    a, l, s, g, x, _ = m.functions[0].blocks[0].instrs
    assert a.attrs == {"elem": StructType((I32, F32)), "align": 8, "space": AddressSpace.PRIVATE}
    assert a.type == PtrType(AddressSpace.PRIVATE)
    assert l.attrs == {"align": 0, "volatile": True}
    assert s.attrs == {"align": 4, "volatile": False} and s.type == VOID
    assert g.attrs == {"elem": StructType((I32, F32)), "inbounds": True}
    assert x.attrs == {"binop": "add", "ordering": "seq_cst", "scope": "work_group"}


def test_constants():
    m = parse_module("""
@a = addrspace(global) global {i1, i8, <2 x half>, ptr<local>} {i1 true, i8 255, <2 x half> <half 1, half 1e3>, ptr<local> null}
@b = addrspace(global) global i32 0xFF
@c = addrspace(private) global [2 x i32] zeroinitializer, align 8
@d = addrspace(global) global ptr<global> @b
""")
    a, b, c, d = m.globals
    bits, byte, halves, null = a.initializer.elements
    assert bits.value == 1 and byte.signed() == -1
    assert [h.value for h in halves.elements] == [1.0, 1000.0]
    assert b.initializer.value == 255 and c.align == 8 and d.initializer is b


def test_global_without_initializer_before_another_global():
    text = ("@a = addrspace(local) global i32\n@b = addrspace(global) global ptr<local> @a\n"
            "@c = addrspace(local) global i8\n")
    m = parse_module(text)
    assert m.globals[0].initializer is None and m.globals[1].initializer is m.globals[0]
    assert print_module(m) == text


def test_module_name_and_quoted_names():
    m = parse_module('module "my mod"\ndefine void @"a b"() {\n"x y":\n  ret void\n}')
    assert m.name == "my mod"
    assert m.functions[0].name == "a b" and m.functions[0].blocks[0].name == "x y"


def test_constant_getelementptr_round_trips_and_names_its_global():
    text = ("@t = addrspace(constant) constant [4 x i32] zeroinitializer, align 4\n"
            "@p = addrspace(global) global {ptr<constant>, i32} "
            "{ptr<constant> getelementptr (i8, ptr<constant> @t, i64 -4), i32 7}\n")
    m = parse_module(text)
    t, p = m.globals
    offset = p.initializer.elements[0]
    assert isinstance(offset, ConstOffset) and offset.base is t and offset.offset == -4
    assert offset.type == PtrType(AddressSpace.CONSTANT)
    assert print_module(m) == text


def test_constant_addrspacecast_round_trips() -> None:
    text = ("@g = addrspace(global) global [4 x i32] zeroinitializer, align 4\n"
            "@p = addrspace(global) global [2 x ptr<generic>] [ptr<generic> addrspacecast (ptr<global> "
            "getelementptr (i8, ptr<global> @g, i64 0) to ptr<generic>), ptr<generic> addrspacecast "
            "(ptr<global> getelementptr (i8, ptr<global> @g, i64 8) to ptr<generic>)]\n")
    m = parse_module(text)
    g, p = m.globals
    first, second = p.initializer.elements
    assert (first.base, first.offset, first.type) == (g, 0, PtrType(AddressSpace.GENERIC))
    assert (second.base, second.offset, second.space) == (g, 8, AddressSpace.GENERIC)
    assert print_module(m) == text
    bare = parse_module("@g = addrspace(global) global i32 0\n"
                        "@p = addrspace(global) global ptr<generic> addrspacecast (ptr<global> @g to ptr<generic>)\n")
    assert "addrspacecast (ptr<global> getelementptr (i8, ptr<global> @g, i64 0) to ptr<generic>)" in print_module(bare)


# -- errors -------------------------------------------------------------------------------

CG = "@t = addrspace(global) global i32 0\n@p = addrspace(global) global "

ERRORS = [
    ("define void @f() {\n  %x = frob i32 1\n}", 2, 8, "unknown instruction 'frob'"),
    ("define void @f() {\n  ret i32 %y\n}", 2, 11, "use of undefined value '%y'"),
    ("define void @f() {\n  br label %nowhere\n}", 2, 12, "use of undefined label '%nowhere'"),
    ("define i32 @f(i32 %a) {\n  %a = add i32 1, 2\n  ret i32 %a\n}", 2, 3, "redefinition of '%a'"),
    ("define float @f(i32 %a) {\n  ret float %a\n}", 2, 13, "'%a' has type i32, not float"),
    ("define void @f() {\n  %u = add i32 %v, 1\n  %v = fadd float 1.0, 1.0\n  ret void\n}", 2, 16,
     "'%v' is defined with type float but used as i32"),
    ("define void @f() {\n  ret void ?\n}", 2, 12, "unexpected character '?'"),
    ('module "abc\ndefine', 1, 8, "unterminated string"),
    ("define i32 @f(i32 %a) {\n  %b = add i32 %a %a\n}", 2, 19, "expected ',', found '%a'"),
    ("define i1 @f(i32 %a) {\n  %c = icmp lt i32 %a, 0\n}", 2, 13, "unknown icmp predicate 'lt'"),
    ("define void @f(ptr<shared> %p) {\n}", 1, 20, "unknown address space 'shared'"),
    ("define void @f() {\n  call void @g()\n  ret void\n}", 2, 13, "use of undefined '@g'"),
    ("declare void @f()\ndeclare void @f()", 2, 14, "redefinition of '@f'"),
    ("@g = addrspace(global) global float null", 1, 37, "'null' is not a valid float constant (null needs a pointer type)"),
    ("@g = addrspace(global) global [2 x i32] [i32 1]", 1, 41, "constant elements (i32) do not match type [2 x i32]"),
    ("@g = addrspace(global) global i32 [i32 1]", 1, 35, "aggregate constant does not match type i32"),
    ("declare void @f() #{a = 1, a = 2}", 1, 28, "duplicate attribute 'a'"),
    ("define void @f(ptr<global> %p) {\n  %s = store i32 1, ptr<global> %p\n}", 2, 3,
     "'store' produces no value to name"),
    ("declare i32 @g()\ndefine void @f() {\n  %r = call float @g()\n  ret void\n}", 3, 19,
     "'@g' returns i32, not float"),
    ("define void @f({i32} %s) {\n  %x = extractvalue {i32} %s, 1\n}", 2, 21, "invalid index 1 into {i32}"),
    ("define void @f() {\n  ret void\n", 3, 1, "expected '}' at the end of the function body"),
    ("define i0 @f()", 1, 8, "invalid integer width 0"),
    ("define void @f() {\n}", 2, 1, "a function body needs at least one block"),
    ("define void @f() {\nentry:\n  ret void\nentry:\n  ret void\n}", 4, 1, "redefinition of '%entry'"),
    ("@g = addrspace(global) global i32 0\ndefine void @f() {\n  call void @g()\n  ret void\n}",
     3, 13, "'@g' is not a function"),
    ("define void @f(i32 %x) {\n  br label %x\n}", 2, 12, "'%x' is a value, not a block"),
    ("define void @f() {\n  %x = extractelement i32 1, i32 0\n}", 2, 23, "expected a vector, found i32"),
    ("frob", 1, 1, "expected a global, 'define', 'kernel' or 'declare', found 'frob'"),
    ("define void @f() {\n  %x = atomicrmw nand ptr<global> null, i32 1 scope(device) monotonic\n}",
     2, 18, "unknown atomicrmw operation 'nand'"),
    ("@g = addrspace(global) global float 0x12", 1, 37, "hexadecimal float constants need 16 digits"),
    ("define void @f() {\n  %v = add <0 x i32> undef, undef\n}", 2, 17, "invalid vector type <0 x i32>"),
    ("declare void @f() #{s = {[1]}}", 1, 25, "set attribute elements must be hashable"),
    ("define void @f() {\n  switch i32 0, label %a [\n    i64 1, label %a\n  ]\na:\n  ret void\n}",
     3, 5, "switch case must have type i32"),
    # constant getelementptr (a global's address plus bytes)
    (f"{CG}i32 getelementptr (i8, ptr<global> @t, i64 4)", 2, 35,
     "'getelementptr' is not a valid i32 constant (it is a pointer)"),
    (f"{CG}ptr<global> getelementptr (i32, ptr<global> @t, i64 4)", 2, 58,
     "a constant getelementptr steps in bytes: its element type is i8"),
    (f"{CG}ptr<global> getelementptr (i8, ptr<constant> @t, i64 4)", 2, 62,
     "a constant getelementptr of type ptr<global> starts from a ptr<global>"),
    (f"{CG}ptr<global> getelementptr (i8, ptr<global> %t, i64 4)", 2, 74, "expected a global, found '%t'"),
    (f"{CG}ptr<global> getelementptr (i8, ptr<global> @t, i32 4)", 2, 78,
     "a constant getelementptr's offset is an i64"),
    (f"{CG}ptr<global> getelementptr (i8, ptr<global> @t, i64 x)", 2, 82, "expected a byte offset, found 'x'"),
    (f"{CG}ptr<global> getelementptr (i8, ptr<global> @t, i64 4", 2, 83,
     "expected ')' to close the constant getelementptr, found end of input"),
    (f"{CG}ptr<global> getelementptr i8", 2, 57, "expected '(' after 'getelementptr' in a constant, found 'i8'"),
    ("@p = addrspace(global) global ptr<global> getelementptr (i8, ptr<global> @f, i64 4)\n"
     "define void @f() {\n  ret void\n}", 2, 13, "'@f' is used as a global variable"),
    # constant addrspacecast (a global's address in another space)
    (f"{CG}i64 addrspacecast (ptr<global> @t to i64)", 2, 35,
     "'addrspacecast' is not a valid i64 constant (it is a pointer)"),
    (f"{CG}ptr<generic> addrspacecast (ptr<global> null to ptr<generic>)", 2, 71,
     "a constant addrspacecast converts a global's address"),
    (f"{CG}ptr<generic> addrspacecast (ptr<global> @t as ptr<generic>)", 2, 74,
     "expected 'to' in a constant addrspacecast"),
    (f"{CG}ptr<generic> addrspacecast (ptr<global> @t to ptr<local>)", 2, 77,
     "a constant addrspacecast of type ptr<generic> converts to ptr<generic>"),
]


@pytest.mark.parametrize("text, line, col, message", ERRORS, ids=[e[3][:40] for e in ERRORS])
def test_parse_errors(text, line, col, message):
    with pytest.raises(IRParseError) as info:
        parse_module(text, "t.oir")
    err = info.value
    assert (err.loc.line, err.loc.col, err.message) == (line, col, message)
    rendered = str(err).splitlines()
    assert rendered[0] == f"t.oir:{line}:{col}: error: {message}"
    assert rendered[1] == text.splitlines()[line - 1] if line <= len(text.splitlines()) else True
    assert rendered[-1] == " " * (col - 1) + "^" if len(rendered) == 3 else True


def test_error_rendering_has_source_line_and_caret():
    with pytest.raises(IRParseError) as info:
        parse_module("define void @f() {\n  ret voidd\n}", "k.oir")
    assert str(info.value) == ("k.oir:2:7: error: expected a type, found 'voidd'\n"
                               "  ret voidd\n"
                               "      ^\n")


def test_deep_nesting_is_an_error_not_a_crash():
    text = "@g = addrspace(global) global " + "[1 x " * 5000 + "i32" + "]" * 5000
    with pytest.raises(IRParseError) as info:
        parse_module(text)
    assert info.value.message == "nesting too deep"


def test_mutated_text_gives_parse_errors_never_crashes():
    """Random edits of valid text either parse (and then verify and print without
    crashing) or raise IRParseError; no other exception escapes."""
    import random

    from irmodules import ALL_MODULES
    from oclpy.ir.verifier import module_problems

    texts = [print_module(make()) for make in ALL_MODULES.values()]
    pieces = ["%x", "@g", "i32", "[", "]", "{", "}", "<", ">", ",", "0", "-1", "1.5", "label",
              "0x7FF0000000000000", "0x1", "007", "ptr<global>", "void", "(", ")", "#{", "...",
              '"s"', "phi", "entry:", "undef", "null", "true", "%0", "type(i32)"]
    rng = random.Random(1234)
    parsed = 0
    for _ in range(400):
        text = rng.choice(texts)
        i = rng.randrange(len(text))
        j = min(len(text), i + rng.randint(0, 10))
        text = text[:i] + rng.choice(pieces + [""]) + text[j:]
        try:
            module = parse_module(text)
        except IRParseError:
            continue
        parsed += 1
        module_problems(module)
        print_module(module)
    assert parsed > 0
