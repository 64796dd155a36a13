"""Runtime-library routines that LLVM's code generator may call and no library of
the process defines, written in LLVM IR for the JIT.

The cpu target's own IR asks for none of them (`exact_half.py`), but LLVM's
x86 code generator still makes some from IR that does not name them: it
passes the sign operand of a half copysign through its float -> half
conversions, so `(half)copysign(f, (float)d)` converts the double `d` to half
with `__truncdfhf2`. `binding.check_resolvable` compiles the routines here
that object code needs (once per process) and registers their addresses, as
compiler-rt would provide them to a linked program.
"""

from __future__ import annotations

from typing import Callable

from llvmlite import ir as ll

from . import exact_half

Body = Callable[[ll.IRBuilder, ll.Value], ll.Value]

# name -> (return type, parameter type, body): compiler-rt's signatures
ROUTINES: dict[str, tuple[ll.Type, ll.Type, Body]] = {
    "__truncdfhf2": (exact_half.F16, exact_half.F64, exact_half.double_to_half),
}


def module_text(names: list[str], triple: str, data_layout: str) -> str:
    """LLVM IR text defining the routines `names` (each a key of `ROUTINES`)."""
    module = ll.Module(name="oclpy.jit_runtime")
    module.triple, module.data_layout = triple, data_layout
    for name in names:
        ret, param, body = ROUTINES[name]
        fn = ll.Function(module, ll.FunctionType(ret, [param]), name)
        fn.attributes.add("nounwind")
        builder = ll.IRBuilder(fn.append_basic_block("entry"))
        builder.ret(body(builder, fn.args[0]))
    return str(module)
