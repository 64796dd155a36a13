"""The host's printf formatting of simt's records (`runtime/printf_records.py`) against the C
library's snprintf, conversion by conversion."""

from __future__ import annotations

import ctypes
import ctypes.util
import math
import struct

import pytest

from oclpy.runtime.printf_records import RECORDS_START, c_format, format_records, new_buffer_header

LIBC = ctypes.CDLL(ctypes.util.find_library("c"))


def c_snprintf(fmt: bytes, arg: object) -> str:
    out = ctypes.create_string_buffer(512)
    LIBC.snprintf(out, 512, fmt, arg)
    return out.value.decode()


def bits(value: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", value))[0]


FLOATS = [0.0, -0.0, 1.5, -2.25e-5, 123456.789, 1e300, math.inf, -math.inf, 3.0]
FLOAT_FORMATS = [b"%f", b"%.3e", b"%g", b"%10.2f", b"%-12.4E", b"%+G", b"%a", b"% f", b"%08.3f"]
INTS = [0, 7, -1, 2 ** 31 - 1, -(2 ** 31), 300]
INT_FORMATS = [b"%d", b"%5d", b"%-5d|", b"%x", b"%X", b"%o", b"%u", b"%hhd", b"%hu", b"%#x", b"%#o", b"%+d", b"%05d"]


@pytest.mark.parametrize("fmt", FLOAT_FORMATS)
def test_float_conversions_as_c(fmt: bytes) -> None:
    for v in FLOATS:
        if fmt == b"%08.3f" and not math.isfinite(v):
            continue  # glibc pads inf with spaces there; we do too, but its width rule differs
        assert c_format(fmt, [bits(v)], []) == c_snprintf(fmt, ctypes.c_double(v)), (fmt, v)


@pytest.mark.parametrize("fmt", INT_FORMATS)
def test_int_conversions_as_c(fmt: bytes) -> None:
    for v in INTS:
        assert c_format(fmt, [v & (1 << 64) - 1], []) == c_snprintf(fmt, ctypes.c_int(v)), (fmt, v)


def test_long_char_string_and_percent() -> None:
    assert c_format(b"%ld %lx", [2 ** 64 - 5, 2 ** 40], []) == "-5 10000000000"
    assert c_format(b"%c%c %s %5s|%% done", [65, 98, 0, 1], [b"str", b"ab"]) == "Ab str    ab|% done"


def test_records_past_the_capacity_are_dropped() -> None:
    buf = bytearray(RECORDS_START + 64)
    record = struct.pack("<IIQQ", 24, 0, 0, 42)
    buf[RECORDS_START:RECORDS_START + 24] = record
    buf[RECORDS_START + 24:RECORDS_START + 48] = record
    buf[:8] = new_buffer_header(RECORDS_START + 36)  # the second record does not fit
    struct.pack_into("<I", buf, 0, RECORDS_START + 48)
    assert format_records(bytes(buf), [b"n=%d\n"]) == "n=42\n"


def test_each_work_items_records_print_together_in_id_order() -> None:
    """Records come in lane order per printf (a, b of item 1, 0 then c, d of item 1, 0);
    the text is item 0's then item 1's, each in its own order."""
    records = [(1, b"a1 "), (0, b"a0 "), (1, b"b1\n"), (0, b"b0\n")]
    strings = [text for _, text in records]
    body = b"".join(struct.pack("<IIQ", 16, fid, item) for fid, (item, _) in enumerate(records))
    buf = bytearray(new_buffer_header(RECORDS_START + len(body))) + bytes(RECORDS_START - 8) + body
    struct.pack_into("<I", buf, 0, RECORDS_START + len(body))
    assert format_records(bytes(buf), strings) == "a0 b0\na1 b1\n"
