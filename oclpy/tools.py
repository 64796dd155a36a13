"""Helpers from `pyopencl.tools` that host code and PyOpenCL's own tests use.

- dtypes: `dtype_to_ctype`, `get_or_register_dtype` (the registry is
  kernelgen/dtype_registry.py), `match_dtype_to_c_struct` (asks the device for
  sizeof and offsetof, as PyOpenCL does), `dtype_to_c_struct`;
- kernel arguments (kernelgen/arguments.py): `parse_arg_list`, `parse_c_arg`,
  `VectorArg`, `ScalarArg`, `DtypedArgument`;
- memory: `ImmediateAllocator`, `DeferredAllocator`, `MemoryPool` (mempool.py);
- memoizing per context: `context_dependent_memoize`, `first_arg_dependent_memoize`;
- pytest: `pytest_generate_tests_for_pyopencl` gives tests `ctx_factory`,
  `device` and `platform` arguments, one run per device (PYOPENCL_TEST or
  OCLPY_DEVICE narrow the choice).
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
import weakref
from typing import Any, Callable

import numpy as np

import oclpy as cl
from oclpy import Context, create_some_context

from .kernelgen.arguments import (DtypedArgument, ScalarArg, VectorArg, c_name_to_dtype, parse_arg_list,
                                  parse_c_arg)
from .kernelgen.dtype_registry import dtype_to_ctype, get_or_register_dtype
from .mempool import DeferredAllocator, ImmediateAllocator, MemoryPool, PooledBuffer

_SPIRV_MAGIC = b"\x07\x23\x02\x03"


# -- dtypes -------------------------------------------------------------------

def is_spirv(s: Any) -> bool:
    """Whether `s` is a SPIR-V module: bytes starting with its magic number, in either byte
    order (PyOpenCL's test)."""
    return isinstance(s, (bytes, bytearray)) and bytes(s[:4]) in (_SPIRV_MAGIC, _SPIRV_MAGIC[::-1])


def _c_field(name: str, dtype: np.dtype) -> str:
    if dtype.subdtype is not None:
        base, dims = dtype.subdtype
        return f"  {dtype_to_ctype(base)} {name}{''.join(f'[{d}]' for d in dims)};"
    return f"  {dtype_to_ctype(dtype)} {name};"


def match_dtype_to_c_struct(device: Any, name: str, dtype: Any, context: Any = None
                            ) -> tuple[np.dtype, str]:
    """(dtype laid out as the device lays out the C struct, the struct's C declaration).

    A kernel on `device` reports sizeof and each field's offset; the dtype is
    rebuilt with those offsets and that size, and registered under `name`.
    """
    dtype = np.dtype(dtype)
    fields = sorted(dtype.fields.items(), key=lambda item: item[1][1])
    c_decl = "typedef struct {\n" + "\n".join(_c_field(n, f[0]) for n, f in fields) + f"\n}} {name};\n\n"
    offsets = "\n".join(f"  result[{i + 1}] = (uint) ((char *) &dummy.{n} - (char *) &dummy);"
                        for i, (n, _) in enumerate(fields))
    src = (f"{c_decl}__kernel void get_size_and_offsets(__global uint *result)\n{{\n"
           f"  {name} dummy;\n  result[0] = sizeof({name});\n{offsets}\n}}\n")
    context = context or Context([device])
    queue = cl.CommandQueue(context, device)
    knl = cl.Program(context, src).build(devices=[device]).get_size_and_offsets
    result = np.empty(1 + len(fields), np.uint32)
    buf = cl.Buffer(context, cl.mem_flags.WRITE_ONLY, result.nbytes)
    knl(queue, (1,), (1,), buf)
    cl.enqueue_copy(queue, result, buf)
    size, offs = int(result[0]), [int(o) for o in result[1:]]
    matched = np.dtype({"names": [n for n, _ in fields], "formats": [f[0] for _, f in fields],
                        "offsets": offs, "itemsize": size})
    get_or_register_dtype(name, matched)
    return matched, c_decl


def dtype_to_c_struct(device: Any, dtype: Any) -> str:
    dtype = np.dtype(dtype)
    matched, c_decl = match_dtype_to_c_struct(device, dtype_to_ctype(dtype), dtype)
    if matched != dtype:
        raise ValueError("the dtype's layout does not match the device's layout of the struct")
    return c_decl


# -- memoizing per context ----------------------------------------------------

_first_arg_caches: list[weakref.WeakKeyDictionary] = []


def first_arg_dependent_memoize(func: Callable[..., Any]) -> Callable[..., Any]:
    """Cache func(first, *rest) per `first` (held weakly) and per `rest`."""
    cache: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
    _first_arg_caches.append(cache)
    lock = threading.Lock()

    @functools.wraps(func)
    def wrapper(first: Any, *args: Any, **kwargs: Any) -> Any:
        key = (args, tuple(sorted(kwargs.items())))
        with lock:
            per_first = cache.setdefault(first, {})
            if key in per_first:
                return per_first[key]
        value = func(first, *args, **kwargs)
        with lock:
            return per_first.setdefault(key, value)

    return wrapper


context_dependent_memoize = first_arg_dependent_memoize


def clear_first_arg_caches() -> None:
    for cache in _first_arg_caches:
        cache.clear()


# -- pytest -------------------------------------------------------------------

def get_test_platforms_and_devices(plat_dev_string: str | None = None) -> list[tuple[Any, list[Any]]]:
    """[(platform, devices)], narrowed by PYOPENCL_TEST ("0:1", "oclpy:cpu", ...)."""
    spec = plat_dev_string if plat_dev_string is not None else os.environ.get("PYOPENCL_TEST", "")
    result = []
    for p_index, platform in enumerate(cl.get_platforms()):
        devices = platform.get_devices()
        if spec.strip():
            devices = [d for d in devices if _matches(spec, p_index, platform, devices.index(d), d)]
        if devices:
            result.append((platform, devices))
    return result


def _matches(spec: str, p_index: int, platform: Any, d_index: int, device: Any) -> bool:
    for entry in spec.split(";"):
        plat, _, devs = entry.partition(":")
        plat_ok = not plat or plat == str(p_index) or plat.lower() in platform.name.lower()
        dev_ok = not devs or any(d == str(d_index) or d.lower() in device.name.lower()
                                 or d.lower() == device.kind for d in devs.split(","))
        if plat_ok and dev_ok:
            return True
    return False


class ContextFactory:
    """A callable making a fresh Context on one device (PyOpenCL's ctx_factory)."""

    def __init__(self, device: Any) -> None:
        self.device = device

    def __call__(self) -> Context:
        return Context([self.device])

    def __str__(self) -> str:
        return f"<context factory for {self.device!r}>"


def pytest_generate_tests_for_pyopencl(metafunc: Any) -> None:
    """Parametrize `ctx_factory`, `device` and `platform` arguments over the devices."""
    names = [n for n in ("platform", "device", "ctx_factory", "ctx_getter")
             if n in metafunc.fixturenames]
    if not names:
        return
    values, ids = [], []
    for platform, devices in get_test_platforms_and_devices():
        for device in devices:
            row = {"platform": platform, "device": device, "ctx_factory": ContextFactory(device),
                   "ctx_getter": ContextFactory(device)}
            values.append(tuple(row[n] for n in names))
            ids.append(str(row["ctx_factory"]) if "platform" not in names or len(names) > 1
                       else repr(platform))
    metafunc.parametrize(names, values, ids=ids)


def bitlog2(n: int) -> int:
    """floor(log2(n)) of a positive integer, as PyOpenCL's (the memory pool's size classes)."""
    if n <= 0:
        raise ValueError(f"bitlog2 needs a positive integer, got {n}")
    return int(n).bit_length() - 1


def register_dtype(dtype: Any, c_names: Any, alias_ok: bool = False) -> None:
    """PyOpenCL's deprecated spelling of get_or_register_dtype(c_names, dtype)."""
    warnings.warn("register_dtype is deprecated; use get_or_register_dtype", DeprecationWarning, stacklevel=2)
    get_or_register_dtype(c_names, dtype)


__all__ = ["Context", "ContextFactory", "bitlog2", "register_dtype", "DeferredAllocator", "DtypedArgument", "ScalarArg",
           "VectorArg", "c_name_to_dtype", "parse_arg_list", "parse_c_arg", "ImmediateAllocator", "MemoryPool",
           "PooledBuffer", "clear_first_arg_caches", "context_dependent_memoize",
           "create_some_context", "dtype_to_c_struct", "dtype_to_ctype",
           "first_arg_dependent_memoize", "get_or_register_dtype",
           "get_test_platforms_and_devices", "match_dtype_to_c_struct",
           "pytest_generate_tests_for_pyopencl"]
