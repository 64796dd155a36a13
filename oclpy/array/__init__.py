"""Device arrays with NumPy-like arithmetic: the API of `pyopencl.array`.

Bottom up: `views` is the shape and stride arithmetic; `complex` the complex
types in generated kernels; `arith` the elementwise kernels behind the
operators, and `reductions` sum, dot, min, max and their subset forms (both
below the Array class, making results of the class of their operands);
`core` the `Array` class and the constructors; `functions` the module
functions (selection, stacking, differences, cumsum).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from . import core, functions
from .arith import result_type
from .core import *  # noqa: F401,F403 - the public names of pyopencl.array
from .functions import *  # noqa: F401,F403
from .. import cltypes


def _get_common_dtype(obj1: Any, obj2: Any, queue: Any) -> np.dtype:
    """PyOpenCL's name for the result dtype of an operation on obj1 and obj2 (its tests import it)."""
    if queue is None:
        raise ValueError("PyOpenCL array has no queue; call .with_queue() to add one in order "
                         "to be able to perform operations")
    return result_type(obj1, obj2)


class VecLookupWarner:
    """`oclpy.array.vec`: PyOpenCL's deprecated way to `oclpy.cltypes`."""

    def __getattr__(self, name: str) -> Any:
        warnings.warn("pyopencl.array.vec is deprecated. Please use pyopencl.cltypes for OpenCL "
                      "vector and scalar types", DeprecationWarning, stacklevel=2)
        name = {"types": "vec_types",
                "type_to_scalar_and_count": "vec_type_to_scalar_and_count"}.get(name, name)
        return getattr(cltypes, name)


vec = VecLookupWarner()

__all__ = [*core.__all__, *functions.__all__]
