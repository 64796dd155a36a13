"""`__local` variables belong to a kernel's outermost block (OpenCL C 1.2 6.5.2): clang's
error, at each variable, in a nested block, a loop's body and an if's; the outermost
block and a kernel's parameters are fine (sgminer's quarkcoin.cl declares its tables in
a nested block, which clang rejects)."""

from __future__ import annotations

import pytest

from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

MESSAGE = "error: variables in the local address space can only be declared in the outermost scope of a kernel function"


def test_local_variables_in_nested_blocks_are_clangs_error():
    src = ("kernel void k(global int *o) {\n"
           "  { local int a[4]; a[0] = 1; o[0] = a[0]; }\n"
           "  for (;;) { local int b; b = 2; o[1] = b; break; }\n"
           "  if (o[2]) { local int c; c = 3; }\n"
           "}\n")
    with pytest.raises(CompileError) as info:
        compile_to_ir(src)
    found = [line for line in info.value.log.splitlines() if ": error: " in line]
    assert found == [f"<kernel>:2:15: {MESSAGE}", f"<kernel>:3:24: {MESSAGE}", f"<kernel>:4:25: {MESSAGE}"]


def test_local_variables_at_a_kernels_outermost_block_build():
    src = ("kernel void k(global int *o, local int *scratch) {\n"
           "  local int a[4];\n  a[0] = 1; scratch[0] = a[0]; o[0] = scratch[0];\n}\n")
    assert compile_to_ir(src).log == ""
