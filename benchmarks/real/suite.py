"""The real suite: every case, in the order the table shows them."""

from __future__ import annotations

from typing import Callable

from . import cases_blas as blas
from . import cases_fft as fft
from . import cases_generated as gen
from . import cases_finance as fin
from . import cases_image as img
from . import cases_irregular as irr
from . import cases_physics as phy
from .case import RealCase

Maker = Callable[[bool], RealCase]

MAKERS: dict[str, Maker] = {
    "clblast_xgemm": blas.make_xgemm, "clblast_xgemv": blas.make_xgemv, "clblast_xaxpy": blas.make_xaxpy,
    "clblast_xdot": blas.make_xdot, "clblast_transpose": blas.make_transpose,
    "viennacl_gemv": blas.make_viennacl_gemv, "handson_mmul_block": blas.make_handson_block,
    "handson_mmul_row_priv": blas.make_handson_row,
    "viennacl_fft_local": fft.make_fft_local, "viennacl_fft_passes": fft.make_fft_passes,
    "gegl_box_blur": img.make_gegl_box_blur, "gegl_bilateral": img.make_gegl_bilateral,
    "gegl_edge_sobel": img.make_gegl_sobel, "bemap_gaussian": img.make_bemap_gaussian,
    "sdk_convolution": img.make_sdk_convolution,
    "bemap_blackscholes_scalar": fin.make_blackscholes_scalar,
    "bemap_blackscholes_simd": fin.make_blackscholes_simd,
    "bemap_montecarlo_scalar": fin.make_montecarlo_scalar,
    "bemap_montecarlo_simd": fin.make_montecarlo_simd, "handson_pi": fin.make_handson_pi,
    "sdk_nbody": phy.make_nbody, "bullet_sap_pairs": phy.make_bullet_sap,
    "bullet_grid_hash": phy.make_bullet_grid_hash,
    "clsparse_csrmv": irr.make_csrmv, "sdk_histogram": irr.make_histogram, "sdk_reduce": irr.make_reduce,
    "pyopencl_lin_comb": gen.make_lin_comb,
}


def select(names: list[str] | None) -> list[tuple[str, Maker]]:
    """(name, maker) for `names` (all when empty); unknown names raise KeyError with the list."""
    if not names:
        return list(MAKERS.items())
    unknown = [n for n in names if n not in MAKERS]
    if unknown:
        raise KeyError(f"unknown case(s) {', '.join(unknown)}; known: {', '.join(MAKERS)}")
    return [(n, MAKERS[n]) for n in names]
