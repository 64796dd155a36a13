"""`pyopencl.compyte`: the type registry and array helpers PyOpenCL shares with its
siblings (loopy imports `pyopencl.compyte.dtypes.TYPE_REGISTRY`)."""

from . import array, dtypes

__all__ = ["array", "dtypes"]
