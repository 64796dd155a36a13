"""Images (clCreateImage, PyOpenCL's `Image`): formats, shapes and the descriptor.

An image's bytes live in a `Storage` like a buffer's: a 64-byte descriptor
(sixteen int32 words, the layout `frontend/c/builtins/images.cl` reads), then
the texels, rows `row_pitch` bytes apart and slices (or layers) `slice_pitch`
apart, tightly packed. A kernel's image argument is the descriptor's device
address, so the image builtins are ordinary code on every device.

Checks, before anything is allocated: the format (INVALID_IMAGE_FORMAT_DESCRIPTOR
for an order and type the spec does not pair; oclpy takes every pair it
does), the shape (INVALID_IMAGE_SIZE against
the device's limits), the host buffer (INVALID_HOST_PTR: missing, unused or
too small) and its pitches (INVALID_IMAGE_DESCRIPTOR). USE_HOST_PTR copies the
host bytes in at creation, as COPY_HOST_PTR does (the image does not alias
them). Images made over a buffer (`buffer=`, 1D buffer images) are refused
with INVALID_OPERATION.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from .constants import channel_order as co, channel_type as cty, image_info, info_attribute, mem_flags
from .constants import mem_info, mem_object_type
from .context import Context
from .errors import raise_cl, status_code
from .memory import HOST_PTR_FLAGS, Buffer, MemoryObject, check_flags, host_view
from .storage import Storage
from .structs import ImageFormat

DESCRIPTOR_BYTES = 64

_EIGHT_BIT = (cty.UNORM_INT8, cty.SNORM_INT8, cty.SIGNED_INT8, cty.UNSIGNED_INT8)
_NORM_AND_FLOAT = (cty.UNORM_INT8, cty.UNORM_INT16, cty.SNORM_INT8, cty.SNORM_INT16,
                   cty.HALF_FLOAT, cty.FLOAT)
_PLAIN = _NORM_AND_FLOAT + (cty.SIGNED_INT8, cty.SIGNED_INT16, cty.SIGNED_INT32,
                            cty.UNSIGNED_INT8, cty.UNSIGNED_INT16, cty.UNSIGNED_INT32)
_PACKED = {cty.UNORM_SHORT_565: 2, cty.UNORM_SHORT_555: 2, cty.UNORM_INT_101010: 4}

# channel order -> (channel count, the data types the spec pairs it with: 5.3.1.1)
ORDERS: dict[int, tuple[int, tuple[int, ...]]] = {
    co.R: (1, _PLAIN), co.A: (1, _PLAIN), co.RG: (2, _PLAIN), co.RA: (2, _PLAIN),
    co.RGBA: (4, _PLAIN), co.BGRA: (4, _EIGHT_BIT), co.ARGB: (4, _EIGHT_BIT),
    co.INTENSITY: (1, _NORM_AND_FLOAT), co.LUMINANCE: (1, _NORM_AND_FLOAT),
    co.RGB: (3, tuple(_PACKED)),
}
SUPPORTED_ORDERS = (co.R, co.A, co.RG, co.RA, co.RGB, co.RGBA, co.BGRA, co.ARGB, co.INTENSITY, co.LUMINANCE)
CHANNEL_BYTES = {cty.SNORM_INT8: 1, cty.UNORM_INT8: 1, cty.SIGNED_INT8: 1, cty.UNSIGNED_INT8: 1,
                 cty.SNORM_INT16: 2, cty.UNORM_INT16: 2, cty.SIGNED_INT16: 2, cty.UNSIGNED_INT16: 2,
                 cty.HALF_FLOAT: 2, cty.SIGNED_INT32: 4, cty.UNSIGNED_INT32: 4, cty.FLOAT: 4}

IMAGE_TYPES = (mem_object_type.IMAGE1D, mem_object_type.IMAGE1D_ARRAY, mem_object_type.IMAGE2D,
               mem_object_type.IMAGE2D_ARRAY, mem_object_type.IMAGE3D, mem_object_type.IMAGE1D_BUFFER)


def element_size(fmt: ImageFormat, routine: str) -> int:
    """Bytes per texel of a format the spec allows, else INVALID_IMAGE_FORMAT_DESCRIPTOR."""
    if not isinstance(fmt, ImageFormat):
        raise_cl(routine, status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                 f"expected an ImageFormat, got {type(fmt).__name__}")
    order = ORDERS.get(fmt.channel_order)
    if order is None or fmt.channel_data_type not in order[1]:
        raise_cl(routine, status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                 f"{fmt!r} is not a valid image format (channel order "
                 f"{co.to_string(fmt.channel_order, '0x%x')} does not pair with channel type "
                 f"{cty.to_string(fmt.channel_data_type, '0x%x')})")
    if fmt.channel_data_type in _PACKED:
        return _PACKED[fmt.channel_data_type]
    return order[0] * CHANNEL_BYTES[fmt.channel_data_type]


def supported_formats(image_type: int) -> list[ImageFormat]:
    """The formats oclpy's devices take for `image_type`: every pair of 5.3.1.1."""
    if image_type not in IMAGE_TYPES:
        raise_cl("clGetSupportedImageFormats", status_code.INVALID_VALUE,
                 f"{image_type!r} is not an image type")
    return [ImageFormat(order, t) for order in SUPPORTED_ORDERS for t in ORDERS[order][1]]


@dataclass(frozen=True)
class Layout:
    """An image's shape and where its texels lie."""
    type: int
    width: int
    height: int
    depth: int
    array_size: int
    element_size: int
    row_pitch: int
    slice_pitch: int

    @property
    def extents(self) -> tuple[int, int, int]:
        """Texels along x, y, z (an array's layers are its y or z extent)."""
        if self.type == mem_object_type.IMAGE1D_ARRAY:
            return (self.width, self.array_size, 1)
        if self.type == mem_object_type.IMAGE2D_ARRAY:
            return (self.width, self.height, self.array_size)
        return (self.width, self.height, self.depth)

    @property
    def nbytes(self) -> int:
        return self.slice_pitch * self.extents[2]

    def descriptor(self, fmt: ImageFormat, channels: int) -> bytes:
        ex, ey, ez = self.extents
        return struct.pack("<16i", self.width, self.height, self.depth, self.array_size,
                           fmt.channel_order, fmt.channel_data_type, channels, self.element_size,
                           self.row_pitch, self.slice_pitch, ex, ey, ez, self.type, 0, 0)


def image_type_of(shape: tuple[int, ...], is_array: bool, routine: str) -> int:
    if not 1 <= len(shape) <= 3:
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE, f"an image has 1 to 3 dimensions, got shape {shape}")
    if is_array:
        if len(shape) == 1:
            raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, "an image array needs a layer count in its shape")
        return mem_object_type.IMAGE1D_ARRAY if len(shape) == 2 else mem_object_type.IMAGE2D_ARRAY
    return (mem_object_type.IMAGE1D, mem_object_type.IMAGE2D, mem_object_type.IMAGE3D)[len(shape) - 1]


def _limits(device: Any, image_type: int) -> tuple[int, int, int, int]:
    """(max width, max height, max depth, max layers) for `image_type` on `device`."""
    if image_type == mem_object_type.IMAGE3D:
        return (device.image3d_max_width, device.image3d_max_height, device.image3d_max_depth, 1)
    return (device.image2d_max_width, device.image2d_max_height, 1, device.image_max_array_size)


def make_layout(device: Any, image_type: int, shape: tuple[int, ...], elem: int, routine: str) -> Layout:
    dims = [int(n) for n in shape]
    if any(n <= 0 for n in dims):
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE, f"image shape {tuple(dims)} has a zero or negative extent")
    array = image_type in (mem_object_type.IMAGE1D_ARRAY, mem_object_type.IMAGE2D_ARRAY)
    layers = dims.pop() if array else 1
    width, height, depth = (dims + [1, 1])[:3]
    max_w, max_h, max_d, max_layers = _limits(device, image_type)
    if width > max_w or height > max_h or depth > max_d or layers > max_layers:
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE,
                 f"image shape {tuple(shape)} exceeds the device's limits "
                 f"({max_w} x {max_h} x {max_d}, {max_layers} layers)")
    row = width * elem
    rows_per_slice = layers if image_type == mem_object_type.IMAGE1D_ARRAY else height
    return Layout(image_type, width, height, depth, layers, elem, row, row * rows_per_slice)


class Image(MemoryObject):
    """PyOpenCL's Image(context, flags, format, shape, pitches, hostbuf, is_array, buffer)."""

    def __init__(self, context: Any, flags: int, format: ImageFormat, shape: Any = None,
                 pitches: Any = None, hostbuf: Any = None, is_array: bool = False,
                 buffer: Any = None) -> None:
        routine = "clCreateImage"
        _check_context(context)
        check_flags(flags, routine)
        if buffer is not None:
            raise_cl(routine, status_code.INVALID_OPERATION,
                     "oclpy does not implement images made over a buffer (1D buffer images)")
        elem = element_size(format, routine)
        if shape is None:
            if hostbuf is None:
                raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                         "'shape' must be passed if 'hostbuf' is not given")
            shape = tuple(getattr(hostbuf, "shape", ()))
        shape = tuple(shape)
        image_type = image_type_of(shape, is_array, routine)
        layout = make_layout(context.devices[0], image_type, shape, elem, routine)
        host = _host_texels(flags, hostbuf, pitches, layout, routine)
        self.context, self.flags, self.format = context, flags, format
        self.layout, self.type, self.offset, self.parent = layout, image_type, 0, None
        self.size = layout.nbytes
        self.hostbuf = hostbuf if flags & mem_flags.USE_HOST_PTR else None
        self.released = False
        data = bytearray(layout.descriptor(format, ORDERS[format.channel_order][0]))
        data += host if host is not None else bytes(layout.nbytes)
        self.storage = Storage(len(data), context.devices[0].driver)
        self.storage.create(memoryview(data), False)
        context.own(self, routine)

    # -- what transfers and kernel arguments use ------------------------------

    def check_alive(self, routine: str) -> None:
        if self.storage is None:
            raise_cl(routine, status_code.INVALID_MEM_OBJECT, "the image was released")

    def allocation(self, driver: Any) -> tuple[Any, int]:
        """(allocation on `driver`, 0): a kernel gets the descriptor's address."""
        assert self.storage is not None
        return self.storage.on(driver), 0

    def release(self) -> None:
        self.released = True
        self.storage = None  # type: ignore[assignment]

    # -- PyOpenCL API -----------------------------------------------------------

    @property
    def image(self) -> ImageInfoGetter:
        """PyOpenCL's `img.image.width`: image_info in attribute form."""
        return ImageInfoGetter(self)

    @property
    def element_size(self) -> int:
        return self.layout.element_size

    @property
    def shape(self) -> tuple[int, ...]:
        """(width, height) of a 2D image, (width, height, depth) of a 3D one, as PyOpenCL."""
        lay = self.layout
        if self.type == mem_object_type.IMAGE2D:
            return (lay.width, lay.height)
        if self.type == mem_object_type.IMAGE3D:
            return (lay.width, lay.height, lay.depth)
        raise_cl("Image.shape", status_code.INVALID_VALUE, "only 2D and 3D images have shapes")

    def get_image_info(self, param: int) -> Any:
        lay = self.layout
        table = {image_info.FORMAT: self.format, image_info.ELEMENT_SIZE: lay.element_size,
                 image_info.ROW_PITCH: lay.row_pitch, image_info.SLICE_PITCH: _slice_pitch(lay),
                 image_info.WIDTH: lay.width, image_info.HEIGHT: _height(lay),
                 image_info.DEPTH: lay.depth if self.type == mem_object_type.IMAGE3D else 0,
                 image_info.ARRAY_SIZE: _array_size(lay), image_info.BUFFER: None,
                 image_info.NUM_MIP_LEVELS: 0, image_info.NUM_SAMPLES: 0}
        if param not in table:
            raise_cl("clGetImageInfo", status_code.INVALID_VALUE, f"unknown image_info {param!r}")
        return table[param]

    def get_info(self, param: int) -> Any:
        return Buffer.get_info(self, param)  # type: ignore[arg-type]  (a buffer's mem_info table)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_") or not name.islower():
            raise AttributeError(name)
        param = getattr(image_info, name.upper(), None)
        if isinstance(param, int):
            return self.get_image_info(param)
        return info_attribute(self, name, mem_info)

    def __repr__(self) -> str:
        return f"<oclpy.Image {self.format!r} {self.layout.extents}{' (released)' if self.released else ''}>"


class ImageInfoGetter:
    """`img.image.<name>` is `img.get_image_info(image_info.<NAME>)`."""

    def __init__(self, image: Image) -> None:
        self.image_object = image

    def __getattr__(self, name: str) -> Any:
        return info_attribute(self, name, image_info)

    def get_info(self, param: int) -> Any:  # what info_attribute calls
        return self.image_object.get_image_info(param)


def _height(lay: Layout) -> int:
    return lay.height if lay.type in (mem_object_type.IMAGE2D, mem_object_type.IMAGE2D_ARRAY,
                                      mem_object_type.IMAGE3D) else 0


def _array_size(lay: Layout) -> int:
    return lay.array_size if lay.type in (mem_object_type.IMAGE1D_ARRAY, mem_object_type.IMAGE2D_ARRAY) else 0


def _slice_pitch(lay: Layout) -> int:
    if lay.type in (mem_object_type.IMAGE3D, mem_object_type.IMAGE2D_ARRAY):
        return lay.slice_pitch
    return lay.row_pitch if lay.type == mem_object_type.IMAGE1D_ARRAY else 0


def _check_context(context: Any) -> None:
    if not isinstance(context, Context):
        raise_cl("clCreateImage", status_code.INVALID_CONTEXT, f"expected a Context, got {type(context).__name__}")


def _host_texels(flags: int, hostbuf: Any, pitches: Any, layout: Layout, routine: str) -> bytes | None:
    """The texels to start with, tightly packed, from a host buffer with the given pitches."""
    if hostbuf is None:
        if flags & HOST_PTR_FLAGS:
            raise_cl(routine, status_code.INVALID_HOST_PTR, "USE_HOST_PTR or COPY_HOST_PTR needs a hostbuf")
        if pitches is not None:
            raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, "'pitches' may only be given if 'hostbuf' is given")
        return None
    if not flags & HOST_PTR_FLAGS:
        raise_cl(routine, status_code.INVALID_HOST_PTR,
                 "a hostbuf was passed without USE_HOST_PTR or COPY_HOST_PTR")
    view = host_view(hostbuf, False, routine)
    row, slab = host_pitches(pitches, layout, (layout.width, *layout.extents[1:]), routine,
                             status_code.INVALID_IMAGE_DESCRIPTOR)
    ex, ey, ez = layout.extents
    need = (ez - 1) * slab + (ey - 1) * row + ex * layout.element_size
    if view.nbytes < need:
        raise_cl(routine, status_code.INVALID_HOST_PTR,
                 f"the hostbuf holds {view.nbytes} bytes; the image needs {need}")
    width = ex * layout.element_size
    out = bytearray(layout.nbytes)
    for z in range(ez):
        for y in range(ey):
            dst = z * layout.slice_pitch + y * layout.row_pitch
            src = z * slab + y * row
            out[dst:dst + width] = view[src:src + width]
    return bytes(out)


def host_pitches(pitches: Any, layout: Layout, region: tuple[int, int, int], routine: str,
                 code: int = status_code.INVALID_VALUE) -> tuple[int, int]:
    """(row pitch, slice pitch) of host memory for `region` texels; 0 or absent is tight."""
    given = [int(p) for p in (pitches or ())]
    if len(given) > 2:
        raise_cl(routine, code, f"at most two pitches (row, slice), got {given}")
    tight_row = region[0] * layout.element_size
    row = given[0] if given and given[0] else tight_row
    slab = given[1] if len(given) > 1 and given[1] else row * region[1]
    if row < tight_row or row % layout.element_size:
        raise_cl(routine, code, f"row pitch {row} is not a multiple of the element size "
                 f"{layout.element_size} at least {tight_row}")
    if slab < row * region[1] or slab % row:
        raise_cl(routine, code, f"slice pitch {slab} is not a multiple of the row pitch {row} "
                 f"at least {row * region[1]}")
    return row, slab
