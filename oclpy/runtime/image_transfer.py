"""Image transfers: read, write, copy (image <-> image, image <-> buffer) and fill.

As clEnqueue{Read,Write,Copy,Fill}Image and clEnqueueCopy{ImageToBuffer,BufferToImage}:
`origin` and `region` count texels (x, y, z; a 1D array's layer is y, a 2D
array's z), host pitches are bytes (0: tightly packed). Every range is checked
before anything is enqueued (INVALID_VALUE naming the side and the extent,
IMAGE_FORMAT_MISMATCH for images of different formats, MEM_COPY_OVERLAP within
one image or between a 1D buffer image and its buffer), so a bad call raises
and writes nothing. Rows move through the driver one at a time, so every
device does it the same way; a read of a USE_HOST_PTR image whose device holds
a copy of the host memory brings that memory up to date too. A fill colour is
converted as write_image{f,i,ui} converts (8.3.1): `encode_texel`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .constants import channel_order as co, channel_type as cty, command_type
from .errors import raise_cl, status_code
from .event import Event
from .image import Image
from .image_layout import Layout, host_pitches
from .memory import Buffer, as_size, host_view
from .queue import CommandQueue
from .rect import Triple, rows_overlap, triple
from .structs import ImageFormat
from .transfer_checks import check_queue_and_buffer


def _image(queue: Any, image: Any, routine: str, role: str) -> Image:
    if not isinstance(image, Image):
        raise_cl(routine, status_code.INVALID_MEM_OBJECT, f"the {role} must be an Image, got {type(image).__name__}")
    check_queue_and_buffer(queue, image, routine)  # type: ignore[arg-type]
    return image


def image_region(image: Image, origin: Any, region: Any, routine: str, role: str) -> tuple[Triple, Triple]:
    """Checked (origin, region) in texels of `image`."""
    org = triple(origin, 0, routine, f"{role} origin")
    reg = triple(region, 1, routine, "region")
    if 0 in reg:
        raise_cl(routine, status_code.INVALID_VALUE, f"region {reg} has a zero extent")
    for axis, (o, r, n) in enumerate(zip(org, reg, image.layout.extents)):
        if o + r > n:
            raise_cl(routine, status_code.INVALID_VALUE,
                     f"the {role} region {org} + {reg} leaves the image along {'xyz'[axis]} "
                     f"(extent {n})")
    return org, reg


def image_rows(image: Image, origin: Triple, region: Triple) -> list[int]:
    """The storage byte offset of each texel row of the region, slices outermost."""
    lay: Layout = image.layout
    start = image.texel_offset(*origin)
    return [start + z * lay.slice_pitch + y * lay.row_pitch for z in range(region[2]) for y in range(region[1])]


def _plain_rows(start: int, row: int, slab: int, region: Triple) -> list[int]:
    return [start + z * slab + y * row for z in range(region[2]) for y in range(region[1])]


def read_write_image(queue: CommandQueue, image: Any, origin: Any, region: Any, host: Any, to_device: bool,
                     row_pitch: int = 0, slice_pitch: int = 0, wait_for: Any = None,
                     is_blocking: bool = True) -> Event:
    """clEnqueueWriteImage (`to_device`) or clEnqueueReadImage."""
    routine = "clEnqueueWriteImage" if to_device else "clEnqueueReadImage"
    img = _image(queue, image, routine, "image")
    org, reg = image_region(img, origin, region, routine, "image")
    lay = img.layout
    row, slab = host_pitches((row_pitch, slice_pitch), lay, reg, routine)
    view = host_view(host, not to_device, routine, status_code.INVALID_VALUE, "host array")
    width = reg[0] * lay.element_size
    need = (reg[2] - 1) * slab + (reg[1] - 1) * row + width
    if view.nbytes < need:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"the host array holds {view.nbytes} bytes; the region needs {need}")
    events = queue.check_wait_for(wait_for, routine)
    driver = queue.driver
    alloc = img.storage.on(driver)
    pairs = list(zip(image_rows(img, org, reg), _plain_rows(0, row, slab, reg)))
    mirror = None if to_device else img.host_mirror(alloc)

    def action() -> None:
        for d, h in pairs:
            if to_device:
                driver.write(alloc, d, view[h:h + width])
            else:
                driver.read(alloc, d, view[h:h + width])
        if mirror is not None:  # a USE_HOST_PTR image's host memory reflects it after a read
            driver.read(alloc, img.offset, mirror)

    kind = command_type.WRITE_IMAGE if to_device else command_type.READ_IMAGE
    return queue.enqueue_command(kind, action, events, blocking=bool(is_blocking), ward=host,
                                 keepalive=(img.storage,), storages=(img.storage,))


def copy_image(queue: CommandQueue, src: Any, dest: Any, src_origin: Any, dest_origin: Any, region: Any,
               wait_for: Any = None) -> Event:
    """clEnqueueCopyImage."""
    routine = "clEnqueueCopyImage"
    s, d = _image(queue, src, routine, "source"), _image(queue, dest, routine, "destination")
    if s.format != d.format:
        raise_cl(routine, status_code.IMAGE_FORMAT_MISMATCH,
                 f"the source's format {s.format!r} differs from the destination's {d.format!r}")
    s_org, reg = image_region(s, src_origin, region, routine, "source")
    d_org, _ = image_region(d, dest_origin, region, routine, "destination")
    s_rows, d_rows = image_rows(s, s_org, reg), image_rows(d, d_org, reg)
    width = reg[0] * s.layout.element_size
    return _copy_rows(queue, routine, command_type.COPY_IMAGE, s, d, s_rows, d_rows, width, wait_for)


def copy_image_to_buffer(queue: CommandQueue, src: Any, dest: Any, origin: Any, region: Any, offset: Any = 0,
                         wait_for: Any = None) -> Event:
    """clEnqueueCopyImageToBuffer: the region lands tightly packed at `offset`."""
    routine = "clEnqueueCopyImageToBuffer"
    img = _image(queue, src, routine, "source")
    buf = _buffer(queue, dest, routine, "destination")
    org, reg = image_region(img, origin, region, routine, "source")
    b_rows, width = _buffer_rows(img.layout, buf, offset, reg, routine)
    return _copy_rows(queue, routine, command_type.COPY_IMAGE_TO_BUFFER, img, buf,
                      image_rows(img, org, reg), b_rows, width, wait_for)


def copy_buffer_to_image(queue: CommandQueue, src: Any, dest: Any, offset: Any, origin: Any, region: Any,
                         wait_for: Any = None) -> Event:
    """clEnqueueCopyBufferToImage: the region is read tightly packed from `offset`."""
    routine = "clEnqueueCopyBufferToImage"
    buf = _buffer(queue, src, routine, "source")
    img = _image(queue, dest, routine, "destination")
    org, reg = image_region(img, origin, region, routine, "destination")
    b_rows, width = _buffer_rows(img.layout, buf, offset, reg, routine)
    return _copy_rows(queue, routine, command_type.COPY_BUFFER_TO_IMAGE, buf, img, b_rows,
                      image_rows(img, org, reg), width, wait_for)


def _buffer(queue: Any, buf: Any, routine: str, role: str) -> Buffer:
    if not isinstance(buf, Buffer):
        raise_cl(routine, status_code.INVALID_MEM_OBJECT, f"the {role} must be a Buffer, got {type(buf).__name__}")
    check_queue_and_buffer(queue, buf, routine)
    return buf


def _buffer_rows(lay: Layout, buf: Buffer, offset: Any, reg: Triple, routine: str) -> tuple[list[int], int]:
    start = as_size(offset, routine, "offset")
    width = reg[0] * lay.element_size
    end = start + width * reg[1] * reg[2]
    if end > buf.size:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"the region's {end - start} bytes at offset {start} overrun the buffer's {buf.size} bytes")
    return [buf.offset + r for r in _plain_rows(start, width, width * reg[1], reg)], width


def _copy_rows(queue: CommandQueue, routine: str, kind: int, src: Any, dst: Any, s_rows: list[int],
               d_rows: list[int], width: int, wait_for: Any) -> Event:
    # the same storage: one image, or a 1D buffer image and its buffer
    if src.storage is dst.storage and rows_overlap(s_rows, d_rows, width):
        raise_cl(routine, status_code.MEM_COPY_OVERLAP, "the source and destination regions overlap")
    events = queue.check_wait_for(wait_for, routine)
    driver = queue.driver
    s_alloc = src.storage.on(driver)
    d_alloc = dst.storage.on(driver)
    pairs = list(zip(d_rows, s_rows))

    def action() -> None:
        for d, s in pairs:
            driver.copy(d_alloc, d, s_alloc, s, width)

    return queue.enqueue_command(kind, action, events, keepalive=(src.storage, dst.storage),
                                 storages=(src.storage, dst.storage))


def _need(kw: dict[str, Any], name: str) -> Any:
    if name not in kw:
        raise TypeError(f"enqueue_copy() with an image needs the keyword argument '{name}'")
    return kw.pop(name)


def image_copy(queue: CommandQueue, dest: Any, src: Any, kw: dict[str, Any]) -> Event:
    """enqueue_copy where either side is an Image (PyOpenCL's keywords for each pair)."""
    wait_for = kw.pop("wait_for", None)
    if isinstance(dest, Image) and isinstance(src, Image):
        event = copy_image(queue, src, dest, _need(kw, "src_origin"), _need(kw, "dest_origin"), _need(kw, "region"),
                           wait_for)
    elif isinstance(dest, Image) and isinstance(src, Buffer):
        event = copy_buffer_to_image(queue, src, dest, _need(kw, "offset"), _need(kw, "origin"), _need(kw, "region"),
                                     wait_for)
    elif isinstance(src, Image) and isinstance(dest, Buffer):
        event = copy_image_to_buffer(queue, src, dest, _need(kw, "origin"), _need(kw, "region"), _need(kw, "offset"),
                                     wait_for)
    else:
        to_device = isinstance(dest, Image)
        image, host = (dest, src) if to_device else (src, dest)
        pitches = list(kw.pop("pitches", None) or ()) + [0, 0]
        event = read_write_image(queue, image, _need(kw, "origin"), _need(kw, "region"), host, to_device,
                                 pitches[0], pitches[1], wait_for, kw.pop("is_blocking", True))
    if kw:
        raise TypeError(f"enqueue_copy() got an unexpected keyword argument '{next(iter(kw))}'")
    return event


def fill_image(queue: CommandQueue, image: Any, color: Any, origin: Any, region: Any,
               wait_for: Any = None) -> Event:
    """clEnqueueFillImage: every texel of the region gets `color`, converted as write_image* would."""
    routine = "clEnqueueFillImage"
    img = _image(queue, image, routine, "image")
    org, reg = image_region(img, origin, region, routine, "image")
    texel = encode_texel(img.format, color, routine)
    row = texel * reg[0]
    events = queue.check_wait_for(wait_for, routine)
    driver = queue.driver
    alloc = img.storage.on(driver)
    rows = image_rows(img, org, reg)

    def action() -> None:
        for r in rows:
            driver.write(alloc, r, memoryview(row))

    return queue.enqueue_command(command_type.FILL_IMAGE, action, events, keepalive=(img.storage,),
                                 storages=(img.storage,))


# -- colours -> texels (8.3.1) ---------------------------------------------------

_NORM = {cty.UNORM_INT8: (np.uint8, 255.0), cty.UNORM_INT16: (np.uint16, 65535.0),
         cty.SNORM_INT8: (np.int8, 127.0), cty.SNORM_INT16: (np.int16, 32767.0)}
_INTS = {cty.SIGNED_INT8: np.int8, cty.SIGNED_INT16: np.int16, cty.SIGNED_INT32: np.int32,
         cty.UNSIGNED_INT8: np.uint8, cty.UNSIGNED_INT16: np.uint16, cty.UNSIGNED_INT32: np.uint32}
# (r, g, b, a) indices in memory order, per channel order
MEMORY_ORDER = {co.R: (0,), co.A: (3,), co.RG: (0, 1), co.RA: (0, 3), co.RGBA: (0, 1, 2, 3),
                co.BGRA: (2, 1, 0, 3), co.ARGB: (3, 0, 1, 2), co.INTENSITY: (0,), co.LUMINANCE: (0,)}


def encode_texel(fmt: ImageFormat, color: Any, routine: str) -> bytes:
    """One texel of `fmt` holding the colour (r, g, b, a): float for normalized and float
    formats, int32 for signed and uint32 for unsigned integer ones."""
    try:
        rgba = np.asarray(color).reshape(-1)
    except (TypeError, ValueError):
        rgba = np.zeros(0)
    if rgba.size != 4:
        raise_cl(routine, status_code.INVALID_VALUE, f"the fill colour must have 4 components, got {color!r}")
    comps = rgba[list(MEMORY_ORDER[fmt.channel_order])]
    t = fmt.channel_data_type
    if t in _NORM:
        dtype, scale = _NORM[t]
        info = np.iinfo(dtype)
        f = np.nan_to_num(comps.astype(np.float32) * np.float32(scale), nan=0.0)
        return np.clip(np.rint(f), info.min, info.max).astype(dtype).tobytes()
    if t == cty.HALF_FLOAT:
        with np.errstate(over="ignore"):  # beyond the largest half: infinity, as vstore_half_rte
            return comps.astype(np.float32).astype(np.float16).tobytes()
    if t == cty.FLOAT:
        return comps.astype(np.float32).tobytes()
    dtype = _INTS[t]
    info = np.iinfo(dtype)
    wide = comps.astype(np.int64) if np.dtype(dtype).kind == "i" else comps.astype(np.uint32).astype(np.int64)
    return np.clip(wide, info.min, info.max).astype(dtype).tobytes()
