"""Hand-built IR modules covering every opcode and attribute, shared by the
printer, parser, round-trip and verifier tests."""

from __future__ import annotations

from oclpy.ir.builder import Builder, add_incoming, i32, i64
from oclpy.ir.intrinsics import declare_intrinsic
from oclpy.ir.types import (
    F16, F32, F64, I1, I8, I16, I32, I64, VOID, AddressSpace, ArrayType, FunctionType,
    StructType, VectorType, ptr,
)
from oclpy.ir.values import (
    Argument, ConstAggregate, ConstFloat, ConstInt, ConstNull, ConstZero, Function, GlobalVar,
    Module, Undef,
)

V4F = VectorType(F32, 4)
V4I = VectorType(I32, 4)
PAIR = StructType((I32, F32))
PACKED = StructType((I8, I32), packed=True)


def new_function(module: Module, name: str, ret, params, arg_names=None, kernel=False) -> Function:
    names = arg_names or [f"a{i}" for i in range(len(params))]
    args = [Argument(t, n, i) for i, (t, n) in enumerate(zip(params, names))]
    fn = Function(name, FunctionType(ret, tuple(params)), args, is_kernel=kernel)
    return module.add_function(fn)


def vadd_module() -> Module:
    """The classic kernel: out[i] = a[i] + b[i] for i < n, with arg info attrs."""
    m = Module("vadd")
    gid = declare_intrinsic(m, "get_global_id", I64, [I32])
    g = ptr("global")
    k = new_function(m, "vadd", VOID, [g, g, g, I32], ["a", "b", "out", "n"], kernel=True)
    for arg, quals in zip(k.args[:3], ({"const"}, {"const"}, set())):
        arg.attrs.update(type_name="float*", address_qualifier="global",
                         access_qualifier="none", type_qualifiers=quals)
    k.args[3].attrs.update(type_name="int", address_qualifier="private",
                           access_qualifier="none", type_qualifiers=set())
    k.attrs["reqd_work_group_size"] = (16, 1, 1)
    entry, body, done = k.add_block("entry"), k.add_block("body"), k.add_block("done")
    b = Builder(entry)
    i = b.call(gid, [i32(0)], "i")
    n64 = b.cast("sext", k.args[3], I64)
    b.condbr(b.icmp("slt", i, n64, "inrange"), body, done)
    b.position_at_end(body)
    pa = b.gep(F32, k.args[0], [i], inbounds=True)
    pb = b.gep(F32, k.args[1], [i], inbounds=True)
    s = b.binop("fadd", b.load(F32, pa, align=4), b.load(F32, pb, align=4), "sum")
    b.store(s, b.gep(F32, k.args[2], [i], inbounds=True), align=4)
    b.br(done)
    b.position_at_end(done)
    b.ret()
    return m
