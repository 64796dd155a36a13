"""PyOpenCL's image functions: create_image, image_from_array, the enqueue_*_image
calls (with PyOpenCL's argument orders) and get_supported_image_formats."""

from __future__ import annotations

from typing import Any

import numpy as np

from .constants import channel_order, channel_type, mem_flags
from .context import Context
from .errors import raise_cl, status_code
from .event import Event
from .image import Image, supported_formats
from .image_transfer import (copy_buffer_to_image, copy_image, copy_image_to_buffer, fill_image,
                             read_write_image)
from .structs import ImageFormat

DTYPE_TO_CHANNEL_TYPE = {
    np.dtype(np.float32): channel_type.FLOAT, np.dtype(np.float16): channel_type.HALF_FLOAT,
    np.dtype(np.int8): channel_type.SIGNED_INT8, np.dtype(np.int16): channel_type.SIGNED_INT16,
    np.dtype(np.int32): channel_type.SIGNED_INT32, np.dtype(np.uint8): channel_type.UNSIGNED_INT8,
    np.dtype(np.uint16): channel_type.UNSIGNED_INT16, np.dtype(np.uint32): channel_type.UNSIGNED_INT32,
}
DTYPE_TO_CHANNEL_TYPE_NORM = {
    np.dtype(np.int8): channel_type.SNORM_INT8, np.dtype(np.int16): channel_type.SNORM_INT16,
    np.dtype(np.uint8): channel_type.UNORM_INT8, np.dtype(np.uint16): channel_type.UNORM_INT16,
}
_ORDER_OF_COUNT = {1: channel_order.R, 2: channel_order.RG, 3: channel_order.RGB, 4: channel_order.RGBA}


def get_supported_image_formats(context: Any, flags: int, image_type: int) -> list[ImageFormat]:
    if not isinstance(context, Context):
        raise_cl("clGetSupportedImageFormats", status_code.INVALID_CONTEXT,
                 f"expected a Context, got {type(context).__name__}")
    return supported_formats(image_type)


def create_image(context: Any, flags: int, format: ImageFormat, shape: Any = None, pitches: Any = None,
                 hostbuf: Any = None, is_array: bool = False, buffer: Any = None) -> Image:
    return Image(context, flags, format, shape, pitches, hostbuf, is_array, buffer)


def _vector_channels(dtype: np.dtype) -> tuple[np.dtype, int] | None:
    """(element dtype, count) of a cltypes vector dtype (a struct of equal fields s0, s1, ...)."""
    if dtype.names is None:
        return None
    bases = {dtype.fields[n][0] for n in dtype.names}  # type: ignore[index]
    if len(bases) != 1:
        return None
    return bases.pop(), len(dtype.names)


def image_from_array(ctx: Any, ary: Any, num_channels: int | None = None, mode: str = "r",
                     norm_int: bool = False) -> Image:
    """An image holding a C-contiguous array (PyOpenCL's rules: the last axis is
    the channels when num_channels > 1; the array's axes reversed are the image's)."""
    if not ary.flags.c_contiguous:
        raise ValueError("array must be C-contiguous")
    dtype, shape, strides = ary.dtype, ary.shape, ary.strides
    if num_channels is None:
        vec = _vector_channels(dtype)
        dtype, num_channels = vec if vec is not None else (dtype, 1)
    elif num_channels > 1:
        if ary.shape[-1] != num_channels:
            raise RuntimeError("last dimension must be equal to number of channels")
        shape, strides = ary.shape[:-1], ary.strides[:-1]
    flags = {"r": mem_flags.READ_ONLY, "w": mem_flags.WRITE_ONLY}.get(mode)
    if flags is None:
        raise ValueError(f"invalid value '{mode}' for 'mode'")
    table = DTYPE_TO_CHANNEL_TYPE_NORM if norm_int else DTYPE_TO_CHANNEL_TYPE
    if dtype not in table or num_channels not in _ORDER_OF_COUNT:
        raise_cl("image_from_array", status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                 f"no image format holds {num_channels} channel(s) of {dtype}"
                 f"{' as normalized integers' if norm_int else ''}")
    fmt = ImageFormat(_ORDER_OF_COUNT[num_channels], table[dtype])
    return Image(ctx, flags | mem_flags.COPY_HOST_PTR, fmt, shape=shape[::-1], pitches=strides[::-1][1:],
                 hostbuf=ary)


def enqueue_read_image(queue: Any, mem: Any, origin: Any, region: Any, hostbuf: Any, row_pitch: int = 0,
                       slice_pitch: int = 0, wait_for: Any = None, is_blocking: bool = True) -> Event:
    return read_write_image(queue, mem, origin, region, hostbuf, False, row_pitch, slice_pitch, wait_for,
                            is_blocking)


def enqueue_write_image(queue: Any, mem: Any, origin: Any, region: Any, hostbuf: Any, row_pitch: int = 0,
                        slice_pitch: int = 0, wait_for: Any = None, is_blocking: bool = True) -> Event:
    return read_write_image(queue, mem, origin, region, hostbuf, True, row_pitch, slice_pitch, wait_for,
                            is_blocking)


def enqueue_copy_image(queue: Any, src: Any, dest: Any, src_origin: Any, dest_origin: Any, region: Any,
                       wait_for: Any = None) -> Event:
    return copy_image(queue, src, dest, src_origin, dest_origin, region, wait_for)


def enqueue_copy_image_to_buffer(queue: Any, src: Any, dest: Any, origin: Any, region: Any, offset: Any = 0,
                                 wait_for: Any = None) -> Event:
    return copy_image_to_buffer(queue, src, dest, origin, region, offset, wait_for)


def enqueue_copy_buffer_to_image(queue: Any, src: Any, dest: Any, offset: Any, origin: Any, region: Any,
                                 wait_for: Any = None) -> Event:
    return copy_buffer_to_image(queue, src, dest, offset, origin, region, wait_for)


def enqueue_fill_image(queue: Any, mem: Any, color: Any, origin: Any, region: Any,
                       wait_for: Any = None) -> Event:
    return fill_image(queue, mem, color, origin, region, wait_for)
