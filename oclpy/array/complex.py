"""Complex numbers in oclpy.array's generated kernels.

A complex64 element is a `float2` (real part `.x`, imaginary `.y`), a
complex128 one a `double2`, which is also how NumPy lays them out. This
module owns the C helpers (`COMPLEX_PREAMBLE[T]`: multiply, Smith's
division, pow through exp/log, the same as NumPy's formulas; the
elementary functions clmath offers for complex arrays), the C
templates of the operators that differ from the real ones, and the
conversions between complex and real values (complex to real keeps the
real part, as NumPy does with a ComplexWarning).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import cltypes
from ..kernelgen.dtypes import dtype_to_ctype

_HELPERS = """
TT2 oclpy_cmul_TT(TT2 a, TT2 b) { return (TT2)(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
TT2 oclpy_cdiv_TT(TT2 a, TT2 b)
{
  if (fabs(b.x) >= fabs(b.y))
  {
    TT r = b.y / b.x, d = b.x + r * b.y;
    return (TT2)((a.x + a.y * r) / d, (a.y - a.x * r) / d);
  }
  TT r = b.x / b.y, d = b.y + r * b.x;
  return (TT2)((a.x * r + a.y) / d, (a.y * r - a.x) / d);
}
TT2 oclpy_cexp_TT(TT2 a) { TT m = exp(a.x); return (TT2)(m * cos(a.y), m * sin(a.y)); }
TT2 oclpy_clog_TT(TT2 a) { return (TT2)(log(hypot(a.x, a.y)), atan2(a.y, a.x)); }
TT2 oclpy_cpow_TT(TT2 a, TT2 b)
{
  if (b.y == 0 && b.x == rint(b.x) && fabs(b.x) <= 64)
  {
    int e = (int) b.x;
    TT2 r = (TT2)(1, 0), p = a;
    for (int k = abs(e); k; k >>= 1) { if (k & 1) r = oclpy_cmul_TT(r, p); p = oclpy_cmul_TT(p, p); }
    return e < 0 ? oclpy_cdiv_TT((TT2)(1, 0), r) : r;
  }
  if (a.x == 0 && a.y == 0)
    return (TT2)(0, 0);
  return oclpy_cexp_TT(oclpy_cmul_TT(b, oclpy_clog_TT(a)));
}
"""
_FUNCTIONS = """
TT2 oclpy_csqrt_TT(TT2 a)
{
  if (a.x == 0 && a.y == 0)
    return (TT2)(0, a.y);
  TT t = sqrt((fabs(a.x) + hypot(a.x, a.y)) / 2);
  if (a.x >= 0)
    return (TT2)(t, a.y / (2 * t));
  return (TT2)(fabs(a.y) / (2 * t), copysign(t, a.y));
}
TT2 oclpy_csin_TT(TT2 a) { return (TT2)(sin(a.x) * cosh(a.y), cos(a.x) * sinh(a.y)); }
TT2 oclpy_ccos_TT(TT2 a) { return (TT2)(cos(a.x) * cosh(a.y), -sin(a.x) * sinh(a.y)); }
TT2 oclpy_csinh_TT(TT2 a) { return (TT2)(sinh(a.x) * cos(a.y), cosh(a.x) * sin(a.y)); }
TT2 oclpy_ccosh_TT(TT2 a) { return (TT2)(cosh(a.x) * cos(a.y), sinh(a.x) * sin(a.y)); }
TT2 oclpy_ctanh_TT(TT2 a)
{
  /* Kahan's form: no cancellation in cosh(2x) + cos(2y) near x = 0 */
  if (fabs(a.x) > 20)
    return (TT2)(copysign((TT) 1, a.x), 4 * sin(a.y) * cos(a.y) * exp(-2 * fabs(a.x)));
  TT t = tan(a.y), b = 1 + t * t, s = sinh(a.x), r = sqrt(1 + s * s), d = 1 + b * s * s;
  return (TT2)(b * r * s / d, t / d);
}
TT2 oclpy_ctan_TT(TT2 a)
{
  TT2 t = oclpy_ctanh_TT((TT2)(-a.y, a.x));
  return (TT2)(t.y, -t.x);
}
"""
FUNCTIONS = ("exp", "log", "sqrt", "sin", "cos", "tan", "sinh", "cosh", "tanh")

_TEMPLATES = {"+": "X + Y", "-": "X - Y", "*": "oclpy_cmul_TT(X, Y)",
              "/": "oclpy_cdiv_TT(X, Y)", "**": "oclpy_cpow_TT(X, Y)", "==": "((X).x == (Y).x && (X).y == (Y).y)",
              "!=": "((X).x != (Y).x || (X).y != (Y).y)"}


def real_ctype(dtype: np.dtype) -> str:
    return "double" if np.dtype(dtype).itemsize == 16 else "float"


def vector_ctype(dtype: Any) -> str:
    """float2 for complex64, double2 for complex128."""
    return real_ctype(dtype) + "2"


def real_dtype(dtype: Any) -> np.dtype:
    return np.dtype(np.float64 if np.dtype(dtype).itemsize == 16 else np.float32)


def preamble(dtype: Any) -> str:
    return _HELPERS.replace("TT", real_ctype(dtype))


def function(name: str, dtype: Any) -> tuple[str, str]:
    """(C template over X, preamble) of clmath's `name` on complex values."""
    if name not in FUNCTIONS:
        raise NotImplementedError(f"oclpy.clmath.{name} of complex arrays is not supported")
    t = real_ctype(dtype)
    return f"oclpy_c{name}_{t}(X)", preamble(dtype) + _FUNCTIONS.replace("TT", t)


def template(op: str, compute: np.dtype) -> tuple[str, str]:
    """(C expression over X and Y, preamble) of `op` on complex values."""
    if op not in _TEMPLATES:
        raise TypeError(f"'{op}' is not supported for complex arrays ({compute})")
    return _TEMPLATES[op].replace("TT", real_ctype(compute)), preamble(compute)


def convert(expr: str, dtype: np.dtype, src: np.dtype | None) -> str | None:
    """`expr` (of dtype src) converted to dtype when either is complex, else None."""
    to_c, from_c = dtype.kind == "c", src is not None and src.kind == "c"
    if not (to_c or from_c):
        return None
    if to_c and from_c:
        return expr if dtype == src else f"convert_{vector_ctype(dtype)}({expr})"
    if to_c:
        t = real_ctype(dtype)
        return f"({t}2)(({t}) ({expr}), ({t}) 0)"
    if dtype.kind == "b":
        return f"(uchar) (({expr}).x != 0 || ({expr}).y != 0)"
    return f"({dtype_to_ctype(dtype)}) (({expr}).x)"


def scalar_value(value: Any, dtype: np.dtype) -> np.ndarray:
    """A complex scalar as the float2/double2 kernel argument."""
    vec = cltypes.double2 if dtype.itemsize == 16 else cltypes.float2
    value = complex(value)
    return np.array((value.real, value.imag), dtype=vec)
