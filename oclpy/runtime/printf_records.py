"""printf records of a device printf buffer, formatted on the host as C's printf would.

`format_records(buffer, strings)` reads the records a simt kernel wrote
(`targets/simt/isel_printf.py`: a `u32` next offset and `u32` capacity, a
sink, then records of `u32` size, `u32` format id, `u64` work-item (global
linear id), 8-byte argument slots) and returns the text: each work-item's
records together and in its order, work-items by id (as a serial run prints
them; OpenCL leaves the order between work-items open). `c_format(fmt, slots, strings)` formats one record: each
conversion of the (already OpenCL-expanded) format takes one slot; integers
are truncated to the conversion's length modifier and read signed (d, i) or
unsigned (o, u, x, X, c); floats are doubles; `%s` takes a string id; `%p`
prints the address in hex as glibc does.
"""

from __future__ import annotations

import math
import re
import struct

HEADER_BYTES = 8  # the buffer's
RECORD_HEADER_BYTES = 16  # a record's: size, format id, work-item
SINK_BYTES = 1024
RECORDS_START = HEADER_BYTES + SINK_BYTES

SPEC = re.compile(rb"%(?P<flags>[-+ #0]*)(?P<width>\d+)?(?P<prec>\.\d*)?(?P<len>hh|h|ll|l|z|j|t)?"
                  rb"(?P<conv>[diouxXfFeEgGaAcsp%])")
LENGTH_BITS = {b"hh": 8, b"h": 16, b"": 32, b"l": 64, b"ll": 64, b"z": 64, b"j": 64, b"t": 64}


def new_buffer_header(capacity: int) -> bytes:
    """The first bytes of an empty printf buffer of `capacity` bytes."""
    return struct.pack("<II", RECORDS_START, capacity)


def integer(slot: int, bits: int, signed: bool) -> int:
    v = slot & ((1 << bits) - 1)
    return v - (1 << bits) if signed and v >> (bits - 1) else v


def float_text(value: float, spec: bytes, conv: str) -> str:
    """C's text for a non-finite double (Python writes 'inf' too, but not with '#' or '0')."""
    text = ("-" if math.copysign(1, value) < 0 else "") + ("nan" if math.isnan(value) else "inf")
    if conv.isupper():
        text = text.upper()
    if b"+" in spec and text[0] != "-":
        text = "+" + text
    elif b" " in spec and text[0] != "-":
        text = " " + text
    return text


def one(m: re.Match[bytes], slot: int | None, strings: list[bytes]) -> str:
    conv = m.group("conv").decode()
    if conv == "%":
        return "%"
    flags = (m.group("flags") or b"").decode()
    width = (m.group("width") or b"").decode()
    prec = (m.group("prec") or b"").decode()
    bits = LENGTH_BITS[m.group("len") or b""]
    assert slot is not None
    if conv in "di":
        return f"%{flags}{width}{prec}d" % integer(slot, bits, True)
    if conv in "ouxX":
        value = integer(slot, bits, False)
        if "#" in flags and (value == 0 or conv == "o"):  # C: no 0x before 0; octal's prefix is one 0
            flags = flags.replace("#", "")
            if conv == "o" and value:
                prec = f".{max(len(f'{value:o}') + 1, int(prec[1:] or 0))}"
        return f"%{flags}{width}{prec}{'d' if conv == 'u' else conv}" % value
    if conv == "c":
        return f"%{flags.replace('0', '')}{width}c" % chr(slot & 0xFF)
    if conv == "s":
        text = strings[slot].decode("latin-1")
        return f"%{flags.replace('0', '')}{width}{prec}s" % text
    if conv == "p":
        return f"%{flags.replace('0', '')}{width}s" % (hex(slot & (1 << 64) - 1) if slot else "(nil)")
    value = struct.unpack("<d", struct.pack("<Q", slot & (1 << 64) - 1))[0]
    if not math.isfinite(value):
        return f"%{flags.replace('0', '')}{width}s" % float_text(value, m.group("flags") or b"", conv)
    if conv in "aA":  # glibc's form: trailing zeros of the hex digits dropped
        text = re.sub(r"\.?0+p", "p", value.hex()) if value else ("-" if math.copysign(1, value) < 0 else "") + "0x0p+0"
        return f"%{flags.replace('0', '')}{width}s" % (text.upper().replace("0X", "0X") if conv == "A" else text)
    return f"%{flags}{width}{prec}{conv}" % value


def c_format(fmt: bytes, slots: list[int], strings: list[bytes]) -> str:
    out, at, k = [], 0, 0
    for m in SPEC.finditer(fmt):
        out.append(fmt[at:m.start()].decode("latin-1"))
        at = m.end()
        if m.group("conv") == b"%":
            out.append("%")
            continue
        out.append(one(m, slots[k] if k < len(slots) else 0, strings))
        k += 1
    out.append(fmt[at:].decode("latin-1"))
    return "".join(out)


def format_records(buffer: bytes, strings: list[bytes]) -> str:
    end, capacity = struct.unpack_from("<II", buffer)
    end = min(end, capacity, len(buffer))
    texts: list[tuple[int, int, str]] = []
    at = RECORDS_START
    while at + RECORD_HEADER_BYTES <= end:
        size, fid, item = struct.unpack_from("<IIQ", buffer, at)
        if size < RECORD_HEADER_BYTES or at + size > end:
            break
        slots = list(struct.unpack_from(f"<{(size - RECORD_HEADER_BYTES) // 8}Q", buffer, at + RECORD_HEADER_BYTES))
        texts.append((item, len(texts), c_format(strings[fid], slots, strings)))
        at += size
    return "".join(text for _, _, text in sorted(texts))
