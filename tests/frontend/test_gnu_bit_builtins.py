"""clang's `__builtin_abs`/`labs`/`llabs`, `__builtin_parity*`, `__builtin_rotateleft*`,
`rotateright*` and `bitreverse*`, and `__builtin_memset`: accepted as clang-14 accepts them (they were
"implicit declaration" errors), with results against a Python reference on the device
the tests run on (OCLPY_DEVICE; the cpu by default)."""

from __future__ import annotations

import numpy as np
import pytest

import oclpy as cl
from oclpy.diagnostics import CompileError
from oclpy.frontend.driver import compile_to_ir

SOURCE = """
kernel void k(global const uint *x, global int *o) {
    size_t i = get_global_id(0);
    uint v = x[i];
    o[8*i+0] = __builtin_abs((int)v);
    o[8*i+1] = (int)__builtin_labs((long)(int)v) ^ (int)__builtin_llabs(-(long)i);
    o[8*i+2] = __builtin_parity(v) + 2 * __builtin_parityl((ulong)v << 7) + 4 * __builtin_parityll((ulong)v * 3);
    o[8*i+3] = (int)__builtin_rotateleft32(v, (uint)i);
    o[8*i+4] = (int)__builtin_rotateright32(v, (uint)i + 29);
    o[8*i+5] = __builtin_rotateleft8((uchar)v, (uchar)i) | (__builtin_rotateright16((ushort)v, (ushort)i) << 8);
    o[8*i+6] = (int)(__builtin_rotateleft64((ulong)v * 0x100000001UL, (ulong)i) >> 17);
    char bytes[8];
    __builtin_memcpy(bytes, &v, 4);
    __builtin_memset(bytes + 1, (int)i + 0x100, 2);
    uint w;
    __builtin_memcpy(&w, bytes, 4);
    o[8*i+7] = (int)w;
}
"""


def _rotl(v: int, s: int, width: int) -> int:
    s %= width
    mask = (1 << width) - 1
    v &= mask
    return ((v << s) | (v >> (width - s))) & mask if s else v


def _parity(v: int) -> int:
    return bin(v).count("1") & 1


def _expected(i: int, v: int) -> list[int]:
    signed = v - (1 << 32) if v >> 31 else v
    w64 = (1 << 64) - 1
    return [abs(signed) & 0xFFFFFFFF,
            (abs(signed) ^ i) & 0xFFFFFFFF,
            _parity(v) + 2 * _parity((v << 7) & w64) + 4 * _parity((v * 3) & w64),
            _rotl(v, i, 32),
            _rotl(v, 32 - (i + 29) % 32, 32),
            _rotl(v & 0xFF, i, 8) | (_rotl(v & 0xFFFF, 16 - i % 16, 16) << 8),
            (_rotl((v * 0x100000001) & w64, i, 64) >> 17) & 0xFFFFFFFF,
            (v & 0xFF0000FF) | ((i + 0x100) & 0xFF) * 0x010100]


def test_the_bit_builtins_against_python(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    n = 64
    x = np.random.default_rng(1).integers(0, 2**32, n, dtype=np.uint64).astype(np.uint32)
    x[:3] = (0x80000000, 0, 0xFFFFFFFF)  # abs(INT_MIN) wraps, as clang's does
    xb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    ob = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 4 * 8 * n)
    cl.Program(ctx, SOURCE).build().k(q, (n,), None, xb, ob)
    out = np.empty(8 * n, np.int32)
    cl.enqueue_copy(q, out, ob)
    got = (out.reshape(n, 8).astype(np.int64) & 0xFFFFFFFF).tolist()
    assert got == [_expected(i, int(v)) for i, v in enumerate(x)]


BITREVERSE = """
kernel void k(global const ulong *x, global ulong *o) {
    size_t i = get_global_id(0);
    ulong v = x[i];
    o[4*i+0] = __builtin_bitreverse8((uchar)v);
    o[4*i+1] = __builtin_bitreverse16((ushort)v);
    o[4*i+2] = __builtin_bitreverse32((uint)v);
    o[4*i+3] = __builtin_bitreverse64(v);
}
"""


def test_bitreverse_against_python(queue) -> None:  # type: ignore[no-untyped-def]
    ctx, q = queue
    n = 32
    x = np.random.default_rng(2).integers(0, 2**63, n, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    x[:2] = (0, 2**64 - 1)
    xb = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    ob = cl.Buffer(ctx, cl.mem_flags.READ_WRITE, 8 * 4 * n)
    cl.Program(ctx, BITREVERSE).build().k(q, (n,), None, xb, ob)
    out = np.empty(4 * n, np.uint64)
    cl.enqueue_copy(q, out, ob)

    def reverse(v: int, width: int) -> int:
        return int(format(v & ((1 << width) - 1), f"0{width}b")[::-1], 2)

    assert out.reshape(n, 4).tolist() == [[reverse(int(v), w) for w in (8, 16, 32, 64)] for v in x]


@pytest.mark.parametrize("body, message", [
    # clang-14's words and columns
    ("int a[4]; __builtin_memset(a, 0); o[0] = a[0];", "1:63: error: too few arguments to function call, expected 3, have 2"),
    ("o[0] = __builtin_parity(1u, 2u);", "1:60: error: too many arguments to function call, expected 1, have 2"),
    # clang-14 rejects it on this line too ("passing '__private uint4' ... to parameter of incompatible type")
    ("uint4 v = 1; o[0] = __builtin_rotateleft32(v, 1).x;", "1:52: error: no matching function for call to '__builtin_rotateleft32'"),
])
def test_misuse_is_an_error(body: str, message: str) -> None:
    with pytest.raises(CompileError) as info:
        compile_to_ir("kernel void k(global int *o) { %s }\n" % body)
    assert f"<kernel>:{message}" in info.value.log
