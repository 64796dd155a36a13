"""OpenCL C 6.2.6, as clang applies it: a scalar operand of a vector operation may not have a
greater rank than the vector's element (clang's SemaOpenCL/arithmetic-conversions.cl)."""

from __future__ import annotations

import pytest

from oclpy.frontend.driver import compile_to_ir
from tests.frontend.sema_helpers import build_errors

RANK = "scalar operand type has greater rank than the type of the vector element."
HEAD = "kernel void k(global char2 *c, global int2 *i, global uint2 *u, global float2 *f, global double2 *d) {\n"


@pytest.mark.parametrize("stmt, col, types", [
    ("f[0] = f[1] + 0.5;", 15, "('float2' and 'double')"),
    ("f[0] = 0.5 * f[1];", 14, "('double' and 'float2')"),
    ("c[0] = c[1] + 1;", 15, "('char2' and 'int')"),
    ("i[0] = i[1] * 2L;", 15, "('int2' and 'long')"),
    ("i[0] = i[1] + 1U;", 15, "('int2' and 'uint')"),
    ("i[0] = i[1] - 1.0f;", 15, "('int2' and 'float')"),
    ("i[0] = i[1] < 1L;", 15, "('int2' and 'long')"),
    ("f[0] += 0.5;", 8, "('float2' and 'double')"),
    ("f[0] = 1 ? f[1] : 2.0;", 12, "('float2' and 'double')"),
])
def test_a_scalar_of_greater_rank_is_an_error(stmt: str, col: int, types: str) -> None:
    assert build_errors(HEAD + "  " + stmt + "\n}") == [(f"2:{col}", f"{RANK} {types}")]


def test_scalars_of_lower_or_equal_rank_convert() -> None:
    compile_to_ir(HEAD + """  f[0] = f[1] * 0.5f + 2 + (char)1;
  i[0] = (i[1] << 2L) + (short)3 + 'a';
  u[0] = u[1] + 1 + 1U;
  d[0] = d[1] * 0.5f + 1L;
  c[0] = c[1] + (char)1;
}""")
