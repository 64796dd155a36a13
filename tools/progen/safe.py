"""The safe arithmetic wrappers (CLsmith's `safe_math.h`), as text.

Each wrapper takes its operands at the type the usual arithmetic conversions
give and returns a defined result where C would be undefined: signed overflow
of + - * and unary minus, division or remainder by zero or of MIN by -1,
shifts by an out-of-range amount or of negative values. A signed operation
that is safe is done with the plain operator (so the compiler sees `nsw`
arithmetic guarded by range checks, as in CLsmith). Only the wrappers a
program uses are emitted (`Safe.use` records them).
"""

from __future__ import annotations

from .types import INT_TYPES, IntType, literal

_SIGNED = {
    "add": "(b > 0 && a > {MAX} - b) || (b < 0 && a < {MIN} - b) ? a : a + b",
    "sub": "(b < 0 && a > {MAX} + b) || (b > 0 && a < {MIN} + b) ? a : a - b",
    "mul": ("(a > 0 && b > 0 && a > {MAX} / b) || (a > 0 && b <= 0 && b < {MIN} / a) || "
            "(a <= 0 && b > 0 && a < {MIN} / b) || (a < 0 && b <= 0 && a != 0 && b < {MAX} / a)"
            " ? a : a * b"),
    "div": "(b == 0 || (a == {MIN} && b == -1)) ? a : a / b",
    "mod": "(b == 0 || (a == {MIN} && b == -1)) ? a : a % b",
}
_UNSIGNED = {
    "add": "a + b",
    "sub": "a - b",
    "mul": "a * b",
    "div": "b == 0 ? a : a / b",
    "mod": "b == 0 ? a : a % b",
}


def _binary(op: str, t: IntType) -> str:
    table = _SIGNED if t.signed else _UNSIGNED
    body = table[op].format(MAX=literal(t, t.hi), MIN=literal(t, t.lo))
    return f"{t.name} safe_{op}_{t.name}({t.name} a, {t.name} b) {{ return {body}; }}"


def _shift(op: str, t: IntType) -> str:
    if op == "shl" and t.signed:
        body = f"(a < 0 || b >= {t.bits}u || a > ({literal(t, t.hi)} >> b)) ? a : a << b"
    elif op == "shl":
        body = f"b >= {t.bits}u ? a : a << b"
    else:
        body = f"b >= {t.bits}u ? a : a >> b"
    return f"{t.name} safe_{op}_{t.name}({t.name} a, uint b) {{ return {body}; }}"


def _neg(t: IntType) -> str:
    body = f"a == {literal(t, t.lo)} ? a : -a" if t.signed else "-a"
    return f"{t.name} safe_neg_{t.name}({t.name} a) {{ return {body}; }}"


class Safe:
    """Which wrappers a program calls, and their definitions."""

    def __init__(self) -> None:
        self.used: set[tuple[str, str]] = set()

    def use(self, op: str, t: IntType) -> str:
        self.used.add((op, t.name))
        return f"safe_{op}_{t.name}"

    def text(self) -> str:
        lines = []
        for t in INT_TYPES:
            for op in ("add", "sub", "mul", "div", "mod", "shl", "shr", "neg"):
                if (op, t.name) not in self.used:
                    continue
                if op in ("shl", "shr"):
                    lines.append(_shift(op, t))
                elif op == "neg":
                    lines.append(_neg(t))
                else:
                    lines.append(_binary(op, t))
        return "\n".join(lines)
