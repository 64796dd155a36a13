"""Mapping images into host memory: `enqueue_map_image` (clEnqueueMapImage) and its unmap.

`ary, evt, row_pitch, slice_pitch = enqueue_map_image(queue, img, flags, origin,
region, shape, dtype, order="C", strides=None, wait_for=None, is_blocking=True)`,
as PyOpenCL: a numpy array of `shape` and `dtype` (strides as given, else
contiguous) starting at texel `origin`, over memory where the region's texels
lie `row_pitch` and `slice_pitch` bytes apart (the image's own pitches; the
slice pitch is 0 for 1D and 2D images). `ary.base` is a `MemoryMap`:
`ary.base.release()` (or `with ary.base:`) unmaps.

Where the host can address the texels (the cpu) the array is the image's
memory itself; a USE_HOST_PTR image whose device holds a copy maps its host
memory (read from the device first), as OpenCL says a map of such an image
does; otherwise it is a host copy of the region's span. A copy is read when
mapping, the whole span from the first texel to the last (unless the map is
WRITE_INVALIDATE_REGION), and the region's rows are written back when a WRITE
map is released. Errors, before anything runs: INVALID_MEM_OBJECT (not
an image), INVALID_VALUE (map flags, a region leaving the image, an array
reaching past the mapped region), INVALID_OPERATION (host access flags).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .constants import command_type, map_flags, mem_object_type as mot
from .errors import raise_cl, status_code
from .event import Event
from .image import Image
from .image_transfer import image_region, image_rows
from .mapping import ALL_MAP_FLAGS, WRITE_FLAGS, MemoryMap, array_layout, map_dtype
from .queue import CommandQueue
from .storage import READ, WRITE
from .transfer_checks import HOST_NO_READ, HOST_NO_WRITE, check_queue_and_buffer

ROUTINE = "clEnqueueMapImage"


def map_pitches(image: Image) -> tuple[int, int]:
    """(row pitch, slice pitch) of a map of `image`: a 1D array's rows are its layers."""
    lay = image.layout
    if image.type in (mot.IMAGE3D, mot.IMAGE2D_ARRAY):
        return lay.row_pitch, lay.slice_pitch
    if image.type == mot.IMAGE1D_ARRAY:
        return lay.row_pitch, lay.row_pitch
    return lay.row_pitch, 0


def enqueue_map_image(queue: CommandQueue, img: Any, flags: int, origin: Any, region: Any, shape: Any,
                      dtype: Any, order: str = "C", strides: Any = None, wait_for: Any = None,
                      is_blocking: bool = True) -> tuple[np.ndarray, Event, int, int]:
    if not isinstance(img, Image):
        raise_cl(ROUTINE, status_code.INVALID_MEM_OBJECT, f"expected an Image, got {type(img).__name__}")
    check_queue_and_buffer(queue, img, ROUTINE)  # type: ignore[arg-type]
    if not isinstance(flags, int) or flags & ~ALL_MAP_FLAGS:
        raise_cl(ROUTINE, status_code.INVALID_VALUE, f"invalid map_flags value {flags!r}")
    if flags & map_flags.READ and img.flags & HOST_NO_READ or flags & WRITE_FLAGS and img.flags & HOST_NO_WRITE:
        raise_cl(ROUTINE, status_code.INVALID_OPERATION, "the image's host access flags forbid this map")
    org, reg = image_region(img, origin, region, ROUTINE, "image")
    row_pitch, slice_pitch = map_pitches(img)
    lay = img.layout
    width = reg[0] * lay.element_size
    span = (reg[2] - 1) * lay.slice_pitch + (reg[1] - 1) * lay.row_pitch + width
    iface, nbytes = array_layout(shape, map_dtype(dtype, ROUTINE), order, strides, ROUTINE)
    if nbytes > span:
        raise_cl(ROUTINE, status_code.INVALID_VALUE,
                 f"an array of shape {iface['shape']} and strides {iface['strides']} spans {nbytes} bytes; "
                 f"the mapped region spans {span} (row pitch {row_pitch}, slice pitch {slice_pitch})")
    driver = queue.driver
    alloc = img.storage.on(driver, ROUTINE)
    first = img.texel_offset(*org)
    address = driver.host_address(alloc)
    staging: memoryview | None = None
    base = 0
    if address is not None:
        address += first
        rows: list[tuple[int, int, int]] = []
    else:
        mirror = img.host_mirror(alloc)
        if mirror is not None:  # the USE_HOST_PTR memory, laid out as the image
            staging, base = mirror, lay.offset(*org)
        else:
            staging, base = np.empty(max(span, 1), np.uint8).data, 0
        address = np.frombuffer(staging, np.uint8).ctypes.data + base
        rows = [(r, r - first + base, width) for r in image_rows(img, org, reg)]
    iface["data"] = (address, False)  # writable even for READ, as PyOpenCL (READ maps copy nothing back)
    events = queue.check_wait_for(wait_for, ROUTINE)
    fetch = staging is not None and flags != map_flags.WRITE_INVALIDATE_REGION

    def action() -> None:
        if fetch:  # the whole span, so the bytes between the region's rows are the image's too
            driver.read(alloc, first, staging[base:base + span])  # type: ignore[index]

    mmap = MemoryMap(queue, img, flags, iface, staging, rows)
    in_place_write = staging is None and flags & WRITE_FLAGS  # the host writes the texels themselves
    evt = queue.enqueue_command(command_type.MAP_IMAGE, action, events, blocking=is_blocking,
                                keepalive=(img.storage,), storages=((img.storage, WRITE if in_place_write else READ),))
    return np.asarray(mmap), evt, row_pitch, slice_pitch

