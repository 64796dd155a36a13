"""One kernel per element type that evaluates many builtin expressions at
every vector width, so a whole family costs one build.

An `Op` is an OpenCL C expression over the gentype operands `a`, `b`, `c`
(loaded with `vloadn(i, A)`) and the scalar operands `sa`, `sb`, `sc` (the
element `A[i]`); in the expression `$E` is the element type and `$T`, `$U`,
`$I`, `$L` stand for the gentype, its unsigned type, int and the signed integer
type of the element size, at the width being built; its result has element type `out` ("T": the element type,
"U": its unsigned type, "R": the relational result, or a type name).
`evaluate` returns, for each op and width n, the G*n result elements; the
reference sees `Env`: the operand elements (scalars broadcast over their
vector's elements) and the width.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

G = 8
WIDTHS = (1, 2, 3, 4, 8, 16)

DTYPES: dict[str, Any] = {
    "char": np.int8, "uchar": np.uint8, "short": np.int16, "ushort": np.uint16,
    "int": np.int32, "uint": np.uint32, "long": np.int64, "ulong": np.uint64,
    "float": np.float32, "double": np.float64, "half": np.float16,
}
INT_TYPES = ("char", "uchar", "short", "ushort", "int", "uint", "long", "ulong")
SIGNED_OF_SIZE = {1: "char", 2: "short", 4: "int", 8: "long"}


def unsigned(t: str) -> str:
    if t in ("float", "double", "half"):
        return unsigned(SIGNED_OF_SIZE[np.dtype(DTYPES[t]).itemsize])
    return t if t.startswith("u") else "u" + t


def bits(t: str) -> int:
    return np.dtype(DTYPES[t]).itemsize * 8


def is_signed(t: str) -> bool:
    return np.issubdtype(DTYPES[t], np.signedinteger)


def wrap(v: int, t: str) -> int:
    """The value of integer `v` converted (modulo 2^bits) to integer type `t`."""
    b = bits(t)
    v &= (1 << b) - 1
    return v - (1 << b) if is_signed(t) and v >> (b - 1) else v


@dataclass(frozen=True)
class Op:
    key: str
    expr: str
    out: str = "T"
    widths: tuple[int, ...] = WIDTHS


@dataclass
class Env:
    a: np.ndarray
    b: np.ndarray
    c: np.ndarray
    sa: np.ndarray
    sb: np.ndarray
    sc: np.ndarray
    n: int


def out_type(op: Op, elem: str, n: int) -> str:
    if op.out == "T":
        return elem
    if op.out == "U":
        return unsigned(elem)
    if op.out == "R":
        return "int" if n == 1 else SIGNED_OF_SIZE[np.dtype(DTYPES[elem]).itemsize]
    return op.out


def _vt(elem: str, n: int) -> str:
    return elem if n == 1 else f"{elem}{n}"


def _load(name: str, n: int) -> str:
    return f"{name}[i]" if n == 1 else f"vload{n}(i, {name})"


def _store(value: str, ot: str, n: int, offset: int) -> str:
    ptr = f"(__global {ot} *)(O + {offset})"
    return f"*({ptr} + i) = {value};" if n == 1 else f"vstore{n}({value}, i, {ptr});"


def kernel_source(elem: str, ops: list[Op], pre: str = "") -> tuple[str, dict[tuple[str, int], tuple[int, str]]]:
    """The kernel `ew` and, per (op key, width), the byte offset and type of its results."""
    lines, layout, offset = [], {}, 0
    for n in WIDTHS:
        body = []
        for op in ops:
            if n not in op.widths:
                continue
            ot = out_type(op, elem, n)
            layout[(op.key, n)] = (offset, ot)
            expr = op.expr.replace("$T", _vt(elem, n)).replace("$U", _vt(unsigned(elem), n))
            expr = expr.replace("$E", elem).replace("$n", str(n) if n > 1 else "").replace("$I", _vt("int", n)).replace("$L", _vt(SIGNED_OF_SIZE[np.dtype(DTYPES[elem]).itemsize], n))
            body.append("    " + _store(f"({_vt(ot, n)})({expr})", ot, n, offset))
            offset += -(-G * n * np.dtype(DTYPES[ot]).itemsize // 64) * 64
        if body:
            vt = _vt(elem, n)
            lines.append(f"  {{\n    {vt} a = {_load('A', n)}, b = {_load('B', n)}, c = {_load('C', n)};")
            lines.extend(body)
            lines.append("  }")
    src = (f"{pre}\n__kernel void ew(__global const {elem} *A, __global const {elem} *B, "
           f"__global const {elem} *C, __global uchar *O) {{\n  size_t i = get_global_id(0);\n"
           f"  {elem} sa = A[i], sb = B[i], sc = C[i];\n" + "\n".join(lines) + "\n}\n")
    return src, {**layout, ("__size__", 0): (offset, "")}


def evaluate(runner: Any, elem: str, ops: list[Op], a: np.ndarray, b: np.ndarray, c: np.ndarray,
             pre: str = "", options: str = "") -> tuple[dict[tuple[str, int], np.ndarray], dict[int, Env]]:
    """Run every op at every width on inputs of G*16 elements; results and envs by width."""
    src, layout = kernel_source(elem, ops, pre)
    size = layout.pop(("__size__", 0))[0]
    out = np.zeros(max(size, 64), np.uint8)
    (out,) = runner(src, "ew", (G,), None, a, b, c, out, options=options)[3:]
    results = {}
    for (key, n), (off, ot) in layout.items():
        dt = np.dtype(DTYPES[ot])
        results[(key, n)] = out[off:off + G * n * dt.itemsize].view(dt).copy()
    envs = {}
    for n in WIDTHS:
        k = G * n
        idx = np.arange(k) // n
        envs[n] = Env(a[:k], b[:k], c[:k], a[idx], b[idx], c[idx], n)
    return results, envs


def int_ref(fn: Callable[..., int], *arrays: np.ndarray) -> list[int]:
    """fn over the elements as Python ints."""
    return [fn(*vals) for vals in zip(*(x.tolist() for x in arrays))]
