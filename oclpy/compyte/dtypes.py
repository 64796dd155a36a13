"""`pyopencl.compyte.dtypes`: the process's one dtype registry (kernelgen/dtype_registry.py)
under compyte's names: `TYPE_REGISTRY`, `DTypeRegistry`, `TypeNameNotKnown`,
`dtype_to_ctype`, `get_or_register_dtype`, `register_dtype`, the fill functions."""

from __future__ import annotations

from ..kernelgen.dtype_registry import (TYPE_REGISTRY, DTypeRegistry, TypeNameNotKnown, dtype_to_ctype,
                                        fill_registry_with_opencl_c_types, get_or_register_dtype,
                                        register_dtype)

DTYPE_TO_NAME = TYPE_REGISTRY.dtype_to_name  # deprecated in compyte, still read
NAME_TO_DTYPE = TYPE_REGISTRY.name_to_dtype

__all__ = ["DTYPE_TO_NAME", "DTypeRegistry", "NAME_TO_DTYPE", "TYPE_REGISTRY", "TypeNameNotKnown",
           "dtype_to_ctype", "fill_registry_with_opencl_c_types", "get_or_register_dtype",
           "register_dtype"]
