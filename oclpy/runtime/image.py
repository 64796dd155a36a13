"""Images (clCreateImage, PyOpenCL's `Image`): formats, shapes, where the texels live.

An image's texels live in a `Storage`, like a buffer's bytes: its own, or, for
a 1D buffer image (IMAGE1D_BUFFER) and a 2D image over a buffer
(cl_khr_image2d_from_buffer, with the descriptor's row pitch), its buffer's
(`offset` bytes in: the image is a view of the buffer, and writes through one
are seen through the other). A USE_HOST_PTR image's storage is the host memory itself where the
device can use it (the cpu), with the host memory's pitches; elsewhere the
bytes are copied in, and maps and reads bring them back (image_mapping.py,
image_transfer.py). COPY_HOST_PTR copies them in, tightly packed.

A kernel's image argument is the address of the image's descriptor on the
kernel's device (`image_layout.descriptor`, made on first use there: it holds
that device's address of the texels), so the image builtins are ordinary code
on every device.

Checks, before anything is allocated: the format (INVALID_IMAGE_FORMAT_DESCRIPTOR
for an order and type the spec does not pair; oclpy takes every pair it does),
the descriptor (image_descriptor.checked), the shape and pitches (INVALID_IMAGE_SIZE,
INVALID_IMAGE_DESCRIPTOR: image_layout.make_layout), the host buffer
(INVALID_HOST_PTR: missing, unused or too small) and an image's buffer
(INVALID_MEM_OBJECT: not a live buffer of the context, too small for a 1D image;
INVALID_VALUE: host pointer flags, access flags its buffer's forbid; a 2D image's
pitch and base alignment and size: `_buffer_layout`).
"""

from __future__ import annotations

import threading
from typing import Any

from .constants import channel_order as co, channel_type as cty, image_info, info_attribute, mem_flags
from .constants import mem_info, mem_object_type
from .context import Context
from .errors import raise_cl, status_code
from .image_descriptor import IMAGE_TYPES, ImageDescriptor, checked, from_arguments
from .image_layout import DESCRIPTOR_BYTES, Layout, make_layout, repack
from .memory import HOST_PTR_FLAGS, Buffer, MemoryObject, check_flags, host_view
from .storage import Storage
from .structs import ImageFormat

ACCESS_FLAGS = mem_flags.READ_WRITE | mem_flags.READ_ONLY | mem_flags.WRITE_ONLY

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


class Image(MemoryObject):
    """PyOpenCL's Image(context, flags, format, shape, pitches, hostbuf, is_array, buffer),
    or Image(context, flags, format, desc=ImageDescriptor, hostbuf=...)."""

    def __init__(self, context: Any, flags: int, format: ImageFormat, shape: Any = None,
                 pitches: Any = None, hostbuf: Any = None, is_array: bool = False,
                 buffer: Any = None, *, desc: ImageDescriptor | None = None) -> None:
        routine = "clCreateImage"
        _check_context(context)
        check_flags(flags, routine)
        if desc is None:
            desc = _descriptor_of(shape, pitches, hostbuf, is_array, buffer, routine)
        elif shape is not None or pitches is not None or is_array or buffer is not None:
            raise TypeError("shape, pitches, is_array and buffer may not be passed with a descriptor (desc=)")
        desc = checked(desc, hostbuf is not None, routine)
        elem = element_size(format, routine)
        device = context.devices[0]
        self.buffer: Buffer | None = None
        if desc.buffer is not None:  # IMAGE1D_BUFFER, or IMAGE2D (cl_khr_image2d_from_buffer)
            self.buffer = buffer = _backing_buffer(desc.buffer, context, flags, hostbuf, routine)
            layout = _buffer_layout(context, desc, buffer, elem, routine)
            if not flags & ACCESS_FLAGS:  # the buffer's access, as clCreateImage says
                flags |= buffer.flags & ACCESS_FLAGS
            storage, offset = buffer.storage, buffer.offset
        else:
            layout, storage = _own_storage(device, flags, desc, hostbuf, elem, routine)
            offset = 0
        self.context, self.flags, self.format = context, flags, format
        self.layout, self.type, self.offset, self.parent = layout, desc.image_type, offset, None
        self.size = layout.nbytes
        self.hostbuf = hostbuf if flags & mem_flags.USE_HOST_PTR else None
        self.released = False
        self.storage: Storage = storage
        self.descriptors: dict[Any, Storage] = {}  # memory domain -> the descriptor kernels there read
        self.descriptor_lock = threading.Lock()
        context.own(self, routine)

    # -- what transfers and kernel arguments use ------------------------------

    def check_alive(self, routine: str) -> None:
        if self.storage is None:
            raise_cl(routine, status_code.INVALID_MEM_OBJECT, "the image was released")

    def allocation(self, driver: Any) -> tuple[Any, int]:
        """(the descriptor's allocation on `driver`, 0): what a kernel's image argument is."""
        domain = driver.memory_domain
        with self.descriptor_lock:
            desc = self.descriptors.get(domain)
            if desc is None:
                texels = self.storage.on(driver, "clEnqueueNDRangeKernel")
                data = self.layout.descriptor(self.format, ORDERS[self.format.channel_order][0],
                                              texels.address + self.offset)
                # Storage.create's bytes are in memory when it returns, so a sibling
                # sub-device's launch, which runs at once, reads them too
                desc = self.descriptors[domain] = Storage(DESCRIPTOR_BYTES, driver, "r")
                desc.create(memoryview(data), False)
        return desc.on(driver), 0

    def texel_offset(self, x: int, y: int, z: int) -> int:
        """The byte offset of texel (x, y, z) in `storage`."""
        return self.offset + self.layout.offset(x, y, z)

    def host_mirror(self, texels: Any) -> memoryview | None:
        """The host memory of a USE_HOST_PTR image whose texels `texels` (an allocation of
        `storage`) are a copy of it, as bytes to read the texels into; None otherwise."""
        if self.hostbuf is None or texels.host_owned:
            return None
        view = host_view(self.hostbuf, False, "clEnqueueReadImage")
        return None if view.readonly else view[:self.layout.nbytes]

    def release(self) -> None:
        """Drop this image's hold on its texels (commands still using them keep theirs;
        the descriptors go with the image object)."""
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
                 image_info.ARRAY_SIZE: _array_size(lay), image_info.BUFFER: self.buffer,
                 image_info.NUM_MIP_LEVELS: 0, image_info.NUM_SAMPLES: 0}
        if param not in table:
            raise_cl("clGetImageInfo", status_code.INVALID_VALUE, f"unknown image_info {param!r}")
        return table[param]

    def get_info(self, param: int) -> Any:
        table = {mem_info.TYPE: self.type, mem_info.FLAGS: self.flags, mem_info.SIZE: self.size,
                 mem_info.HOST_PTR: self.hostbuf, mem_info.MAP_COUNT: 0, mem_info.REFERENCE_COUNT: 1,
                 mem_info.CONTEXT: self.context, mem_info.ASSOCIATED_MEMOBJECT: self.buffer,
                 mem_info.OFFSET: 0}
        if param not in table:
            raise_cl("clGetMemObjectInfo", status_code.INVALID_VALUE, f"unknown mem_info {param!r}")
        return table[param]

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


def _descriptor_of(shape: Any, pitches: Any, hostbuf: Any, is_array: bool, buffer: Any,
                   routine: str) -> ImageDescriptor:
    """The descriptor of PyOpenCL's shape arguments (the shape defaults to the hostbuf's)."""
    if shape is None:
        if hostbuf is None:
            raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, "'shape' must be passed if 'hostbuf' is not given")
        shape = tuple(getattr(hostbuf, "shape", ()))
    if hostbuf is None and pitches is not None:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, "'pitches' may only be given if 'hostbuf' is given")
    return from_arguments(shape, pitches, is_array, buffer, routine)


def _own_storage(device: Any, flags: int, desc: ImageDescriptor, hostbuf: Any, elem: int,
                 routine: str) -> tuple[Layout, Storage]:
    """The layout and texel storage of an image that is not over a buffer."""
    if hostbuf is None:
        if flags & HOST_PTR_FLAGS:
            raise_cl(routine, status_code.INVALID_HOST_PTR, "USE_HOST_PTR or COPY_HOST_PTR needs a hostbuf")
        layout = make_layout(device, desc.image_type, desc.size(), elem, (0, 0), routine)
        storage = Storage(layout.nbytes, device.driver)
        storage.create(None, False)
        return layout, storage
    if not flags & HOST_PTR_FLAGS:
        raise_cl(routine, status_code.INVALID_HOST_PTR,
                 "a hostbuf was passed without USE_HOST_PTR or COPY_HOST_PTR")
    host = make_layout(device, desc.image_type, desc.size(), elem, desc.pitches, routine)
    view = host_view(hostbuf, False, routine)
    if view.nbytes < host.nbytes:
        raise_cl(routine, status_code.INVALID_HOST_PTR,
                 f"the hostbuf holds {view.nbytes} bytes; the image needs {host.nbytes}")
    if flags & mem_flags.USE_HOST_PTR:  # the host memory, with its pitches, is the image's
        storage = Storage(host.nbytes, device.driver)
        storage.create(view, True)
        return host, storage
    layout = make_layout(device, desc.image_type, desc.size(), elem, (0, 0), routine)
    storage = Storage(layout.nbytes, device.driver)
    storage.create(memoryview(repack(view, host.row_pitch, host.slice_pitch, layout)), False)
    return layout, storage


def _buffer_layout(context: Any, desc: ImageDescriptor, buffer: Buffer, elem: int, routine: str) -> Layout:
    """Where the texels of an image over `buffer` lie. A 1D buffer image's are tight; a 2D
    one's rows are `row_pitch` apart (tight when 0), which must be a multiple of every
    device's IMAGE_PITCH_ALIGNMENT pixels, and its first texel at a multiple of their
    IMAGE_BASE_ADDRESS_ALIGNMENT pixels (INVALID_IMAGE_FORMAT_DESCRIPTOR otherwise, as
    clCreateImage says); the rows must fit in the buffer."""
    device = context.devices[0]
    two_d = desc.image_type == mem_object_type.IMAGE2D
    layout = make_layout(device, desc.image_type, desc.size(), elem, (desc.row_pitch, 0) if two_d else (0, 0),
                         routine)
    if two_d:
        pitch_px = max(d.image_pitch_alignment for d in context.devices) or 1
        base_px = max(d.image_base_address_alignment for d in context.devices) or 1
        if layout.row_pitch % (pitch_px * elem):
            raise_cl(routine, status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                     f"row pitch {layout.row_pitch} is not a multiple of the devices' pitch alignment, "
                     f"{pitch_px} texels of {elem} bytes")
        if buffer.offset % (base_px * elem):
            raise_cl(routine, status_code.INVALID_IMAGE_FORMAT_DESCRIPTOR,
                     f"the buffer starts {buffer.offset} bytes into its parent, not at a multiple of the "
                     f"devices' base address alignment, {base_px} texels of {elem} bytes")
        need = layout.row_pitch * layout.height
        if need > buffer.size:
            raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                     f"{layout.height} rows of pitch {layout.row_pitch} need {need} bytes; "
                     f"the buffer holds {buffer.size}")
    elif layout.nbytes > buffer.size:
        raise_cl(routine, status_code.INVALID_MEM_OBJECT,
                 f"{layout.width} texels of {elem} bytes need {layout.nbytes} bytes; "
                 f"the buffer holds {buffer.size}")
    return layout


def _backing_buffer(buffer: Any, context: Any, flags: int, hostbuf: Any, routine: str) -> Buffer:
    """The buffer of an image over a buffer, checked."""
    if not isinstance(buffer, Buffer):
        raise_cl(routine, status_code.INVALID_MEM_OBJECT,
                 f"an image over a buffer needs a Buffer, got {type(buffer).__name__}")
    if buffer.storage is None:
        raise_cl(routine, status_code.INVALID_MEM_OBJECT, "the image's buffer was released")
    if buffer.context is not context:
        raise_cl(routine, status_code.INVALID_MEM_OBJECT, "the image's buffer belongs to another context")
    if flags & (HOST_PTR_FLAGS | mem_flags.ALLOC_HOST_PTR):
        raise_cl(routine, status_code.INVALID_VALUE,
                 "an image over a buffer takes the buffer's memory: USE_HOST_PTR, COPY_HOST_PTR and "
                 "ALLOC_HOST_PTR may not be given")
    if hostbuf is not None:
        raise_cl(routine, status_code.INVALID_HOST_PTR,
                 "an image over a buffer takes no hostbuf (its buffer is its memory)")
    own, theirs = flags & ACCESS_FLAGS, buffer.flags & ACCESS_FLAGS
    if own and theirs not in (0, mem_flags.READ_WRITE) and own != theirs:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"the image's {mem_flags.to_string(own)} is not allowed over a "
                 f"{mem_flags.to_string(theirs)} buffer")
    return buffer
