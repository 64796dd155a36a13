"""Initialisers and hashing for any generated type.

`init` writes a C initialiser (a brace list for arrays and records, the
first member for unions); `hash_lines` writes the `crc = crc_step(crc, ...)`
statements that fold every scalar inside a value into the work-item's hash,
as CLsmith's `transparent_crc` does.
"""

from __future__ import annotations

from typing import Callable

from .types import ArrayType, CType, FloatType, IntType, PtrType, RecordType, VecType

CRC_STEP = ("ulong crc_step(ulong crc, ulong v) { crc ^= v; crc *= 1099511628211UL; "
            "return crc ^ (crc >> 29); }")


def init(t: CType, scalar: Callable[[CType], str], vector: Callable[[VecType], str]) -> str:
    if isinstance(t, (IntType, FloatType)):
        return scalar(t)
    if isinstance(t, VecType):
        return vector(t)
    if isinstance(t, ArrayType):
        return "{" + ", ".join(init(t.elem, scalar, vector) for _ in range(t.n)) + "}"
    if isinstance(t, RecordType):
        members = t.members[:1] if t.kind == "union" else t.members
        return "{" + ", ".join(init(m, scalar, vector) for _, m in members) + "}"
    raise TypeError(t)


def hash_lines(text: str, t: CType) -> list[str]:
    if isinstance(t, IntType):
        return [f"crc = crc_step(crc, (ulong)({text}));"]
    if isinstance(t, FloatType):  # every NaN hashes alike (their sign and payload may differ)
        return [f"crc = crc_step(crc, (ulong)(isnan({text}) ? 0x7fc00000u : as_uint({text})));"]
    if isinstance(t, VecType):
        return [f"crc = crc_step(crc, (ulong)({text}.s{i:x}));" for i in range(t.n)]
    if isinstance(t, ArrayType):
        return [line for i in range(t.n) for line in hash_lines(f"{text}[{i}]", t.elem)]
    if isinstance(t, PtrType):
        return [line for i in range(t.extent) for line in hash_lines(f"{text}[{i}]", t.elem)]
    assert isinstance(t, RecordType)
    members = t.members[:1] if t.kind == "union" else t.members
    return [line for name, m in members for line in hash_lines(f"{text}.{name}", m)]


def decl(t: CType, name: str) -> str:
    """`type name` (arrays put their extent after the name)."""
    dims = ""
    while isinstance(t, ArrayType):
        dims += f"[{t.n}]"
        t = t.elem
    if isinstance(t, PtrType):
        return f"{t.space} {t.elem.name} *{name}{dims}".strip()
    return f"{t.name} {name}{dims}"
