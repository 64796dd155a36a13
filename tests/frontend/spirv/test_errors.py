"""Every way the SPIR-V reader refuses a module, with its exact message, and
fuzzing: truncated and bit-flipped modules give a diagnostic, never an
exception or an internal compiler error."""

from __future__ import annotations

import random

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.spirv.spirv_driver import compile_spirv
from tests.frontend.spirv.spirv_helpers import PRELUDE, TYPES, assemble, from_llvm, kernel_module

BODY_START = 48  # word offset of the first instruction after the kernel's OpLabel


def error_of(data: bytes) -> str:
    with pytest.raises(CompileError) as info:
        compile_spirv(data, filename="k.spv")
    return info.value.log


def body(*instrs: tuple[str, list]) -> bytes:
    return kernel_module([*instrs, ("Return", [])])


def with_types(*extra: tuple[str, list], code: list | None = None) -> bytes:
    return kernel_module(code if code is not None else [("Return", [])], types=TYPES + list(extra))


BOOL = [("TypeBool", [6]), ("ConstantTrue", [6, 7])]


CASES = {
    "not whole words": (b"\x03\x02\x23\x07\x00\x00",
                        "k.spv: error: the module is 6 bytes, not a whole number of 32-bit words"),
    "shorter than header": (b"\x03\x02\x23\x07" * 2, "the module is shorter than the 5-word SPIR-V header"),
    "bad magic": (b"\x01\x02\x03\x04" + kernel_module()[4:],
                  "k.spv: error: SPIR-V word 0: not a SPIR-V module (magic number 0x04030201"),
    "version 2.0": (assemble(PRELUDE, version=0x00020000),
                    "k.spv: error: SPIR-V word 1: unsupported SPIR-V version word 0x00020000 (supported: 1.0 to 1.6)"),
    "bound 0": (assemble(PRELUDE, bound=0), "k.spv: error: SPIR-V word 3: invalid id bound 0"),
    "word count 0": (kernel_module() + b"\x00\x00\x00\x00",
                     "SPIR-V word 53 (OpNop): instruction OpNop has a word count of 0"),
    "runs past the end": (kernel_module()[:-8] + (3 << 16 | 62).to_bytes(4, "little"),
                          "SPIR-V word 51 (OpStore): instruction OpStore of 3 words runs past the end of the module (52 words)"),
    "no OpFunctionEnd": (kernel_module()[:-4],
                         "SPIR-V word 38 (OpFunction): the last function has no OpFunctionEnd"),
    "shader capability": (kernel_module(prelude=[("Capability", [1])] + PRELUDE),
                          "SPIR-V word 5 (OpCapability): capability Shader is not supported"),
    "logical addressing": (kernel_module(prelude=PRELUDE[:4] + [("MemoryModel", [0, 2])] + PRELUDE[5:]),
                           "SPIR-V word 13 (OpMemoryModel): addressing model Logical is not supported (OpenCL needs Physical32 or Physical64)"),
    "GLSL memory model": (kernel_module(prelude=PRELUDE[:4] + [("MemoryModel", [2, 1])] + PRELUDE[5:]),
                          "memory model GLSL450 is not supported (OpenCL needs the OpenCL memory model)"),
    "no Kernel capability": (kernel_module(prelude=PRELUDE[:2] + PRELUDE[3:]),
                             "k.spv: error: the module does not declare the Kernel capability"),
    "no memory model": (kernel_module(prelude=PRELUDE[:4] + PRELUDE[5:]), "the module has no OpMemoryModel"),
    "GLCompute entry": (kernel_module(prelude=PRELUDE[:5] + [("EntryPoint", [5, 10, "k"])]),
                        "SPIR-V word 16 (OpEntryPoint): execution model GLCompute is not supported (only Kernel)"),
    "image type": (with_types(("TypeImage", [50, 1, 1, 0, 0, 0, 0, 0, 0])),
                   "(OpTypeImage): images are not supported by oclpy"),
    "sampler type": (with_types(("TypeSampler", [50])), "(OpTypeSampler): samplers are not supported by oclpy"),
    "pipe type": (with_types(("TypePipe", [50, 0])), "(OpTypePipe): pipes are not supported by oclpy"),
    "int width": (with_types(("TypeInt", [50, 7, 0])),
                  "(OpTypeInt): integer width 7 is not supported (8, 16, 32 or 64)"),
    "bad vector": (with_types(("TypeVector", [50, 2, 5])),
                   "(OpTypeVector): vector of 5 x int is not an OpenCL vector type"),
    "array length": (with_types(("TypeArray", [50, 2, 2])),
                     "(OpTypeArray): array length %2 is not a positive integer constant"),
    "storage class": (with_types(("TypePointer", [50, 12, 2])),
                      "(OpTypePointer): storage class StorageBuffer is not supported in OpenCL kernels"),
    "literal width": (with_types(("TypeInt", [50, 64, 0]), ("Constant", [50, 51, 1])),
                      "(OpConstant): a 64-bit literal takes 2 word(s), found 1"),
    "spec constant op": (with_types(("SpecConstantOp", [2, 50, 128, 5, 5])),
                         "(OpSpecConstantOp): OpSpecConstantOp (a specialization constant expression) is not supported"),
    "private module variable": (with_types(("TypePointer", [50, 6, 2]), ("Variable", [50, 51, 6])),
                                "(OpVariable): module-scope variables in the Private storage class are not supported"),
    "type defined twice": (with_types(("TypeInt", [2, 16, 0])), "(OpTypeInt): %2 is defined twice"),
    "constant defined twice": (with_types(("Constant", [2, 5, 1])), "(OpConstant): %5 is defined twice"),
    "variable defined twice": (with_types(("Variable", [3, 5, 5])), "(OpVariable): %5 is defined twice"),
    "two kernels with one name": (assemble(PRELUDE + [("EntryPoint", [6, 20, "k"])] + TYPES + [
        ("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("Label", [12]), ("Return", []),
        ("FunctionEnd", []),
        ("Function", [1, 20, 0, 4]), ("FunctionParameter", [3, 21]), ("Label", [22]), ("Return", []),
        ("FunctionEnd", [])]), "(OpFunction): two kernels are named 'k'"),
    "block without terminator": (kernel_module([("Store", [11, 5]), ("Label", [13]), ("Return", [])]),
                                 "SPIR-V word 51 (OpLabel): block %12 has no terminator"),
    "function without return": (kernel_module([("Store", [11, 5])]),
                                "SPIR-V word 51 (OpFunctionEnd): block %12 has no terminator"),
    "overlapping members": (kernel_module(prelude=PRELUDE + [("MemberDecorate", [50, 0, 35, 0]),
                                                             ("MemberDecorate", [50, 1, 35, 4])],
                                          types=TYPES + [("TypeStruct", [50, 3, 2])]),
                            "(OpTypeStruct): struct member Offset 4 overlaps the previous member (which ends at 8 in the cpu target's layout)"),
    "type after a function": (kernel_module() + assemble([("TypeFloat", [60, 32])])[20:],
                              "SPIR-V word 53 (OpTypeFloat): module-scope instruction after the first function body"),
    "stray OpFunctionEnd": (assemble(PRELUDE + TYPES + [("FunctionEnd", [])]),
                            "SPIR-V word 38 (OpFunctionEnd): OpFunctionEnd outside a function"),
    "nested OpFunction": (assemble(PRELUDE + TYPES + [("Function", [1, 10, 0, 4]), ("Function", [1, 20, 0, 4])]),
                          "SPIR-V word 43 (OpFunction): OpFunction inside a function (missing OpFunctionEnd)"),
    "unsupported instruction": (body(("DPdx", [2, 20, 5])),
                                f"SPIR-V word {BODY_START} (OpDPdx): OpDPdx is not supported in OpenCL kernels by oclpy"),
    "undefined id": (body(("IAdd", [2, 20, 5, 99])),
                     f"SPIR-V word {BODY_START} (OpIAdd): %99 is used but never defined"),
    "used before its definition": (body(("IAdd", [2, 20, 5, 21]), ("IAdd", [2, 21, 5, 5])),
                                   f"SPIR-V word {BODY_START} (OpIAdd): %21 is not defined before this use"),
    "defined twice": (body(("IAdd", [2, 20, 5, 5]), ("IAdd", [2, 20, 5, 5])),
                      f"SPIR-V word {BODY_START + 5} (OpIAdd): %20 is defined twice"),
    "operand types differ": (with_types(("TypeFloat", [50, 32]), ("Constant", [50, 51, 0]),
                                        code=[("IAdd", [2, 20, 5, 51]), ("Return", [])]),
                             "(OpIAdd): operand types differ (i32 vs float)"),
    "branch to a value": (body(("Branch", [5])), "(OpBranch): %5 is not a block label of this function"),
    "store through constant": (kernel_module(types=[("TypeVoid", [1]), ("TypeInt", [2, 32, 0]),
                                                    ("TypePointer", [3, 0, 2]), ("TypeFunction", [4, 1, 3]),
                                                    ("Constant", [2, 5, 7])]),
                               "(OpStore): OpStore through a UniformConstant (constant) pointer"),
    "private kernel argument": (kernel_module(types=[("TypeVoid", [1]), ("TypeInt", [2, 32, 0]),
                                                     ("TypePointer", [3, 7, 2]), ("TypeFunction", [4, 1, 3]),
                                                     ("Constant", [2, 5, 7])]),
                                "kernel 'k' argument 0 points into private memory: kernel pointer arguments must be global, local or constant"),
    "unknown extended set": (kernel_module([("ExtInst", [2, 20, 40, 1, 5]), ("Return", [])],
                                           prelude=PRELUDE[:4] + [("ExtInstImport", [40, "GLSL.std.450"])] + PRELUDE[4:]),
                             "(OpExtInst): extended instruction set 'GLSL.std.450' is not supported (only OpenCL.std)"),
    "unknown OpenCL.std number": (kernel_module([("ExtInst", [2, 20, 40, 999, 5]), ("Return", [])],
                                                prelude=PRELUDE[:4] + [("ExtInstImport", [40, "OpenCL.std"])] + PRELUDE[4:]),
                                  "(OpExtInst): unknown OpenCL.std instruction 999"),
    "OpenCL.std wrong types": (kernel_module([("ExtInst", [2, 20, 40, 61, 5]), ("Return", [])],
                                             prelude=PRELUDE[:4] + [("ExtInstImport", [40, "OpenCL.std"])] + PRELUDE[4:]),
                               "(OpExtInst): OpenCL.std sqrt has no form i32 (i32)"),
    "sub-group barrier": (body(("ControlBarrier", [5, 5, 5])),
                          "(OpControlBarrier): barriers with execution scope 7 are not supported (only work_group)"),
    "non-constant scope": (body(("IAdd", [2, 20, 5, 5]), ("AtomicIAdd", [2, 21, 11, 20, 5, 5])),
                           "(OpAtomicIAdd): the scope operand %20 must be a constant"),
    "shuffle out of range": (with_types(("TypeVector", [50, 2, 2]), ("ConstantComposite", [50, 51, 5, 5]),
                                        code=[("VectorShuffle", [50, 20, 51, 51, 0, 9]), ("Return", [])]),
                             "(OpVectorShuffle): shuffle component 9 is out of range (4 lanes)"),
    "extract out of range": (with_types(("TypeVector", [50, 2, 2]), ("ConstantComposite", [50, 51, 5, 5]),
                                        code=[("CompositeExtract", [2, 20, 51, 2]), ("Return", [])]),
                             "(OpCompositeExtract): index 2 is out of range for <2 x i32>"),
    "duplicate case": (body(("Switch", [5, 12, 1, 12, 1, 12])), "(OpSwitch): case 1 appears twice"),
    "duplicate case at the selector's width": (
        with_types(("TypeInt", [50, 8, 0]), ("Constant", [50, 51, 1]),
                   code=[("Switch", [51, 12, 256, 12, 0, 12]), ("Return", [])]),
        "(OpSwitch): case 0 appears twice"),
    "alignment": (kernel_module([("Store", [11, 5, 2, 3]), ("Return", [])]),
                  "(OpStore): alignment 3 is not a power of two"),
    "printf": (kernel_module([("ExtInst", [2, 20, 40, 184, 5]), ("Return", [])],
                             prelude=PRELUDE[:4] + [("ExtInstImport", [40, "OpenCL.std"])] + PRELUDE[4:]),
               "(OpExtInst): printf needs a format pointer as its first operand"),
    "return value from kernel": (body(("ReturnValue", [5])),
                                 "(OpReturnValue): returns i32 from a function returning void"),
    "phi type": (with_types(*BOOL, code=[("Branch", [13]), ("Label", [13]), ("Phi", [6, 20, 5, 12]),
                                         ("Return", [])]),
                 "(OpPhi): incoming %5 is i32, the phi is i1"),
    "branch condition": (body(("BranchConditional", [5, 12, 12])),
                         "(OpBranchConditional): the branch condition must be a bool, not i32"),
    "after terminator": (kernel_module([("Return", []), ("IAdd", [2, 20, 5, 5])]),
                         "(OpIAdd): instruction outside a block (after a terminator, before an OpLabel)"),
    "not dominating": (with_types(*BOOL, code=[
        ("BranchConditional", [7, 13, 14]), ("Label", [13]), ("IAdd", [2, 20, 5, 5]), ("Branch", [15]),
        ("Label", [14]), ("Branch", [15]), ("Label", [15]), ("IAdd", [2, 21, 20, 20]), ("Return", [])]),
                       "k.spv: error: the SPIR-V module does not translate to valid IR: "),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_error_message(name):
    data, expected = CASES[name]
    log = error_of(data)
    assert expected in log, log
    assert log.startswith("k.spv: error: ") and log.count("\n") == 1


def test_imported_function_is_refused():
    data = assemble(PRELUDE + TYPES + [
        ("Decorate", [20, 41, "helper", 1]),
        ("Function", [1, 20, 0, 4]), ("FunctionParameter", [3, 21]), ("FunctionEnd", []),
        ("Function", [1, 10, 0, 4]), ("FunctionParameter", [3, 11]), ("Label", [12]),
        ("Return", []), ("FunctionEnd", [])])
    assert "SPIR-V word 44 (OpFunction): function 'helper' has no body (imported from another module): linking SPIR-V modules " \
           "is not supported" in error_of(data)


def test_sub_group_builtin_is_refused():
    data = kernel_module(prelude=PRELUDE + [("Decorate", [51, 11, 36])],
                         types=TYPES + [("TypePointer", [50, 1, 2]), ("Variable", [50, 51, 1])])
    assert "(OpVariable): built-in variable SubgroupSize is not supported by oclpy (no sub-groups)" \
        in error_of(data)


def _seeds() -> list[bytes]:
    from tests.e2e.test_spirv_kernels import FLOATS, INTS, MIXED, REDUCE

    return [from_llvm(s) for s in (INTS, FLOATS, REDUCE, MIXED)]


def test_fuzzed_modules_give_diagnostics():
    """Truncated and bit-flipped modules: a build log line or a module, nothing else."""
    rng = random.Random(1234)
    seeds = _seeds()
    for _ in range(400):
        data = bytearray(rng.choice(seeds))
        if rng.random() < 0.25:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randint(1, 3)):
                i = rng.randrange(20, len(data))
                data[i] ^= 1 << rng.randrange(8)
        try:
            compile_spirv(bytes(data), filename="f.spv")
        except CompileError as exc:
            assert exc.log.startswith("f.spv: error: ") and "internal compiler error" not in exc.log, exc.log
