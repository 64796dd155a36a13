"""Kernel arguments: checking a Python value against a parameter, and packing the blob.

`bind_arg(kernel_name, index, param, value, dtype)` returns a `BoundArg` or
raises what PyOpenCL raises, prefixed "when processing arg#N (1-based): ":

- a value without the buffer protocol (a bare Python int or float) for a
  parameter with no declared dtype: LogicError INVALID_VALUE "invalid kernel
  argument" (routine Kernel.set_arg), as PyOpenCL does; use numpy.int32(n) or
  `set_scalar_arg_dtypes`;
- bytes of the wrong size for a by-value parameter: INVALID_ARG_SIZE;
- something other than a Buffer or None for a pointer (a numpy array, say),
  or other than a LocalMemory for a __local pointer: INVALID_ARG_VALUE;
- a released buffer or one of another context: INVALID_MEM_OBJECT;
- for an image parameter (`attrs["opaque"] == "image"`) anything but an Image:
  INVALID_ARG_VALUE; for a `sampler_t` one anything but a Sampler:
  INVALID_SAMPLER (a sampler is packed as its CLK_* bits, a uint).

Parameters are dispatched by their kind ("global", "constant", "local",
"scalar") through `BINDERS`. `pack_blob` lays the bound values out at the
offsets the target chose: buffers as 64-bit device addresses (0 for NULL),
__local sizes as 64-bit byte counts, values as their bytes. `ArgPacker` does
the same with one struct format per compiled kernel, built once (the launch path);
its `pack_values` packs a launch's raw values at once when each is of the usual
kind (a live Buffer or None for a pointer, a value of the parameter's size for
a by-value one) and answers None otherwise, leaving the checks and messages to
`bind_arg` (the launch fast path, runtime/launch_plan.py).
"""

from __future__ import annotations

import struct
from typing import Any, Callable, NamedTuple

import numpy as np

from .errors import raise_cl, status_code
from .image import Image
from .memory import Buffer, LocalMemory, MemoryObjectHolder
from .sampler import Sampler

BARE_VALUE_HINT = ("invalid kernel argument (a bare Python value has no size: "
                   "pass a sized numpy scalar such as numpy.int32(n), "
                   "or declare the types with set_scalar_arg_dtypes)")


class BoundArg(NamedTuple):
    """One checked argument (a tuple: made on every launch, so it must be cheap to make)."""

    kind: str  # "mem" | "local" | "value"
    buffer: Buffer | None = None
    nbytes: int = 0
    data: bytes = b""


def describe_param(param: Any) -> str:
    type_name = param.attrs.get("type_name") if getattr(param, "attrs", None) else None
    space = param.kind if param.kind != "scalar" else ""
    spelled = f"{'__' + space + ' ' if space else ''}{type_name or param.type}"
    return f"'{param.name}' ({spelled})"


def _type_of(value: Any) -> str:
    cls = type(value)
    package = cls.__module__.split(".")[0]
    return cls.__name__ if package == "builtins" else f"{package}.{cls.__name__}"


class _ArgError(Exception):
    """Raised inside the binders; bind_arg adds the argument number and routine."""

    def __init__(self, code: int, message: str, routine: str = "clSetKernelArg") -> None:
        super().__init__(message)
        self.code = code
        self.routine = routine


def _bind_mem(param: Any, value: Any, context: Any) -> BoundArg:
    if value is None:
        return BoundArg("mem")
    if isinstance(value, Buffer):
        if value.storage is None:
            raise _ArgError(status_code.INVALID_MEM_OBJECT, "the buffer was released")
        if value.context is not context:
            raise _ArgError(status_code.INVALID_MEM_OBJECT,
                            "the buffer belongs to another context than the kernel")
        return BoundArg("mem", buffer=value)
    advice = f"argument {describe_param(param)} is a pointer: pass a Buffer (or None), not {_type_of(value)}"
    if not isinstance(value, LocalMemory) and not _has_buffer_protocol(value):  # PyOpenCL's answer to a bare Python value
        raise _ArgError(status_code.INVALID_VALUE, f"invalid kernel argument ({advice})", "Kernel.set_arg")
    raise _ArgError(status_code.INVALID_ARG_VALUE, advice)


def _has_buffer_protocol(value: Any) -> bool:
    try:
        memoryview(value)
    except TypeError:
        return False
    return True


def _bind_local(param: Any, value: Any, context: Any) -> BoundArg:
    if not isinstance(value, LocalMemory):
        raise _ArgError(status_code.INVALID_ARG_VALUE,
                        f"argument {describe_param(param)} is a __local pointer: "
                        f"pass LocalMemory(nbytes), not {_type_of(value)}")
    if value.size == 0:
        raise _ArgError(status_code.INVALID_ARG_SIZE,
                        f"argument {describe_param(param)}: LocalMemory size must be > 0")
    return BoundArg("local", nbytes=value.size)


def _bind_value(param: Any, value: Any, context: Any) -> BoundArg:
    if isinstance(value, (MemoryObjectHolder, LocalMemory)) or value is None:
        raise _ArgError(status_code.INVALID_ARG_VALUE,
                        f"argument {describe_param(param)} is passed by value: "
                        f"pass a numpy scalar of {param.size} bytes, not {_type_of(value)}")
    try:
        data = memoryview(value).tobytes()
    except TypeError:
        raise _ArgError(status_code.INVALID_VALUE, BARE_VALUE_HINT, "Kernel.set_arg") from None
    if len(data) != param.size:
        raise _ArgError(status_code.INVALID_ARG_SIZE,
                        f"argument {describe_param(param)} takes {param.size} bytes, "
                        f"got {len(data)} ({_type_of(value)})")
    return BoundArg("value", data=data)


def _bind_image(param: Any, value: Any, context: Any) -> BoundArg:
    if not isinstance(value, Image):
        raise _ArgError(status_code.INVALID_ARG_VALUE,
                        f"argument {describe_param(param)} is an image: pass an Image, not {_type_of(value)}")
    if value.storage is None:
        raise _ArgError(status_code.INVALID_MEM_OBJECT, "the image was released")
    if value.context is not context:
        raise _ArgError(status_code.INVALID_MEM_OBJECT, "the image belongs to another context than the kernel")
    return BoundArg("mem", buffer=value)  # type: ignore[arg-type]  (an Image has a buffer's allocation())


def _bind_sampler(param: Any, value: Any, context: Any) -> BoundArg:
    if not isinstance(value, Sampler):
        raise _ArgError(status_code.INVALID_SAMPLER,
                        f"argument {describe_param(param)} is a sampler: pass a Sampler, not {_type_of(value)}")
    if value.context is not context:
        raise _ArgError(status_code.INVALID_SAMPLER, "the sampler belongs to another context than the kernel")
    return BoundArg("value", data=struct.pack("<I", value.bits))


# kernel arguments of OpenCL C's opaque types (KernelArg.attrs["opaque"]), before the kinds
OPAQUE_BINDERS: dict[str, Callable[[Any, Any, Any], BoundArg]] = {
    "image": _bind_image,
    "sampler": _bind_sampler,
}

BINDERS: dict[str, Callable[[Any, Any, Any], BoundArg]] = {
    "global": _bind_mem,
    "constant": _bind_mem,
    "local": _bind_local,
    "scalar": _bind_value,
}


def convert_with_dtype(value: Any, dtype: np.dtype) -> Any:
    """A value as `dtype` (set_scalar_arg_dtypes): Python numbers and tuples become numpy values."""
    if isinstance(value, np.generic) and value.dtype == dtype:
        return value
    if isinstance(value, (MemoryObjectHolder, LocalMemory)) or value is None:
        return value
    try:
        return np.array(value, dtype=dtype)[()]
    except (TypeError, ValueError, OverflowError) as exc:
        raise _ArgError(status_code.INVALID_ARG_VALUE,
                        f"cannot convert {value!r} to {dtype}: {exc}") from None


def bind_arg(index: int, param: Any, value: Any, context: Any, dtype: np.dtype | None = None) -> BoundArg:
    try:
        if dtype is not None:
            value = convert_with_dtype(value, dtype)
        attrs = getattr(param, "attrs", None)
        binder = OPAQUE_BINDERS.get(attrs.get("opaque")) if attrs else None
        return (binder or BINDERS[param.kind])(param, value, context)
    except _ArgError as exc:
        raise_cl(exc.routine, exc.code, f"when processing arg#{index + 1} (1-based): {exc}")


def pack_blob(params: list[Any], bound: list[BoundArg], driver: Any, blob_size: int) -> tuple[bytearray, list[Any]]:
    """The argument blob for `driver`, and the allocations it points to (keep them alive)."""
    blob = bytearray(blob_size)
    keep: list[Any] = []
    for param, arg in zip(params, bound):
        if arg.kind == "mem":
            address = 0
            if arg.buffer is not None:
                alloc, base = arg.buffer.allocation(driver)
                address = alloc.address + base
                keep.append(alloc)
            struct.pack_into("<Q", blob, param.offset, address)
        elif arg.kind == "local":
            struct.pack_into("<Q", blob, param.offset, arg.nbytes)
        else:
            blob[param.offset:param.offset + len(arg.data)] = arg.data
    return blob, keep


def local_bytes_needed(static_bytes: int, params: list[Any], bound: list[BoundArg], align: int = 16) -> int:
    total = static_bytes
    for param, arg in zip(params, bound):
        if arg.kind == "local":
            total = -(-total // align) * align + arg.nbytes
    return total


class ArgPacker:
    """The argument blob of one compiled kernel: a struct format built once from
    its parameters' kinds, sizes and offsets, then one `pack` per launch (bytes,
    which the cpu target reads in place). Laid out as `pack_blob` does."""

    def __init__(self, params: list[Any], blob_size: int) -> None:
        self.params, self.blob_size = params, blob_size
        self.order = sorted(range(len(params)), key=lambda i: params[i].offset)
        # (index, size; 0 for a global/constant pointer) in blob order, for pack_values;
        # None when a parameter (a __local one) always needs bind_arg
        self.raw_order: tuple[tuple[int, int], ...] | None = tuple(
            (i, 0 if params[i].kind in BUFFER_KINDS else params[i].size) for i in self.order)
        if any((p.kind not in BUFFER_KINDS and (p.kind != "scalar" or p.size <= 0))
               or "opaque" in (getattr(p, "attrs", None) or ()) for p in params):
            self.raw_order = None
        fmt, pos = ["<"], 0
        self.struct: struct.Struct | None = None
        for i in self.order:
            param = params[i]
            if param.offset < pos:  # overlapping arguments: no one format (pack_blob does it)
                self.raw_order = None
                return
            if param.offset > pos:
                fmt.append(f"{param.offset - pos}x")
            size = 8 if param.kind in POINTER_KINDS else param.size
            fmt.append("Q" if param.kind in POINTER_KINDS else f"{size}s")
            pos = param.offset + size
        if blob_size > pos:
            fmt.append(f"{blob_size - pos}x")
        self.struct = struct.Struct("".join(fmt))

    def pack(self, bound: list[BoundArg], driver: Any) -> tuple[bytes | bytearray, list[Any]]:
        """The blob for `driver`, and the allocations it points to (keep them alive)."""
        if self.struct is None:
            return pack_blob(self.params, bound, driver, self.blob_size)
        values: list[Any] = []
        keep: list[Any] = []
        for i in self.order:
            arg = bound[i]
            kind = arg.kind
            if kind == "mem":
                if arg.buffer is None:
                    values.append(0)
                    continue
                alloc, base = arg.buffer.allocation(driver)
                values.append(alloc.address + base)
                keep.append(alloc)
            elif kind == "local":
                values.append(arg.nbytes)
            else:
                values.append(arg.data)
        return self.struct.pack(*values), keep

    def dtyped(self, dtypes: list[np.dtype | None]) -> tuple[Any, ...] | None:
        """For `pack_values`: per parameter in blob order, how a value of a declared
        scalar dtype (set_scalar_arg_dtypes) is packed: (numpy scalar type, struct)
        for integer and float dtypes of the parameter's size, else None (the value
        taken as it comes)."""
        if self.raw_order is None:
            return None
        return tuple(_dtyped(dtypes[i], size) if size else None for i, size in self.raw_order)

    def pack_values(self, args: tuple, driver: Any, context: Any,
                    dtyped: tuple[Any, ...] | None = None) -> tuple[bytes, list[Any]] | None:
        """The blob of a launch's raw argument values and the storages its buffers use
        (keep them alive), when every value is of the usual kind and every buffer
        already has its allocation on `driver`; else None, and nothing done.

        Accepts only what `bind_arg` accepts: a Buffer of `context` (not released)
        or None for a pointer, a value with the buffer protocol and the parameter's
        size for a by-value parameter; with `dtyped` (from `dtyped()`), for a
        parameter of a declared dtype, a numpy scalar of that dtype or a Python int
        or float that the dtype holds (bind_arg would convert it the same way)."""
        order = self.raw_order
        if order is None or len(args) != len(self.params):
            return None
        values: list[Any] = []
        storages: list[Any] = []
        key = driver.memory_domain
        for n, (i, size) in enumerate(order):
            value = args[i]
            if size:
                convert = dtyped[n] if dtyped is not None else None
                if convert is not None:
                    data = _pack_dtyped(value, convert)
                    if data is None:
                        return None
                    values.append(data)
                    continue
                try:
                    data = memoryview(value).tobytes()
                except TypeError:
                    return None
                if len(data) != size:
                    return None
                values.append(data)
            elif value is None:
                values.append(0)
            else:
                if not isinstance(value, Buffer) or value.context is not context:
                    return None
                storage = value.storage
                entry = storage.allocations.get(key) if storage is not None else None
                if entry is None:
                    return None
                values.append(entry[1].address + value.offset)
                storages.append(storage)
        return self.struct.pack(*values), storages  # type: ignore[union-attr]


STRUCT_CODES = {("i", 1): "b", ("i", 2): "h", ("i", 4): "i", ("i", 8): "q",
                ("u", 1): "B", ("u", 2): "H", ("u", 4): "I", ("u", 8): "Q",
                ("f", 4): "f", ("f", 8): "d"}


NOT_FAST: tuple[Any, Any] = (None, None)  # a declared dtype that only bind_arg converts


def _dtyped(dtype: np.dtype | None, size: int) -> tuple[Any, Any] | None:
    """None without a declared dtype (the value taken as it comes); (numpy scalar type,
    little-endian struct) for a declared integer or float dtype of the parameter's
    size; NOT_FAST for any other declared dtype."""
    if dtype is None:
        return None
    code = STRUCT_CODES.get((dtype.kind, dtype.itemsize))
    if code is None or dtype.itemsize != size or dtype.byteorder == ">":
        return NOT_FAST
    return (dtype.type, struct.Struct("<" + code))


def _pack_dtyped(value: Any, convert: tuple[Any, Any]) -> bytes | None:
    """`value`'s bytes as the declared dtype: a numpy scalar of it as it is, a Python
    int or float through the struct (None when it does not fit: bind_arg judges)."""
    scalar_type, packer = convert
    if packer is None:
        return None
    kind = type(value)
    if kind is scalar_type:
        return value.tobytes()
    if kind is not int and kind is not float:
        return None
    try:
        return packer.pack(value)
    except (struct.error, OverflowError):
        return None


def bound_from_blob(param: Any, value: Any, blob: bytes) -> BoundArg:
    """The BoundArg of a value `pack_values` took: its buffer, or its bytes in `blob`."""
    if param.kind in BUFFER_KINDS:
        return BoundArg("mem", buffer=value)
    return BoundArg("value", data=bytes(blob[param.offset:param.offset + param.size]))


POINTER_KINDS = frozenset({"global", "constant", "local"})
BUFFER_KINDS = frozenset({"global", "constant"})
