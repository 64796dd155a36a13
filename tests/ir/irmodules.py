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


def globals_module() -> Module:
    """Globals in every space, every constant kind, align, and attrs of every value kind."""
    m = Module("globals")
    m.add_global(GlobalVar("lut", ArrayType(F32, 3), AddressSpace.CONSTANT,
                           ConstAggregate(ArrayType(F32, 3), [
                               ConstFloat(F32, 1.0), ConstFloat(F32, 0.1), ConstFloat(F32, -0.0)]),
                           constant=True, align=16))
    m.add_global(GlobalVar("k.tile", ArrayType(F32, 256), AddressSpace.LOCAL, None, align=4))
    m.add_global(GlobalVar("counter", I32, AddressSpace.GLOBAL, ConstInt(I32, -7)))
    m.add_global(GlobalVar("zeros", V4I, AddressSpace.GLOBAL, ConstZero(V4I)))
    m.add_global(GlobalVar("u", PAIR, AddressSpace.PRIVATE, Undef(PAIR)))
    m.add_global(GlobalVar("p", ptr("global"), AddressSpace.GLOBAL, ConstNull(ptr("global"))))
    m.add_global(GlobalVar("self_ref", ptr("global"), AddressSpace.GLOBAL, m.globals[2]))
    nested = StructType((V4F, PACKED, ArrayType(I1, 2)))
    m.add_global(GlobalVar("nested", nested, AddressSpace.CONSTANT, ConstAggregate(nested, [
        ConstAggregate(V4F, [ConstFloat(F32, x) for x in (1.5, float("inf"), float("-inf"), float("nan"))]),
        ConstAggregate(PACKED, [ConstInt(I8, 255), ConstInt(I32, 2**31)]),
        ConstAggregate(ArrayType(I1, 2), [ConstInt(I1, 1), ConstInt(I1, 0)]),
    ]), constant=True))
    m.add_global(GlobalVar("halfs", ArrayType(F16, 2), AddressSpace.GLOBAL, ConstAggregate(
        ArrayType(F16, 2), [ConstFloat(F16, 65504.0), ConstFloat(F16, 1e-7)])))
    m.add_global(GlobalVar("big", ArrayType(I64, 2), AddressSpace.GLOBAL, ConstAggregate(
        ArrayType(I64, 2), [ConstInt(I64, 2**64 - 1), ConstInt(I64, 2**63)])))
    m.add_global(GlobalVar("weird name\"\\é", F64, AddressSpace.GLOBAL, ConstFloat(F64, 1e300)))
    m.add_global(GlobalVar("empty", ArrayType(I32, 0), AddressSpace.GLOBAL,
                           ConstAggregate(ArrayType(I32, 0), [])))
    fn = new_function(m, "attrs", VOID, [I32], ["x"])
    fn.attrs.update(reqd_work_group_size=(16, 16, 1), single=(1,), empty=(), names=["a", "b"],
                    flag=True, off=False, nothing=None, ratio=0.25, big=2**70, neg=-3,
                    kind=F32, quals={"const", "volatile"}, **{"odd key": "q\"uote\n"})
    fn.args[0].attrs.update(type_name="int", type_qualifiers=frozenset())
    fn.add_block("entry")
    Builder(fn.blocks[0]).ret()
    return m


def all_ops_module() -> Module:
    """One helper function using every opcode, with every attribute value."""
    m = Module()
    sqrt = declare_intrinsic(m, "sqrt", F32, [F32], overload=F32)
    barrier = declare_intrinsic(m, "barrier", VOID, [I32])
    printf = declare_intrinsic(m, "printf", I32, [ptr("constant")])
    printf.attrs["variadic"] = True
    fmt = m.add_global(GlobalVar("fmt", ArrayType(I8, 3), AddressSpace.CONSTANT, ConstAggregate(
        ArrayType(I8, 3), [ConstInt(I8, c) for c in b"%d\0"]), constant=True))
    g, loc = ptr("global"), ptr("local")
    fn = new_function(m, "everything", F32,
                      [I32, F32, V4F, g, loc, PAIR, I64, F64, ptr("generic")],
                      ["i", "f", "v", "gp", "lp", "s", "l", "d", "gen"])
    a = {arg.name: arg for arg in fn.args}
    entry = fn.add_block("entry")
    b = Builder(entry)
    for op in "add sub mul sdiv udiv srem urem shl lshr ashr and or xor".split():
        b.binop(op, a["i"], ConstInt(I32, -3))
    for op in "fadd fsub fmul fdiv frem".split():
        b.binop(op, a["f"], ConstFloat(F32, 0.5))
    b.binop("fmul", a["v"], a["v"], "vsq")
    b.fneg(a["f"])
    for pred in ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"):
        b.icmp(pred, a["i"], ConstInt(I32, 0))
    b.icmp("eq", a["gp"], ConstNull(g))
    for pred in ("false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
                 "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"):
        b.fcmp(pred, a["f"], ConstFloat(F32, 1.0))
    vcmp = b.fcmp("olt", a["v"], ConstZero(V4F), "vcmp")
    b.select(vcmp, a["v"], ConstZero(V4F))
    t = b.cast("trunc", a["i"], I8)
    b.cast("zext", t, I16)
    b.cast("sext", a["i"], I64)
    b.cast("fptrunc", a["d"], F16)
    b.cast("fpext", a["f"], F64)
    b.cast("fptoui", a["f"], I32)
    b.cast("fptosi", a["f"], I32)
    b.cast("uitofp", a["i"], F32)
    b.cast("sitofp", a["i"], F64)
    pi = b.cast("ptrtoint", a["gp"], I64)
    b.cast("inttoptr", pi, g)
    b.cast("bitcast", a["v"], V4I)
    b.cast("addrspacecast", a["gp"], ptr("generic"))
    b.cast("addrspacecast", a["gen"], loc)
    b.select(b.icmp("sgt", a["i"], ConstInt(I32, 0)), a["f"], ConstFloat(F32, 2.0))
    slot = b.alloca(ArrayType(F32, 4), align=16, name="slot")
    b.alloca(I32)
    b.store(a["f"], slot, align=4, volatile=True)
    b.store(ConstInt(I32, 1), a["lp"])
    b.load(F32, slot, align=4, volatile=True)
    b.load(I32, a["lp"])
    b.gep(F32, a["gp"], [a["l"]], inbounds=True)
    b.gep(PAIR, a["gp"], [ConstInt(I64, 0), ConstInt(I32, 1)])
    b.gep(ArrayType(V4F, 8), slot, [ConstInt(I64, 0), a["i"], ConstInt(I32, 3)])
    for binop in ("xchg", "add", "sub", "and", "or", "xor", "max", "min", "umax", "umin"):
        b.atomicrmw(binop, a["gp"], a["i"])
    b.atomicrmw("fadd", a["lp"], a["f"], "seq_cst", "work_group")
    for order, scope in zip(("monotonic", "acquire", "release", "acq_rel", "seq_cst"),
                            ("work_item", "sub_group", "work_group", "device", "all_svm_devices")):
        b.cmpxchg(a["gp"], a["i"], ConstInt(I32, 5), order, scope)
    e = b.extractelement(a["v"], ConstInt(I32, 2))
    b.insertelement(a["v"], e, a["i"])
    b.shufflevector(a["v"], Undef(V4F), [3, 2, -1, 0, 1, 1, 7, 4])
    b.extractvalue(a["s"], [1])
    nested = StructType((PAIR, ArrayType(I32, 3)))
    b.extractvalue(ConstZero(nested), [1, 2])
    b.insertvalue(a["s"], ConstFloat(F32, 3.0), [1])
    b.call(barrier, [ConstInt(I32, 1)])
    b.call(printf, [fmt, a["i"], a["d"]])
    r = b.call(sqrt, [a["f"]], "root")
    b.ret(r)
    return m


def loop_module() -> Module:
    """Loops with phis that use values and blocks before their definition, and a switch."""
    m = Module()
    fn = new_function(m, "sum", I32, [I32], ["n"])
    entry, header, body, exit_ = (fn.add_block(n) for n in ("entry", "loop", "body", "exit"))
    b = Builder(entry)
    b.br(header)
    b.position_at_end(header)
    i = b.phi(I32, "i")
    acc = b.phi(I32, "acc")
    b.condbr(b.icmp("slt", i, fn.args[0]), body, exit_)
    b.position_at_end(body)
    acc2 = b.binop("add", acc, i, "acc")  # same name as the phi: printed acc.1
    i2 = b.binop("add", i, ConstInt(I32, 1))
    b.br(header)
    add_incoming(i, ConstInt(I32, 0), entry)
    add_incoming(i, i2, body)
    add_incoming(acc, ConstInt(I32, 0), entry)
    add_incoming(acc, acc2, body)
    b.position_at_end(exit_)
    sw = fn.add_block("dispatch")
    b.br(sw)
    b.position_at_end(sw)
    one, two, other = fn.add_block("one"), fn.add_block("two"), fn.add_block("")
    b.switch(acc, other, [(1, one), (-2, two), (7, one)])
    for blk in (one, two):
        b.position_at_end(blk)
        b.ret(acc)
    b.position_at_end(other)
    b.unreachable()
    empty = fn.add_block("empty_switch")
    b.position_at_end(empty)
    b.switch(ConstInt(I64, 3), other, [])
    return m


def naming_module() -> Module:
    """Names that need quoting, numbering or uniquifying."""
    m = Module("naming test")
    fn = new_function(m, "1st fn", I32, [I32, I32, I32], ["", "7", "x"])
    b = Builder(fn.add_block("entry"))
    fn.blocks[0].name = "x"  # block and argument share a name
    s = b.binop("add", fn.args[0], fn.args[1], "x")
    s2 = b.binop("add", s, fn.args[2], "x.1")
    s3 = b.binop("add", s2, s, "a b")
    s4 = b.binop("add", s3, s, "")
    s5 = b.binop("mul", s4, s, "42")
    b.ret(s5)
    dup_blocks = fn.add_block("tail")
    dup_blocks.name = "x"
    Builder(dup_blocks).ret(s)
    kernel_decl = Function("ext_kernel", FunctionType(VOID, (ptr("global"),)),
                           [Argument(ptr("global"), "p", 0)], is_kernel=True)
    m.add_function(kernel_decl)
    m.add_function(Function("ext", FunctionType(F32, ()), []))
    return m


ALL_MODULES = {
    "vadd": vadd_module, "globals": globals_module, "all_ops": all_ops_module,
    "loop": loop_module, "naming": naming_module,
}
