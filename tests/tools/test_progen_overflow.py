"""Generated programs are free of signed overflow after the integer promotions.

Seed 436 of the generated-program differential (barrier mode) differed between simt and
the cpu device on both register files. Reduced, the difference was one product of two
`ushort` table entries, `(ulong)(int)(ctab[i] * ctab[10])`: both operands promote to
`int`, and 65534 * 64210 is past INT_MAX, so the program was undefined. The cpu device's
LLVM read the `mul nsw` as "cannot overflow" and widened it without the sign (its own -O0
build gives what simt gives); simt was right to wrap. The generator now wraps such products
in `safe_mul_int` (`exprs._arith`, as main's fix for seed 5822 does, and compound assignments
such as `ushort x; x *= ushort` through `types.never_overflows`), and this kernel, made
defined that way, gives NumPy's result on both devices and at -O0.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import oclpy as cl  # noqa: E402
from tools.progen import generate  # noqa: E402
from tools.progen.safe import Safe  # noqa: E402
from tools.progen.types import INT_BY_NAME, never_overflows  # noqa: E402

CTAB = np.array([65534, 7, 0, 5252, 28, 57535, 24, 39, 23432, 32, 64210, 52872, 23, 1, 24, 40], np.uint16)


@pytest.mark.parametrize("op,a,b,want", [
    ("*", "ushort", "ushort", False),  # 65535 * 65535 > INT_MAX
    ("*", "short", "ushort", True),    # -32768 * 65535 > INT_MIN
    ("*", "short", "short", True),
    ("*", "uchar", "ushort", True),
    ("+", "ushort", "ushort", True),
    ("-", "uchar", "ushort", True),
    ("+", "int", "char", False),
    ("*", "uint", "int", True),        # unsigned: wraps, defined
    ("*", "long", "ulong", True),
    ("-", "long", "short", False),
])
def test_never_overflows_follows_the_promotions(op: str, a: str, b: str, want: bool) -> None:
    assert never_overflows(op, INT_BY_NAME[a], INT_BY_NAME[b]) is want


def test_seed_436_wraps_its_product_of_two_ushorts() -> None:
    text = generate(436, "barrier")
    assert "safe_mul_int(ctab[((safe_div_int(ml[1], gx)) & 15)], ctab[10])" in text


def _source() -> str:
    table = ", ".join(f"(ushort){v}" for v in CTAB)
    safe = Safe()
    mul = safe.use("mul", INT_BY_NAME["int"])
    return f"""{safe.text()}
__constant ushort ctab[16] = {{{table}}};
kernel void k(global ulong *out) {{
  int gx = (int)get_global_id(0);
  out[gx] = (ulong)((int)({mul}(ctab[gx & 15], ctab[10])));
}}"""


def _want() -> np.ndarray:
    a = CTAB[np.arange(64) & 15].astype(np.int64)
    product = a * int(CTAB[10])
    return np.where(product > 2**31 - 1, a, product).astype(np.int32).astype(np.int64).astype(np.uint64)


def _run(kind: str, options: str = "") -> list[int]:
    dev = next(d for d in cl.get_platforms()[0].get_devices() if d.kind == kind)
    ctx = cl.Context([dev])
    queue = cl.CommandQueue(ctx)
    out = np.zeros(64, np.uint64)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_WRITE | cl.mem_flags.COPY_HOST_PTR, hostbuf=out)
    cl.Program(ctx, _source()).build(options=options).k(queue, (64,), (16,), buf)
    cl.enqueue_copy(queue, out, buf)
    return out.tolist()


@pytest.mark.parametrize("kind,options", [("cpu", ""), ("simt", ""), ("simt", "-cl-opt-disable")])
def test_the_wrapped_product_matches_numpy(kind: str, options: str) -> None:
    assert _run(kind, options) == _want().tolist()
