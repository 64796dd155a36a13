"""OpenCL C's math builtins over whole arrays: the functions of `pyopencl.clmath`.

`clmath.sin(ary)` returns a new array with `sin` applied to each element,
computed by a generated elementwise kernel (oclpy.array.arith.unary). Float
arrays keep their dtype; integer arrays compute in float64, as NumPy does.
The two-argument functions (`atan2`, `atan2pi`, `fmod`, `ldexp`) take
arrays or scalars; `frexp` and `modf` return two arrays. Complex arrays
have exp, log, sqrt, sin, cos, tan, sinh, cosh and tanh (array/complex.py);
the other functions raise NotImplementedError for them. The Bessel and
Hankel functions are not provided (PyOpenCL implements them in its own
C headers): they raise NotImplementedError.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .array import arith as elw
from .array import complex as array_complex
from .array.core import Array, empty
from .elementwise import get_elwise_kernel

_UNARY = ("acos", "acosh", "acospi", "asin", "asinh", "asinpi", "atan", "atanh", "atanpi",
          "cbrt", "ceil", "cos", "cosh", "cospi", "erfc", "erf", "exp", "exp2", "exp10", "expm1",
          "fabs", "floor", "lgamma", "log", "log2", "log10", "log1p", "logb", "rint", "round",
          "sin", "sinh", "sinpi", "sqrt", "tan", "tanh", "tanpi", "tgamma", "trunc")


def _float_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.float64)


def _unary(name: str) -> Callable[..., Any]:
    def func(array: Any, queue: Any = None) -> Any:
        if array.dtype.kind == "c":
            template, preamble = array_complex.function(name, array.dtype)
            return elw.unary(template, array, array.dtype, array.dtype, queue=queue,
                             preamble=preamble, name=f"c{name}", expr_dtype=array.dtype)
        dtype = _float_dtype(array.dtype)
        return elw.unary(f"{name}(X)", array, dtype, dtype, queue=queue, name=name)

    func.__name__ = name
    func.__doc__ = f"OpenCL C's {name} of each element."
    return func


for _name in _UNARY:
    globals()[_name] = _unary(_name)


def ilogb(array: Any, queue: Any = None) -> Any:
    dtype = _float_dtype(array.dtype)
    return elw.unary("ilogb(X)", array, np.int32, dtype, queue=queue, name="ilogb")


def nan(array: Any, queue: Any = None) -> Any:
    """nan(code) of each unsigned element: a quiet NaN of the matching float width."""
    dtype = np.dtype(np.float64 if array.dtype.itemsize == 8 else np.float32)
    return elw.unary("nan(X)", array, dtype, array.dtype, queue=queue, name="nan")


def _binary(name: str, y: Any, x: Any, queue: Any) -> Any:
    dtype = _float_dtype(elw.result_type(y, x))
    like = y if isinstance(y, Array) else x
    ops = [elw.operand(y, like, dtype), elw.operand(x, like, dtype)]
    expr = f"{name}({elw.convert(ops[0].expr('x'), dtype)}, {elw.convert(ops[1].expr('y'), dtype)})"
    return elw.run(name, ops, expr, dtype, like, None, "", queue)


def atan2(y: Any, x: Any, queue: Any = None) -> Any:
    return _binary("atan2", y, x, queue)


def atan2pi(y: Any, x: Any, queue: Any = None) -> Any:
    return _binary("atan2pi", y, x, queue)


def fmod(arg: Any, mod: Any, queue: Any = None) -> Any:
    return _binary("fmod", arg, mod, queue)


def ldexp(significand: Any, exponent: Any, queue: Any = None) -> Any:
    dtype = _float_dtype(significand.dtype)
    ops = [elw.operand(significand, significand, dtype),
           elw.operand(exponent, significand, np.dtype(np.int32))]
    expr = f"ldexp({elw.convert(ops[0].expr('x'), dtype)}, (int) {ops[1].expr('y')})"
    return elw.run("ldexp", ops, expr, dtype, significand, None, "", queue)


def _two_outputs(name: str, arg: Any, second: np.dtype, queue: Any) -> tuple[Any, Any]:
    dtype = _float_dtype(arg.dtype)
    queue = queue or arg.queue
    first = empty(queue, arg.shape, dtype)
    other = empty(queue, arg.shape, second)
    src = elw.operand(arg, arg, dtype)
    t1, t2 = elw.ctype(dtype), elw.ctype(second)
    op = {"frexp": f"{{ int e; a[i] = frexp(({t1}) x[i], &e); b[i] = e; }}",
          "modf": f"{{ {t1} ip; a[i] = modf(({t1}) x[i], &ip); b[i] = ip; }}"}[name]
    knl = get_elwise_kernel(arg.context, f"{t1} *a, {t2} *b, const {elw.ctype(arg.dtype)} *x",
                            op, f"oclpy_{name}")
    evt = knl(first, other, src.value, queue=queue, wait_for=arg.events)
    first.add_event(evt)
    other.add_event(evt)
    return first, other


def frexp(arg: Any, queue: Any = None) -> tuple[Any, Any]:
    """(significands, exponents) with arg == significand * 2**exponent."""
    return _two_outputs("frexp", arg, np.dtype(np.int32), queue)


def modf(arg: Any, queue: Any = None) -> tuple[Any, Any]:
    """(fractional parts, integer parts), as PyOpenCL orders them."""
    return _two_outputs("modf", arg, _float_dtype(arg.dtype), queue)


def _missing(name: str) -> Callable[..., Any]:
    def func(*args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"oclpy.clmath.{name} is not provided (PyOpenCL computes it "
                                  f"with its own C headers of Bessel functions)")

    func.__name__ = name
    return func


bessel_jn = _missing("bessel_jn")
bessel_yn = _missing("bessel_yn")
hankel_01 = _missing("hankel_01")

__all__ = [*_UNARY, "atan2", "atan2pi", "bessel_jn", "bessel_yn", "fmod", "frexp",
           "hankel_01", "ilogb", "ldexp", "modf", "nan"]
