"""OpenCL C's scalar and vector types as numpy dtypes, like `pyopencl.cltypes`.

`cltypes.float4` is a structured dtype with fields s0..s3 (16 bytes); the
3-element vectors have a fourth padding field, since OpenCL sizes them as 4.
`make_float4(1, 2, 3, 4)` returns a numpy scalar of that dtype, ready to pass
to a kernel by value; `zeros_float4()` returns a zeroed one.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

char = np.int8
uchar = np.uint8
short = np.int16
ushort = np.uint16
int = np.int32  # noqa: A001 - OpenCL's name
uint = np.uint32
long = np.int64
ulong = np.uint64
half = np.float16
float = np.float32  # noqa: A001 - OpenCL's name
double = np.float64
bool = np.int32  # noqa: A001 - a kernel's bool argument is not portable; PyOpenCL maps it so

BASE_TYPES = {"char": char, "uchar": uchar, "short": short, "ushort": ushort, "int": int,
              "uint": uint, "long": long, "ulong": ulong, "half": half, "float": float,
              "double": double}
VECTOR_COUNTS = (2, 3, 4, 8, 16)
vec_types: dict[tuple[np.dtype, int], np.dtype] = {}
vec_type_to_scalar_and_count: dict[np.dtype, tuple[np.dtype, int]] = {}


def _vector_dtype(base: Any, count: int) -> np.dtype:
    padded = 4 if count == 3 else count
    names = [f"s{i}" for i in range(count)] + [f"padding{i}" for i in range(padded - count)]
    titles = ["x", "y", "z", "w"][:count] if count <= 4 else [None] * count
    titles = list(titles) + [None] * (padded - len(titles))
    return np.dtype({"names": names, "formats": [base] * padded, "titles": titles})


def _maker(name: str, dtype: np.dtype, count: int) -> Callable[..., Any]:
    padded = dtype.itemsize // np.dtype(dtype.fields["s0"][0]).itemsize

    def make(*values: Any) -> Any:
        if len(values) != count:
            raise TypeError(f"make_{name}() takes {count} values, got {len(values)}")
        return np.array(tuple(values) + (0,) * (padded - count), dtype=dtype)[()]

    make.__name__ = f"make_{name}"
    return make


def _zeros(dtype: np.dtype) -> Callable[[], Any]:
    return lambda: np.zeros((), dtype=dtype)[()]


def _define_vectors() -> None:
    module = globals()
    for base_name, base in BASE_TYPES.items():
        for count in VECTOR_COUNTS:
            name = f"{base_name}{count}"
            dtype = _vector_dtype(base, count)
            module[name] = dtype
            module[f"make_{name}"] = _maker(name, dtype, count)
            module[f"zeros_{name}"] = _zeros(dtype)
            module[f"filled_{name}"] = (lambda d, c: lambda v: _maker("", d, c)(*([v] * c)))(dtype, count)
            vec_types[np.dtype(base), count] = dtype
            vec_type_to_scalar_and_count[dtype] = (np.dtype(base), count)


_define_vectors()
