"""The SPIR-V reader on hand-assembled modules: what IR it makes, and what the
kernels compute on the cpu device (for what no producer at hand emits:
built-ins through access chains, decorations on conversions, floored
remainders, kernel-argument OpStrings, module-scope variables, padded
structs, byte order, versions), plus the reader's speed."""

from __future__ import annotations

import struct

import numpy as np
import pytest

import oclpy as cl
from oclpy.frontend.spirv.spirv_driver import compile_spirv
from oclpy.ir.printer import print_module
from oclpy.ir.types import AddressSpace, StructType
from tests.frontend.spirv.spirv_helpers import PRELUDE, TYPES, assemble, from_llvm

OUT_BASE = 100  # ids 100.. are the int constants 0..15 (output slots and small values)
CONSTS = [("Constant", [2, OUT_BASE + k, k]) for k in range(16)]
FLOAT = [("TypeFloat", [40, 32]), ("TypeInt", [41, 8, 0]), ("TypeInt", [42, 64, 0])]


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def int_kernel(values: list[tuple[str, list]], results: list[int], annotations: list | None = None,
               types: list | None = None) -> bytes:
    """`kernel void k(global int *out)` computing `values` and storing result ids `results`
    to out[0], out[1], ..."""
    stores = []
    for k, rid in enumerate(results):
        stores += [("PtrAccessChain", [3, 900 + k, 11, OUT_BASE + k]), ("Store", [900 + k, rid])]
    fn = [("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("Label", [12]),
          *values, *stores, ("Return", []), ("FunctionEnd", [])]
    return assemble(PRELUDE + (annotations or []) + TYPES + CONSTS + FLOAT + (types or []) + fn,
                    bound=1000)


def run(data: bytes, n_out: int, global_size: int = 1, initial: list[int] | None = None) -> np.ndarray:
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    out = np.zeros(max(n_out, global_size), np.int32)
    out[:len(initial or [])] = initial or []
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, data).build().k(queue, (global_size,), None, buf)
    cl.enqueue_copy(queue, out, buf)
    return out


def test_builtin_through_constant_and_dynamic_access_chains():
    annotations = [("Decorate", [30, 11, 28])]
    types = [("TypeVector", [43, 42, 3]), ("TypePointer", [44, 1, 43]), ("TypePointer", [45, 1, 42]),
             ("Variable", [44, 30, 1])]
    values = [("AccessChain", [45, 20, 30, OUT_BASE]), ("Load", [42, 21, 20]),
              ("IMul", [2, 22, OUT_BASE, OUT_BASE + 3]),  # a zero the reader cannot see is constant
              ("InBoundsAccessChain", [45, 23, 30, 22]), ("Load", [42, 24, 23]),
              ("IAdd", [42, 25, 21, 24]), ("UConvert", [2, 26, 25])]
    stores = [("PtrAccessChain", [3, 27, 11, 21]), ("Store", [27, 26])]
    data = int_kernel(values + stores, [], annotations, types)
    np.testing.assert_array_equal(run(data, 0, global_size=8), 2 * np.arange(8))


def test_conversion_decorations_saturation_and_rounding():
    annotations = [("Decorate", [21, 39, 3]), ("Decorate", [23, 28]), ("Decorate", [26, 39, 2])]
    types = [("Constant", [40, 60, f32(-2.5)]), ("Constant", [2, 61, 300]),
             ("Constant", [2, 62, 0xFFFFFFFB])]
    values = [("ConvertFToS", [2, 20, 60]), ("ConvertFToS", [2, 21, 60]),     # rtz, rtn
              ("SConvert", [41, 22, 61]), ("SConvert", [41, 23, 61]),          # wrap, saturate
              ("SConvert", [2, 24, 22]), ("SConvert", [2, 25, 23]),
              ("SatConvertSToU", [41, 27, 62]), ("UConvert", [2, 28, 27]),    # -5 -> 0
              ("ConvertSToF", [40, 29, 61]), ("ConvertFToU", [2, 26, 29])]    # 300.0, rtp
    out = run(int_kernel(values, [20, 21, 24, 25, 28, 26], annotations, types), 6)
    np.testing.assert_array_equal(out[:6], [-2, -3, 44, 127, 0, 300])


def test_floored_and_truncated_remainders():
    types = [("Constant", [2, 60, 0xFFFFFFF9]), ("Constant", [2, 61, 0xFFFFFFFD]),
             ("Constant", [40, 62, f32(-7.5)]), ("Constant", [40, 63, f32(2.0)])]
    values = [("SMod", [2, 20, 60, OUT_BASE + 3]), ("SMod", [2, 21, OUT_BASE + 7, 61]),
              ("SRem", [2, 22, 60, OUT_BASE + 3]), ("FMod", [40, 23, 62, 63]),
              ("FRem", [40, 24, 62, 63]), ("ConvertFToS", [2, 25, 23]),
              ("FMul", [40, 26, 24, 63]), ("ConvertFToS", [2, 27, 26]),
              ("FMul", [40, 28, 23, 63]), ("ConvertFToS", [2, 29, 28])]
    out = run(int_kernel(values, [20, 21, 22, 27, 29], types=types), 5)
    np.testing.assert_array_equal(out[:5], [2, -2, -1, -3, 1])  # -1.5 * 2, 0.5 * 2


def test_module_scope_variables():
    types = [("TypePointer", [50, 4, 2]), ("Variable", [50, 51, 4]),
             ("TypePointer", [52, 5, 2]), ("Variable", [52, 53, 5, 5]),
             ("TypePointer", [54, 0, 2]), ("Variable", [54, 55, 0, OUT_BASE + 9])]
    values = [("Load", [2, 20, 53]), ("Load", [2, 21, 55]), ("IAdd", [2, 22, 20, 21]),
              ("Store", [51, 22]), ("Load", [2, 23, 51]), ("Store", [53, 23]), ("Load", [2, 24, 53])]
    data = int_kernel(values, [23, 24], types=types)
    module = compile_spirv(data).module
    spaces = {g.space: g for g in module.globals}
    assert spaces[AddressSpace.LOCAL].initializer is None
    assert spaces[AddressSpace.GLOBAL].initializer.value == 7
    assert spaces[AddressSpace.CONSTANT].constant and spaces[AddressSpace.CONSTANT].initializer.value == 9
    np.testing.assert_array_equal(run(data, 2)[:2], [16, 16])


def test_kernel_argument_strings_local_size_and_decoration_groups():
    annotations = [("String", [60, "kernel_arg_type.k.my_int*,"]),
                   ("String", [61, "kernel_arg_type_qual.k.restrict volatile,"]),
                   ("ExecutionMode", [10, 17, 8, 4, 2]), ("Name", [11, "dst"]),
                   ("Decorate", [70, 38, 6]), ("DecorationGroup", [70]), ("GroupDecorate", [70, 11])]
    fn = compile_spirv(int_kernel([], [], annotations)).module.get_function("k")
    assert fn.attrs["reqd_work_group_size"] == (8, 4, 2)
    assert fn.args[0].name == "dst"
    assert fn.args[0].attrs == {"type_name": "my_int*", "address_qualifier": "global",
                                "access_qualifier": "none", "type_qualifiers": {"restrict", "volatile"},
                                "name": "dst"}
    plain = compile_spirv(int_kernel([], [], annotations[3:])).module.get_function("k")
    assert plain.args[0].attrs["type_name"] == "int*" and plain.args[0].attrs["type_qualifiers"] == {"const"}


def test_struct_offsets_that_need_padding_make_a_packed_struct():
    annotations = [("MemberDecorate", [50, 0, 35, 0]), ("MemberDecorate", [50, 1, 35, 8])]
    types = [("TypeStruct", [50, 41, 2]), ("Constant", [41, 55, 3]),
             ("ConstantComposite", [50, 51, 55, OUT_BASE + 5])]
    values = [("CompositeExtract", [2, 20, 51, 1]), ("CompositeInsert", [50, 21, OUT_BASE + 6, 51, 1]),
              ("CompositeExtract", [2, 22, 21, 1])]
    data = int_kernel(values, [20, 22], annotations, types)
    text = print_module(compile_spirv(data).module)
    assert "<{i8, [7 x i8], i32}>" in text
    np.testing.assert_array_equal(run(data, 2)[:2], [5, 6])
    (struct_t,) = {i.type for f in compile_spirv(data).module.functions for b in f.blocks
                   for i in b.instrs if isinstance(i.type, StructType)}
    assert struct_t.packed


def test_shuffle_of_vectors_of_different_lengths_and_dynamic_lanes():
    types = [("TypeVector", [50, 2, 2]), ("TypeVector", [51, 2, 4]),
             ("ConstantComposite", [50, 52, OUT_BASE + 1, OUT_BASE + 2]),
             ("ConstantComposite", [51, 53, OUT_BASE + 3, OUT_BASE + 4, OUT_BASE + 5, OUT_BASE + 6])]
    values = [("VectorShuffle", [51, 20, 52, 53, 5, 0, 0xFFFFFFFF, 1]),
              ("CompositeExtract", [2, 21, 20, 0]), ("CompositeExtract", [2, 22, 20, 1]),
              ("IMul", [2, 23, OUT_BASE + 1, OUT_BASE + 3]),
              ("VectorExtractDynamic", [2, 24, 20, 23]),
              ("VectorInsertDynamic", [51, 25, 20, OUT_BASE + 9, 23]),
              ("CompositeExtract", [2, 26, 25, 3])]
    out = run(int_kernel(values, [21, 22, 24, 26], types=types), 4)
    np.testing.assert_array_equal(out[:4], [6, 1, 2, 9])


def test_phi_after_a_memory_copy_in_its_predecessor():
    types = [("TypePointer", [50, 7, 2]), ("TypeBool", [51]), ("ConstantTrue", [51, 52])]
    values = [("Variable", [50, 20, 7]), ("Store", [20, OUT_BASE + 4]),
              ("Variable", [50, 21, 7]),
              ("CopyMemorySized", [21, 20, OUT_BASE + 4]),
              ("BranchConditional", [52, 13, 14]),
              ("Label", [13]), ("Branch", [14]),
              ("Label", [14]), ("Phi", [2, 22, OUT_BASE + 1, 12, OUT_BASE + 2, 13]),
              ("Load", [2, 23, 21])]
    # the Variables must open the entry block: move them there
    values = [values[0], values[2], values[1], *values[3:]]
    out = run(int_kernel(values, [22, 23], types=types), 2)
    np.testing.assert_array_equal(out[:2], [2, 4])


def test_big_endian_modules_and_every_supported_version():
    data = int_kernel([], [OUT_BASE + 5])
    swapped = b"".join(data[k:k + 4][::-1] for k in range(0, len(data), 4))
    np.testing.assert_array_equal(run(swapped, 1)[:1], [5])
    for minor in range(7):
        versioned = data[:4] + (0x00010000 | minor << 8).to_bytes(4, "little") + data[8:]
        assert compile_spirv(versioned).module.get_function("k") is not None


def _big_module() -> bytes:
    body = "".join(f"  %x{k + 1} = fadd float %x{k}, %x{k}\n  %y{k + 1} = fmul float %x{k + 1}, %y{k}\n"
                   for k in range(150))
    return from_llvm(f"""
define spir_kernel void @big(ptr addrspace(1) %p) {{
  %x0 = load float, ptr addrspace(1) %p
  %y0 = fadd float %x0, 1.0
{body}  store float %y150, ptr addrspace(1) %p
  ret void
}}""")


def test_a_long_straight_line_module_translates_whole():
    """A 300-instruction chain (speed is a benchmark's business, not a test's: no timing here)."""
    from oclpy.ir.printer import print_module
    text = print_module(compile_spirv(_big_module()).module)
    assert text.count(" = fadd float ") == 151 and text.count(" = fmul float ") == 150


@pytest.mark.parametrize("bits", [32, 64])
def test_pyopencl_add_vectors(bits):
    from tests.frontend.spirv.spirv_helpers import pyopencl_spv

    data = pyopencl_spv(f"add-vectors-{bits}.spv")
    fn = compile_spirv(data).module.get_function("sum")
    assert [a.attrs["type_qualifiers"] for a in fn.args] == [{"const"}, {"const"}, set()]
    ctx = cl.create_some_context(interactive=False)
    queue = cl.CommandQueue(ctx)
    a, b = np.arange(100, dtype=np.float32), np.full(100, 0.5, np.float32)
    mf = cl.mem_flags
    bufs = [cl.Buffer(ctx, mf.READ_ONLY | mf.COPY_HOST_PTR, hostbuf=x) for x in (a, b)]
    out = cl.Buffer(ctx, mf.WRITE_ONLY, a.nbytes)
    cl.Program(ctx, data).build().sum(queue, (100,), None, *bufs, out)
    got = np.empty_like(a)
    cl.enqueue_copy(queue, got, out)
    np.testing.assert_array_equal(got, a + b)


def test_forward_pointer_to_a_recursive_struct():
    """struct node { int v; struct node *next; }: out = arg->next->v."""
    types = [("TypeVoid", [1]), ("TypeInt", [2, 32, 0]), ("TypePointer", [3, 5, 2]),
             ("TypeForwardPointer", [60, 5]), ("TypeStruct", [61, 2, 60]), ("TypePointer", [60, 5, 61]),
             ("TypePointer", [62, 5, 60]), ("TypeFunction", [4, 1, 3, 60]),
             ("Constant", [2, 5, 0]), ("Constant", [2, 6, 1])]
    fn = [("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("FunctionParameter", [60, 13]),
          ("Label", [12]), ("AccessChain", [62, 20, 13, 6]), ("Load", [60, 21, 20]),
          ("AccessChain", [3, 22, 21, 5]), ("Load", [2, 23, 22]), ("Store", [11, 23]),
          ("Return", []), ("FunctionEnd", [])]
    module = compile_spirv(assemble(PRELUDE + types + fn)).module
    text = print_module(module)
    assert "getelementptr {i32, ptr<global>}, ptr<global> %arg1, i64 0, i32 1" in text
    assert "getelementptr {i32, ptr<global>}, ptr<global> %1, i64 0, i32 0" in text
    assert module.get_function("k").args[1].attrs["type_name"] == "struct*"


def test_debug_information_is_skipped():
    prelude = PRELUDE[:4] + [("ExtInstImport", [40, "NonSemantic.Shader.DebugInfo.100"]),
                             ("ExtInstImport", [41, "OpenCL.DebugInfo.100"])] + PRELUDE[4:]
    types = TYPES + [("String", [42, "k.cl"]), ("ExtInst", [1, 43, 40, 35, 42]),
                     ("ExtInst", [1, 44, 41, 1, 42])]
    fn = [("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("Label", [12]),
          ("ExtInst", [1, 45, 41, 23, 43]), ("Line", [42, 3, 1]), ("Store", [11, 5]), ("NoLine", []),
          ("Return", []), ("FunctionEnd", [])]
    text = print_module(compile_spirv(assemble(prelude + types + fn)).module)
    assert "store i32 7, ptr<global> %arg0" in text


def test_reported_il_versions_are_the_ones_the_reader_accepts():
    from oclpy.frontend.spirv import IL_VERSIONS
    from oclpy.frontend.spirv.binary import SUPPORTED_VERSIONS

    assert IL_VERSIONS == tuple(f"{major}.{minor}" for major, minor in SUPPORTED_VERSIONS)


def test_generic_pointer_memory_semantics():
    types = [("TypePointer", [50, 8, 2])]
    values = [("PtrCastToGeneric", [50, 20, 11]), ("GenericPtrMemSemantics", [2, 21, 20])]
    np.testing.assert_array_equal(run(int_kernel(values, [21], types=types), 1)[:1], [0x200])


def test_atomic_instructions_llvm_does_not_emit():
    """Increment, decrement, store, exchange, umin, and, load and float add, on 4 work-items."""
    device, relaxed = OUT_BASE + 1, OUT_BASE
    types = [("TypePointer", [50, 5, 40]), ("Constant", [40, 51, f32(1.5)]),
             ("Constant", [2, 52, 0x0F])]
    slots = [("PtrAccessChain", [3, 30 + k, 11, OUT_BASE + k]) for k in range(8)]
    values = slots + [
        ("AtomicIIncrement", [2, 20, 30, device, relaxed]),
        ("AtomicIDecrement", [2, 21, 31, device, relaxed]),
        ("AtomicStore", [32, device, OUT_BASE + 8, OUT_BASE + 9]),  # acquire-release
        ("AtomicExchange", [2, 22, 33, device, relaxed, OUT_BASE + 5]),
        ("AtomicUMin", [2, 23, 34, device, relaxed, OUT_BASE + 7]),
        ("AtomicAnd", [2, 24, 35, device, relaxed, 52]),
        ("Bitcast", [50, 25, 36]), ("AtomicFAddEXT", [40, 26, 25, device, relaxed, 51]),
        ("AtomicLoad", [2, 27, 37, device, OUT_BASE + 2]), ("AtomicStore", [37, device, relaxed, 27])]
    out = run(int_kernel(values, [], types=types), 8, global_size=4,
              initial=[0, 0, 0, 0, 100, 0xFF, 0, 42])
    np.testing.assert_array_equal(out[:6], [4, -4, 9, 5, 7, 15])
    assert out[6:7].view(np.float32)[0] == 6.0 and out[7] == 42


def test_bit_fields_reversal_and_extended_arithmetic():
    types = [("Constant", [2, 60, 0xABCD1234]), ("Constant", [2, 61, 0xFFFFFFFF]),
             ("TypeStruct", [62, 2, 2]), ("Constant", [2, 63, 0x80000000])]
    values = [
        ("BitFieldUExtract", [2, 20, 60, OUT_BASE + 8, OUT_BASE + 8]),          # 0x12
        ("BitFieldSExtract", [2, 21, 60, OUT_BASE + 12, OUT_BASE + 8]),         # 0xD1 -> -47
        ("BitFieldInsert", [2, 22, 60, OUT_BASE + 15, OUT_BASE + 4, OUT_BASE + 4]),  # 0xABCD12F4
        ("BitReverse", [2, 23, OUT_BASE + 1]),                                  # 0x80000000
        ("IAddCarry", [62, 24, 61, OUT_BASE + 2]), ("CompositeExtract", [2, 25, 24, 0]),
        ("CompositeExtract", [2, 26, 24, 1]),                                   # 1, carry 1
        ("ISubBorrow", [62, 27, OUT_BASE + 1, OUT_BASE + 2]), ("CompositeExtract", [2, 28, 27, 1]),
        ("UMulExtended", [62, 29, 61, 61]), ("CompositeExtract", [2, 30, 29, 1]),  # 0xFFFFFFFE
        ("SMulExtended", [62, 31, 63, OUT_BASE + 2]), ("CompositeExtract", [2, 32, 31, 1]),  # -1
        ("BitFieldUExtract", [2, 33, 60, OUT_BASE + 0, OUT_BASE + 0])]          # empty field: 0
    out = run(int_kernel(values, [20, 21, 22, 23, 25, 26, 28, 30, 32, 33], types=types), 10)
    want = np.array([0x12, -47, 0xABCD12F4, 0x80000000, 1, 1, 1, 0xFFFFFFFE, -1, 0], np.int64)
    np.testing.assert_array_equal(out[:10], want.astype(np.uint32).view(np.int32))


def test_extended_multiplication_of_64_bit_operands_without_a_128_bit_integer():
    """OpUMulExtended/OpSMulExtended of 64-bit values: the high word from 64-bit operations
    (no i128, which the simt device's registers do not hold), against Python's integers."""
    a, b, sa, sb = 0xFEDCBA9876543210, 0x0123456789ABCDEF, -3, (1 << 63) - 7
    types = [("TypeStruct", [60, 42, 42]), ("Constant", [42, 61, a & 0xFFFFFFFF, a >> 32]),
             ("Constant", [42, 62, b & 0xFFFFFFFF, b >> 32]),
             ("Constant", [42, 63, sa & 0xFFFFFFFF, (sa >> 32) & 0xFFFFFFFF]),
             ("Constant", [42, 64, sb & 0xFFFFFFFF, sb >> 32]), ("Constant", [42, 65, 32, 0])]
    values = [("UMulExtended", [60, 20, 61, 62]), ("SMulExtended", [60, 21, 63, 64])]
    words = []
    for k, (pair, part) in enumerate([(20, 0), (20, 1), (21, 0), (21, 1)]):
        whole, high = 80 + 4 * k, 81 + 4 * k
        values += [("CompositeExtract", [42, whole, pair, part]), ("ShiftRightLogical", [42, high, whole, 65]),
                   ("UConvert", [2, 82 + 4 * k, whole]), ("UConvert", [2, 83 + 4 * k, high])]
        words += [82 + 4 * k, 83 + 4 * k]
    data = int_kernel(values, words, types=types)
    assert "i128" not in print_module(compile_spirv(data).module)
    want = []
    for product in (a * b, sa * sb):
        for word in (product & (1 << 64) - 1, (product >> 64) & (1 << 64) - 1):
            want += [word & 0xFFFFFFFF, word >> 32]
    np.testing.assert_array_equal(run(data, 8)[:8], np.array(want, np.uint32).view(np.int32))


def test_size_of_and_quantize_to_half():
    x = 1.0009765625 + 2 ** -12  # between two halves
    types = [("TypeVector", [50, 2, 4]), ("TypePointer", [51, 7, 50]), ("Constant", [40, 52, f32(x)])]
    values = [("Variable", [51, 20, 7]), ("SizeOf", [2, 21, 20]), ("QuantizeToF16", [40, 22, 52]),
              ("Bitcast", [2, 23, 22])]
    out = run(int_kernel(values, [21, 23], types=types), 2)
    assert out[0] == 16 and out[1:2].view(np.float32)[0] == np.float32(np.float16(x))


def test_spec_constants_copies_pointer_integers_shifts_and_classification():
    annotations = [("Decorate", [70, 1, 3])]  # SpecId 3: oclpy takes the default value
    types = [("TypeBool", [6]), ("SpecConstant", [2, 70, 11]), ("SpecConstantTrue", [6, 71]),
             ("TypeVector", [72, 6, 2]), ("SpecConstantComposite", [72, 73, 71, 71]),
             ("TypePointer", [74, 7, 2]), ("Constant", [40, 75, 0x7FC00000]),  # NaN
             ("Constant", [40, 76, 0x7F800000]), ("Constant", [42, 77, 3, 0]),       # inf, a 64-bit 3
             ("Constant", [2, 78, 0x110])]                                       # SeqCst|WorkgroupMemory
    values = [("Variable", [74, 20, 7]), ("Variable", [74, 21, 7]), ("Store", [20, 70, 1]),
              ("CopyMemory", [21, 20]), ("Load", [2, 22, 21, 1]),
              ("ConvertPtrToU", [42, 23, 11]), ("ConvertUToPtr", [3, 24, 23]), ("Load", [2, 25, 24]),
              ("ShiftLeftLogical", [2, 26, OUT_BASE + 1, 77]),
              ("IsNan", [6, 28, 75]), ("IsInf", [6, 29, 76]), ("Unordered", [6, 30, 75, 76]),
              ("LogicalAnd", [6, 31, 28, 29]), ("LogicalAnd", [6, 32, 31, 30]), ("All", [6, 33, 73]),
              ("LogicalAnd", [6, 34, 32, 33]), ("Select", [2, 35, 34, OUT_BASE + 9, OUT_BASE]),
              ("MemoryBarrier", [OUT_BASE + 1, 78])]
    data = int_kernel(values, [22, 25, 26, 35], annotations, types)
    text = print_module(compile_spirv(data).module)
    assert "load volatile i32" in text and "call void @ocl.mem_fence(i32 1)" in text
    np.testing.assert_array_equal(run(data, 4, initial=[5])[:4], [11, 5, 8, 9])


SCOPE = """Variable Load Store AccessChain InBoundsAccessChain PtrAccessChain InBoundsPtrAccessChain
CopyMemory CopyMemorySized FunctionCall IAdd ISub IMul UDiv SDiv UMod SRem SMod FAdd FSub FMul FDiv
FRem FMod SNegate FNegate IEqual INotEqual UGreaterThan SGreaterThan UGreaterThanEqual
SGreaterThanEqual ULessThan SLessThan ULessThanEqual SLessThanEqual FOrdEqual FUnordEqual
FOrdNotEqual FUnordNotEqual FOrdLessThan FUnordLessThan FOrdGreaterThan FUnordGreaterThan
FOrdLessThanEqual FUnordLessThanEqual FOrdGreaterThanEqual FUnordGreaterThanEqual LogicalEqual
LogicalNotEqual LogicalOr LogicalAnd LogicalNot BitwiseOr BitwiseXor BitwiseAnd Not
ShiftRightLogical ShiftRightArithmetic ShiftLeftLogical Select Phi Branch BranchConditional Switch
Return ReturnValue Unreachable ConvertFToU ConvertFToS ConvertSToF ConvertUToF UConvert SConvert
FConvert SatConvertSToU SatConvertUToS Bitcast ConvertPtrToU ConvertUToPtr PtrCastToGeneric
GenericCastToPtr GenericCastToPtrExplicit VectorShuffle CompositeExtract CompositeInsert
CompositeConstruct VectorExtractDynamic VectorInsertDynamic Dot Any All IsNan IsInf IsFinite
IsNormal SignBitSet LessOrGreater Ordered Unordered ControlBarrier MemoryBarrier AtomicLoad
AtomicStore AtomicExchange AtomicCompareExchange AtomicCompareExchangeWeak AtomicIIncrement
AtomicIDecrement AtomicIAdd AtomicISub AtomicSMin AtomicUMin AtomicSMax AtomicUMax AtomicAnd
AtomicOr AtomicXor AtomicFAddEXT ExtInst GroupAsyncCopy GroupWaitEvents Undef CopyObject""".split()


def test_every_instruction_in_scope_has_a_handler():
    from oclpy.frontend.spirv.grammar import OP
    from oclpy.frontend.spirv.translate import HANDLERS

    assert [name for name in SCOPE if OP[name] not in HANDLERS] == []
