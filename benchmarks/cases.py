"""The suite: every benchmark case, in the order the table shows them."""

from __future__ import annotations

from typing import Callable

from . import cases_dense as d
from . import cases_irregular as i
from . import cases_math as m
from . import cases_vector as v
from .case import Case

MAKERS: dict[str, Callable[[], Case]] = {
    "saxpy": d.make_saxpy, "reduce": d.make_reduce, "matmul_naive": d.make_matmul_naive,
    "matmul_tiled": d.make_matmul_tiled, "stencil2d": d.make_stencil2d,
    "stencil3d": d.make_stencil3d, "histogram": i.make_histogram, "prefix_sum": i.make_scan,
    "transpose": d.make_transpose, "nbody": d.make_nbody, "mandelbrot": d.make_mandelbrot,
    "spmv_csr": i.make_spmv, "bitonic_step": i.make_bitonic, "helper_call": i.make_helper,
    "blackscholes": m.make_blackscholes, "rotate": m.make_rotate,
    "rotate_soa": m.make_rotate_soa, "rgba_blur": v.make_rgba_blur,
    "vload_axpy": v.make_vload_axpy, "complex_poly": v.make_complex_poly,
    "tile_smooth": v.make_tile_smooth,
}


def select(names: list[str] | None) -> list[Callable[[], Case]]:
    """The makers for `names` (all when None); unknown names raise KeyError with the list."""
    if not names:
        return list(MAKERS.values())
    unknown = [n for n in names if n not in MAKERS]
    if unknown:
        raise KeyError(f"unknown benchmark(s) {', '.join(unknown)}; known: {', '.join(MAKERS)}")
    return [MAKERS[n] for n in names]
