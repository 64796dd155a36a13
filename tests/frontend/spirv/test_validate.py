"""validate.py: structural faults of a SPIR-V module are refused, with the word and
opcode at fault, before the translator (or LLVM) sees them (issue 13's mutants
first: OpSelect with two operands, an Alignment of 15, ids past the id bound)."""

from __future__ import annotations

import pytest

import oclpy as cl
from oclpy.diagnostics import CompileError
from oclpy.frontend.spirv.spirv_driver import compile_spirv
from oclpy.frontend.spirv.validate import LAYOUTS
from oclpy.frontend.spirv.grammar import OPCODES
from tests.frontend.spirv.spirv_helpers import PRELUDE, TYPES, assemble, kernel_module

BODY_START = 53  # word offset of the first instruction after the kernel's OpLabel (with BOOL)
BOOL = [("TypeBool", [6]), ("ConstantTrue", [6, 7])]


def error_of(data: bytes) -> str:
    with pytest.raises(CompileError) as info:
        compile_spirv(data, filename="k.spv")
    return info.value.log


def body(*instrs: tuple[str, list], types: list | None = None) -> bytes:
    return kernel_module([*instrs, ("Return", [])], types=TYPES + (types or []))


def decorated(*decoration: int) -> bytes:
    return kernel_module(prelude=PRELUDE + [("Decorate", [11, *decoration])])


CASES = {
    "OpSelect with two operands": (body(("Select", [2, 20, 7, 5]), types=BOOL),
                                   f"SPIR-V word {BODY_START} (OpSelect): OpSelect needs at least 5 "
                                   f"operand words, found 4"),
    "OpSelect with four operands": (body(("Select", [2, 20, 7, 5, 5, 5]), types=BOOL),
                                    "(OpSelect): OpSelect has 1 operand words more than its layout allows"),
    "Alignment 15": (decorated(44, 15), "(OpDecorate): alignment 15 is not a power of two from 1 to 65536"),
    "Alignment 0": (decorated(44, 0), "alignment 0 is not a power of two"),
    "Alignment 2**31": (decorated(44, 1 << 31), "alignment 2147483648 is not a power of two from 1 to 65536"),
    "Alignment without a value": (decorated(44), "(OpDecorate): decoration 44 takes 1 literal words, found 0"),
    "Aligned memory operand 15": (body(("Store", [11, 5, 2, 15])),
                                  f"SPIR-V word 48 (OpStore): alignment 15 is not a power of two"),
    "memory operand words missing": (body(("Store", [11, 5, 2])), "asks for more words than follow"),
    "unknown memory operand bits": (body(("Store", [11, 5, 0x400])), "has unknown bits 0x400"),
    "id past the bound": (assemble(PRELUDE + TYPES, bound=5),
                          "SPIR-V word 16 (OpEntryPoint): id %10 is outside the module's id bound 5"),
    "result id past the bound": (assemble(PRELUDE[:5] + TYPES, bound=4),
                                 "(OpTypeFunction): id %4 is outside the module's id bound 4"),
    "id 0": (body(("IAdd", [2, 0, 5, 5])), "(OpIAdd): id %0 is outside the module's id bound 100"),
    "result type not a type": (body(("IAdd", [5, 20, 5, 5])), "(OpIAdd): result type %5 is not a type"),
    "string without its nul": (assemble([("Capability", [6]), ("Name", [1, 0x41414141])]),
                               "(OpName): literal string is not nul-terminated valid UTF-8"),
    "Phi with half a pair": (body(("Phi", [2, 20, 5, 12, 5])), "do not end on a whole group"),
    "LocalSize with two sizes": (kernel_module(prelude=PRELUDE + [("ExecutionMode", [10, 17, 8, 8])]),
                                 "(OpExecutionMode): execution mode 17 takes 3 literal words, found 2"),
    "LinkageAttributes without a type": (
        kernel_module(prelude=PRELUDE + [("Decorate", [10, 41, "k"])]),
        "(OpDecorate): LinkageAttributes takes a name and a linkage type"),
    "ArrayStride 0": (decorated(6, 0), "ArrayStride of 0"),
    "empty kernel name": (kernel_module(prelude=PRELUDE[:5] + [("EntryPoint", [6, 10, ""])]),
                          "(OpEntryPoint): entry point name '' is not an OpenCL C identifier"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_structural_faults(name):
    data, message = CASES[name]
    log = error_of(data)
    assert message in log, log
    assert log.startswith("k.spv: error: ") and "internal compiler error" not in log


def test_a_kernel_parameter_of_function_type_is_refused():
    data = assemble(PRELUDE + [("Decorate", [11, 38, 2])] + TYPES + [
        ("TypeFunction", [30, 2, 2]), ("TypePointer", [31, 7, 30]), ("TypeFunction", [32, 1, 31]),
        ("Function", [1, 10, 0, 32]), ("FunctionParameter", [31, 11]), ("Label", [12]), ("Return", []),
        ("FunctionEnd", [])])
    assert "(OpFunctionParameter): kernel 'k' by-value argument 0 cannot have function type %30" \
        in error_of(data)


def test_every_opcode_the_grammar_names_has_a_layout_or_is_refused_by_name():
    missing = {OPCODES[k] for k in OPCODES if k not in LAYOUTS}
    assert missing <= {"OpEnqueueMarker", "OpEnqueueKernel", "OpConstantPipeStorage",
                       "OpCreatePipeFromPipeStorage"}


def test_the_runtime_reports_invalid_modules_as_build_failures(queue):
    ctx, _ = queue
    data, message = CASES["Alignment 15"]
    with pytest.raises(cl.RuntimeError, match="alignment 15 is not a power of two") as info:
        cl.Program(ctx, data).build()
    assert info.value.code == cl.status_code.BUILD_PROGRAM_FAILURE


# found by the offline fuzz run through the whole compiler (seed 14): a variable whose
# type points at void reached the DataLayout ("type void has no alignment", at module
# scope, and "has no size" in the cpu target's layout of __local memory)
@pytest.mark.parametrize("storage,scope", [(4, "module"), (0, "module"), (7, "function")])
@pytest.mark.parametrize("pointee,kind", [(1, "void"), (4, "function")])
def test_a_variable_of_void_or_function_type_is_refused(storage, scope, pointee, kind):
    pointer = [("TypePointer", [30, storage, pointee])]
    if scope == "module":
        data = kernel_module(types=TYPES + pointer + [("Variable", [30, 31, storage])])
    else:
        data = kernel_module([("Variable", [30, 31, storage]), ("Store", [11, 5]), ("Return", [])],
                             types=TYPES + pointer)
    log = error_of(data)
    assert f"(OpVariable): a variable cannot have {kind} type %{pointee}" in log, log
    assert log.startswith("k.spv: error: ") and "internal compiler error" not in log


def test_an_atomic_on_a_bool_is_refused():
    """Found by the same run: an OpAtomicOr on a bool reached LLVM (atomics are 8 to 64 bits)."""
    types = TYPES + BOOL + [("TypePointer", [30, 7, 6]), ("Constant", [2, 40, 2]), ("Constant", [2, 41, 0])]
    data = kernel_module([("Variable", [30, 31, 7]), ("AtomicOr", [6, 32, 31, 40, 41, 7]),
                          ("Store", [11, 5]), ("Return", [])], types=types)
    log = error_of(data)
    assert "(OpAtomicOr): an atomic operation on i1 (only 8- to 64-bit integers)" in log, log


def test_a_debug_name_llvm_cannot_hold_is_made_safe():
    """Found by the same run: a block named "writ\\n" by OpName broke the LLVM IR text."""
    from oclpy.compiler import host_target
    from oclpy.compiler.toolchain import compile_program

    data = kernel_module(prelude=PRELUDE + [("Name", [12, 'writ\n"x\\'])])
    assert [b.name for b in compile_spirv(data).module.kernels()[0].blocks] == ['writ__x_']
    assert compile_program(data, "", host_target(), filename="k.spv").program.kernels.keys() == {"k"}
