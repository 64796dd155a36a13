"""The undefined symbols of object code: what the JIT must find in the process.

LLVM's code generator may call functions the LLVM IR never names (runtime
library routines such as `__truncdfhf2`); MCJIT resolves each undefined
symbol of the object when it loads it, and one it cannot find becomes a call
to a bad address, a crash at run time. `binding.py` asks `undefined_symbols`
before loading, and refuses object code that needs what the process lacks.

Reads 64-bit little-endian ELF (what LLVM emits for x86-64 and AArch64
Linux); for any other format, None: nothing known, nothing checked.
"""

from __future__ import annotations

import struct

_ELF64_LE = b"\x7fELF\x02\x01"
_SHT_SYMTAB = 2
_SECTION = struct.Struct("<IIQQQQIIQQ")  # name, type, flags, addr, offset, size, link, info, align, entsize
_SYMBOL = struct.Struct("<IBBHQQ")  # name, info, other, section index, value, size
_STT_SECTION, _STT_FILE = 3, 4
_STB_WEAK = 2  # a weak undefined symbol may stay null
# resolved by the loader itself, never looked up in the process
LOADER_SYMBOLS = frozenset({"_GLOBAL_OFFSET_TABLE_"})


def undefined_symbols(obj: bytes) -> list[str] | None:
    """The names of the symbols `obj` uses but does not define, sorted (None: not ELF64 LE)."""
    if not obj.startswith(_ELF64_LE) or len(obj) < 64:
        return None
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [_SECTION.unpack_from(obj, shoff + i * shentsize) for i in range(shnum)]
    names: set[str] = set()
    for sec in sections:
        if sec[1] != _SHT_SYMTAB:
            continue
        strtab = sections[sec[6]]
        for at in range(sec[4], sec[4] + sec[5], _SYMBOL.size):
            name_at, info, _other, shndx, _value, _size = _SYMBOL.unpack_from(obj, at)
            if (shndx == 0 and name_at and info & 0xF not in (_STT_SECTION, _STT_FILE)
                    and info >> 4 != _STB_WEAK):
                names.add(_string(obj, strtab[4] + name_at))
    return sorted(names - LOADER_SYMBOLS)


def _string(obj: bytes, at: int) -> str:
    return obj[at:obj.index(b"\0", at)].decode("utf-8", "replace")
