"""Signed integer add/sub/mul carry `nsw` (C: signed overflow is undefined);
unsigned ones and floats do not; the flag survives the IR text round trip."""

from oclpy.frontend.driver import compile_to_ir
from oclpy.ir.parser import parse_module
from oclpy.ir.printer import print_module

SRC = """__kernel void k(__global int *o, __global uint *u, __global float *f, int a, uint b) {
    o[0] = a * 3 + a - 1;
    u[0] = b * 3u + b - 1u;
    f[0] = (float)a * 2.0f;
}"""


def _binops(text: str, op: str) -> list[str]:
    return [line.strip() for line in text.splitlines() if line.strip().split(" = ")[-1].startswith(op + " ")]


def test_signed_arithmetic_is_nsw_unsigned_is_not():
    text = print_module(compile_to_ir(SRC).module)
    for op in ("add", "sub", "mul"):
        lines = _binops(text, op)
        signed = [line for line in lines if " nsw i32 " in line]
        plain = [line for line in lines if " nsw " not in line]
        assert signed and plain, (op, lines)
    assert all(" nsw " not in line for line in _binops(text, "fmul"))


def test_wrap_flags_round_trip():
    text = print_module(compile_to_ir(SRC).module)
    assert "add nsw i32" in text
    assert print_module(parse_module(text)) == text
    again = parse_module("define i32 @f(i32 %a) {\nentry:\n  %x = add nuw nsw i32 %a, 1\n  ret i32 %x\n}\n")
    add = again.functions[0].blocks[0].instrs[0]
    assert add.attrs == {"nuw": True, "nsw": True}
    assert "add nuw nsw i32 %a, 1" in print_module(again)
