"""OpenCL C 6.15.14 printf: output reaches stdout, in order per work-item, with
C99 conversions and OpenCL's vector conversions (%v4f, %v2hlx, %v3hhd ...);
malformed formats are diagnosed."""

from __future__ import annotations

import re

import numpy as np
import pytest

import oclpy as cl

SRC = r"""
__kernel void p(__global const float *X) {
    size_t i = get_global_id(0);
    float4 f = vload4(i, X);
    int2 v = (int2)((int)i, -(int)i);
    printf("item %u: %d %5.2f %s|", (uint)i, (int)i * 10, X[i], "ok");
    printf("v4f=%v4f|", f);
    printf("v2hlx=%#v2hlx|", (uint2)(255u, 16u * (uint)i));
    printf("v3hhd=%v3hhd|", (char3)(-1, 2, (char)i));
    printf("v2hd=%v2hd|", (short2)(-300, 7));
    printf("v2ld=%v2ld|", (long2)(-5000000000L, (long)i));
    printf("v2i=%v2hli %%|", v);
    printf("c=%c e=%.3e g=%g x=%08X o=%o\n", 'A' + (int)i, 1234.5f, 0.5, 48879u, 8u);
}"""


def _line(i: int, x: np.ndarray) -> str:
    f = x[4 * i:4 * i + 4]
    return (f"item {i}: {i * 10} {x[i]:5.2f} ok|v4f={','.join(f'{v:f}' for v in f)}|"
            f"v2hlx=0xff,{'0x' + format(16 * i, 'x') if i else '0'}|v3hhd=-1,2,{i}|v2hd=-300,7|"
            f"v2ld=-5000000000,{i}|v2i={i},{-i} %|c={chr(65 + i)} e=1.234e+03 g=0.5 x=0000BEEF o=10")


def _segments(text: str) -> list[str]:
    """One piece per printf call: each of the kernel's formats ends with '|' or a newline."""
    return re.findall(r"[^|\n]*[|\n]", text)


def test_printf_formats_and_order(ctx, capfd) -> None:
    """Each work-item's calls come out in its order; across work-items the order is the
    implementation's (6.15.14: a GPU interleaves the calls of concurrent work-items)."""
    x = np.linspace(-2, 3, 16).astype(np.float32)
    prg = cl.Program(ctx, SRC).build()
    q = cl.CommandQueue(ctx)
    buf = cl.Buffer(ctx, cl.mem_flags.READ_ONLY | cl.mem_flags.COPY_HOST_PTR, hostbuf=x)
    want = [_line(i, x) + "\n" for i in range(4)]
    capfd.readouterr()
    for i in range(4):  # one work-item per launch: the whole output's order is defined
        prg.p(q, (1,), (1,), buf, global_offset=(i,)).wait()
    q.finish()
    assert capfd.readouterr().out == "".join(want)
    prg.p(q, (4,), (1,), buf).wait()
    q.finish()
    out = capfd.readouterr().out
    assert sorted(_segments(out)) == sorted(s for line in want for s in _segments(line))


@pytest.mark.parametrize("call,message", [
    ('printf("%*d", 3, 1)', "'*' field widths and precisions are not supported in OpenCL printf"),
    ('printf("%s", 1)', "format specifies type 'char *' but the argument has type 'int'"),
])
def test_printf_format_diagnostics(ctx, call: str, message: str) -> None:
    src = f"__kernel void k(void) {{ {call}; }}"
    with pytest.raises(cl.RuntimeError) as info:
        cl.Program(ctx, src).build()
    assert message in str(info.value)


@pytest.mark.parametrize("call,message", [  # clang's -Wformat warnings: the kernel still builds
    ('printf("%v4f", 1.0f)', "format specifies type 'double4' but the argument has type 'float'"),
    ('printf("%f", (float2)(1.0f))', "format specifies type 'double' but the argument has type 'float2'"),
    ('printf("%v2d", (short2)(1))', "format specifies type 'int2' but the argument has type 'short2'"),
    ('printf("%hld", 1)', "length modifier 'hl' results in undefined behavior or no effect with 'd' conversion "
                          "specifier"),
    ('printf("%d %d", 1)', "more '%' conversions than data arguments"),
    ('printf("%d", 1, 2)', "data argument not used by format string"),
])
def test_printf_format_warnings(call: str, message: str) -> None:
    from oclpy.frontend.driver import compile_to_ir
    log = compile_to_ir(f"__kernel void k(void) {{ {call}; }}").log
    assert f"warning: {message}\n" in log


@pytest.mark.parametrize("fmt,want", [
    (b"%v4f", b"%f,%f,%f,%f"), (b"%#v2hlx|", b"%#x,%#x|"), (b"%-5.2v3hhd", b"%-5.2d,%-5.2d,%-5.2d"),
    (b"%v2ld %%", b"%ld,%ld %%"), (b"%d %s", b"%d %s"), (b"%v16hu", b",".join([b"%hu"] * 16)),
])
def test_expand_format(fmt: bytes, want: bytes) -> None:
    from oclpy.frontend.c.builtins.printf_format import expand_format
    assert expand_format(fmt) == want


def test_printf_hh_converts_to_char(ctx, capfd) -> None:
    """`hh` prints the argument converted to char or unsigned char (C99 7.19.6.1)."""
    src = r"""__kernel void k(int big) {
        printf("%hhd %hhu %hhx %#v2hhx %v3hhd\n", big, -1, 300, (uchar2)(255, 1), (char3)(-1, 2, 3));
    }"""
    prg = cl.Program(ctx, src).build()
    q = cl.CommandQueue(ctx)
    capfd.readouterr()
    prg.k(q, (1,), (1,), np.int32(200)).wait()
    q.finish()
    assert capfd.readouterr().out == "-56 255 2c 0xff,0x1 -1,2,3\n"
