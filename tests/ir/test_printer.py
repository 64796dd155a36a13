"""The printed form of every instruction, constant, global and function header."""

from __future__ import annotations

import pytest

from irmodules import PACKED, PAIR, V4F, new_function, vadd_module
from oclpy.ir.builder import Builder, add_incoming, i32
from oclpy.ir.printer import (
    Names, format_attr_value, format_float, format_name, format_value, print_function,
    print_instr, print_module,
)
from oclpy.ir.types import (
    F16, F32, F64, I1, I8, I32, I64, VOID, AddressSpace, ArrayType, FunctionType, VectorType, ptr,
)
from oclpy.ir.values import (
    Argument, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Function, GlobalVar,
    Instr, Module, Undef,
)


@pytest.fixture
def env():
    """A function @f(i32 %i, float %x, ptr<global> %p, <4 x float> %v) and a builder in it."""
    m = Module()
    fn = new_function(m, "f", VOID, [I32, F32, ptr("global"), V4F, PAIR], ["i", "x", "p", "v", "s"])
    b = Builder(fn.add_block("entry"))
    return m, fn, b, {a.name: a for a in fn.args}


CASES = [
    (lambda b, a: b.binop("add", a["i"], i32(-1)), "%0 = add i32 %i, -1"),
    (lambda b, a: b.binop("fmul", a["x"], ConstFloat(F32, 2.0), "y"), "%y = fmul float %x, 2.0"),
    (lambda b, a: b.fneg(a["v"]), "%0 = fneg <4 x float> %v"),
    (lambda b, a: b.icmp("ult", a["i"], i32(3)), "%0 = icmp ult i32 %i, 3"),
    (lambda b, a: b.icmp("ne", a["p"], ConstNull(ptr("global"))), "%0 = icmp ne ptr<global> %p, null"),
    (lambda b, a: b.fcmp("uno", a["v"], a["v"]), "%0 = fcmp uno <4 x float> %v, %v"),
    (lambda b, a: b.cast("sitofp", a["i"], F64), "%0 = sitofp i32 %i to double"),
    (lambda b, a: b.cast("addrspacecast", a["p"], ptr("generic")),
     "%0 = addrspacecast ptr<global> %p to ptr<generic>"),
    (lambda b, a: b.select(ConstInt(I1, 1), a["x"], Undef(F32)), "%0 = select i1 true, float %x, float undef"),
    (lambda b, a: b.alloca(ArrayType(F32, 16), align=4, name="buf"), "%buf = alloca [16 x float], align 4"),
    (lambda b, a: b.alloca(I32), "%0 = alloca i32"),
    (lambda b, a: b.alloca(I32, space=AddressSpace.LOCAL), "%0 = alloca i32, addrspace(local)"),
    (lambda b, a: b.load(F32, a["p"], align=4), "%0 = load float, ptr<global> %p, align 4"),
    (lambda b, a: b.load(I8, a["p"], volatile=True), "%0 = load volatile i8, ptr<global> %p"),
    (lambda b, a: b.store(a["x"], a["p"], align=8), "store float %x, ptr<global> %p, align 8"),
    (lambda b, a: b.store(a["x"], a["p"], volatile=True), "store volatile float %x, ptr<global> %p"),
    (lambda b, a: b.gep(F32, a["p"], [a["i"]], inbounds=True),
     "%0 = getelementptr inbounds float, ptr<global> %p, i32 %i"),
    (lambda b, a: b.gep(PAIR, a["p"], [ConstInt(I64, 0), i32(1)]),
     "%0 = getelementptr {i32, float}, ptr<global> %p, i64 0, i32 1"),
    (lambda b, a: b.atomicrmw("umax", a["p"], a["i"], "acq_rel", "work_group"),
     "%0 = atomicrmw umax ptr<global> %p, i32 %i scope(work_group) acq_rel"),
    (lambda b, a: b.cmpxchg(a["p"], a["i"], i32(0), "seq_cst", "sub_group"),
     "%0 = cmpxchg ptr<global> %p, i32 %i, i32 0 scope(sub_group) seq_cst"),
    (lambda b, a: b.extractelement(a["v"], i32(3)), "%0 = extractelement <4 x float> %v, i32 3"),
    (lambda b, a: b.insertelement(a["v"], a["x"], a["i"]),
     "%0 = insertelement <4 x float> %v, float %x, i32 %i"),
    (lambda b, a: b.shufflevector(a["v"], a["v"], [0, -1, 7]),
     "%0 = shufflevector <4 x float> %v, <4 x float> %v, [0, -1, 7]"),
    (lambda b, a: b.extractvalue(a["s"], [0]), "%0 = extractvalue {i32, float} %s, 0"),
    (lambda b, a: b.insertvalue(a["s"], a["i"], [0]), "%0 = insertvalue {i32, float} %s, i32 %i, 0"),
    (lambda b, a: b.ret(), "ret void"),
    (lambda b, a: b.unreachable(), "unreachable"),
]


@pytest.mark.parametrize("make, expected", CASES, ids=[c[1].split(" = ")[-1].split()[0] for c in CASES])
def test_instruction_forms(env, make, expected):
    _, _, b, args = env
    assert print_instr(make(b, args)) == expected


def test_control_flow_forms(env):
    m, fn, b, a = env
    loop, done = fn.add_block("loop"), fn.add_block("done")
    br = b.br(loop)
    b.position_at_end(loop)
    phi = b.phi(I32, "k")
    cond = b.condbr(ConstInt(I1, 0), loop, done)
    add_incoming(phi, i32(0), fn.entry)
    add_incoming(phi, phi, loop)
    b.position_at_end(done)
    sw = b.switch(a["i"], done, [(-1, loop), (4, done)])
    assert print_instr(br) == "br label %loop"
    assert print_instr(phi) == "%k = phi i32 [ 0, %entry ], [ %k, %loop ]"
    assert print_instr(cond) == "condbr i1 false, label %loop, label %done"
    assert print_instr(sw) == ("switch i32 %i, label %done [\n    i32 -1, label %loop\n"
                               "    i32 4, label %done\n  ]")


def test_calls_and_declarations():
    m = Module()
    callee = new_function(m, "ocl.sqrt.f32", F32, [F32])
    callee.attrs["intrinsic"] = "sqrt"
    barrier = new_function(m, "ocl.barrier", VOID, [I32])
    barrier.attrs["intrinsic"] = "barrier"
    printf = new_function(m, "printf", I32, [ptr("constant")])
    printf.attrs["variadic"] = True
    fn = new_function(m, "f", F32, [F32], ["x"])
    b = Builder(fn.add_block("entry"))
    r = b.call(callee, [fn.args[0]], "r")
    c = b.call(barrier, [i32(2)])
    assert print_instr(r) == "%r = call float @ocl.sqrt.f32(float %x)"
    assert print_instr(c) == "call void @ocl.barrier(i32 2)"
    assert print_function(callee) == "declare float @ocl.sqrt.f32(float %a0)"
    assert print_function(printf) == "declare i32 @printf(ptr<constant> %a0, ...)"


def test_intrinsic_attr_shown_only_when_it_differs_from_the_name():
    m = Module()
    odd = new_function(m, "ocl.sqrt.f32", F32, [F32])
    odd.attrs["intrinsic"] = "rsqrt"
    assert print_function(odd) == 'declare float @ocl.sqrt.f32(float %a0) #{intrinsic = "rsqrt"}'


def test_kernel_header_and_attrs():
    text = print_module(vadd_module())
    assert 'kernel void @vadd(\n    ptr<global> %a #{access_qualifier = "none", ' in text
    assert 'type_qualifiers = {"const"}},' in text
    assert '#{reqd_work_group_size = (16, 1, 1)} {\nentry:\n' in text
    assert text.startswith('module "vadd"\n\ndeclare i64 @ocl.get_global_id(i32 %a0)\n\n')


def test_kernel_and_helper_without_attrs():
    m = Module()
    k = new_function(m, "k", VOID, [I32], ["n"], kernel=True)
    Builder(k.add_block("entry")).ret()
    decl = new_function(m, "ext", VOID, [], kernel=True)
    assert print_function(k) == "kernel void @k(i32 %n) {\nentry:\n  ret void\n}"
    assert print_function(decl) == "declare kernel void @ext()"


@pytest.mark.parametrize("value, text", [
    (ConstInt(I32, 0xFFFFFFFF), "-1"),
    (ConstInt(I8, 200), "-56"),
    (ConstInt(I64, 2**63 - 1), "9223372036854775807"),
    (ConstInt(I1, 1), "true"),
    (ConstInt(I1, 0), "false"),
    (ConstFloat(F32, 0.5), "0.5"),
    (ConstFloat(F64, -0.0), "-0.0"),
    (ConstFloat(F64, 1e-300), "1e-300"),
    (ConstFloat(F16, float("inf")), "0x7FF0000000000000"),
    (ConstNull(ptr("local")), "null"),
    (Undef(V4F), "undef"),
    (ConstZero(ArrayType(I32, 4)), "zeroinitializer"),
    (ConstAggregate(VectorType(I32, 2), [ConstInt(I32, 1), ConstInt(I32, 2)]), "<i32 1, i32 2>"),
    (ConstAggregate(ArrayType(I8, 1), [ConstInt(I8, 7)]), "[i8 7]"),
    (ConstAggregate(PAIR, [ConstInt(I32, 1), ConstFloat(F32, 2.5)]), "{i32 1, float 2.5}"),
    (ConstAggregate(PACKED, [ConstInt(I8, 1), ConstInt(I32, 2)]), "<{i8 1, i32 2}>"),
])
def test_constant_forms(value, text):
    assert format_value(value) == text


def test_float_bits_round_trip_through_text():
    import struct
    for bits in (0x3FB999999999999A, 0x7FF8000000000001, 0xFFF8000000000000, 1, 0x8000000000000000):
        value = struct.unpack(">d", bits.to_bytes(8, "big"))[0]
        text = format_float(value)
        back = struct.unpack(">d", bytes.fromhex(text[2:]))[0] if text.startswith("0x") else float(text)
        assert struct.pack(">d", back) == struct.pack(">d", value)


def test_globals():
    m = Module()
    m.add_global(GlobalVar("k.tile", ArrayType(F32, 64), AddressSpace.LOCAL, align=16))
    m.add_global(GlobalVar("c", I32, AddressSpace.CONSTANT, ConstInt(I32, 3), constant=True))
    assert print_module(m) == ("@k.tile = addrspace(local) global [64 x float], align 16\n"
                               "@c = addrspace(constant) constant i32 3\n")


def test_names_quoting_numbering_and_uniquifying():
    assert format_name("a.b-c$") == "a.b-c$"
    assert format_name("a b") == '"a b"'
    assert format_name("1x") == '"1x"'
    assert format_name('q"\\é') == '"q\\22\\5C\\C3\\A9"'
    m = Module()
    fn = new_function(m, "f", I32, [I32, I32], ["v", ""])
    b = Builder(fn.add_block("v"))
    x = b.binop("add", fn.args[0], fn.args[1], "v")
    y = b.binop("add", x, x, "12")
    b.ret(y)
    names = Names(fn)
    assert [names.local(v) for v in (fn.args[0], fn.args[1], fn.blocks[0], x, y)] == \
        ["%v", "%0", "%v.1", "%v.2", "%1"]


def test_foreign_and_detached_values_still_print(env):
    m, fn, b, a = env
    other = new_function(m, "g", VOID, [I32], ["z"])
    stray = Instr("add", I32, [a["i"], a["i"]], name="lost")
    add = b.binop("add", other.args[0], stray)
    assert print_instr(add) == "%0 = add i32 %?z, %?lost"


def test_attribute_values():
    assert format_attr_value((1,)) == "(1,)"
    assert format_attr_value(frozenset({"b", "a"})) == '{"a", "b"}'
    assert format_attr_value([True, None, 1.5]) == "[true, none, 1.5]"
    assert format_attr_value(I32) == "type(i32)"
    assert format_attr_value(Argument(I32, "q", 0)) == '"<Argument q: i32>"'  # shown, not lost


def test_function_as_value_is_its_name():
    m = Module()
    fn = Function("ext", FunctionType(VOID, ()))
    assert format_value(fn) == "@ext"
