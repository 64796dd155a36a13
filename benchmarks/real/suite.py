"""The real suite: every case, in the order the table shows them."""

from __future__ import annotations

from typing import Callable

from . import cases_blas as blas
from .case import RealCase

Maker = Callable[[bool], RealCase]

MAKERS: dict[str, Maker] = {
    "clblast_xgemm": blas.make_xgemm, "clblast_xgemv": blas.make_xgemv, "clblast_xaxpy": blas.make_xaxpy,
    "clblast_xdot": blas.make_xdot, "clblast_transpose": blas.make_transpose,
    "viennacl_gemv": blas.make_viennacl_gemv, "handson_mmul_block": blas.make_handson_block,
    "handson_mmul_row_priv": blas.make_handson_row,
}


def select(names: list[str] | None) -> list[tuple[str, Maker]]:
    """(name, maker) for `names` (all when empty); unknown names raise KeyError with the list."""
    if not names:
        return list(MAKERS.items())
    unknown = [n for n in names if n not in MAKERS]
    if unknown:
        raise KeyError(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(MAKERS)}")
    return [(n, MAKERS[n]) for n in names]
