"""Where an image's texels lie, and the descriptor a kernel reads.

A `Layout` is an image's type, shape, bytes per texel and pitches: texel
(x, y, z) lies `z * slice_pitch + y * row_pitch + x * element_size` bytes
after texel (0, 0, 0) (an array's layers are its y (1D) or z (2D) extent).
The pitches are tight unless a USE_HOST_PTR image takes its host memory's
(`make_layout`). Checks: INVALID_IMAGE_SIZE for extents beyond the device's
limits, INVALID_IMAGE_DESCRIPTOR for pitches the spec refuses (5.3.1.2).

The descriptor (`descriptor`) is what a kernel's image argument points to:
sixteen int32 words, the layout `frontend/c/builtins/images.cl` reads (width,
height, depth, array size, channel order and type, channel count, bytes per
texel, row and slice pitch, the texel extents along x, y, z, the image type),
the last two the 64-bit device address of texel (0, 0, 0).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

from .constants import mem_object_type as mot
from .errors import raise_cl, status_code
from .structs import ImageFormat

DESCRIPTOR_BYTES = 64
ARRAYS = (mot.IMAGE1D_ARRAY, mot.IMAGE2D_ARRAY)
ONE_DIMENSIONAL = (mot.IMAGE1D, mot.IMAGE1D_BUFFER, mot.IMAGE1D_ARRAY)


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
        if self.type == mot.IMAGE1D_ARRAY:
            return (self.width, self.array_size, 1)
        if self.type == mot.IMAGE2D_ARRAY:
            return (self.width, self.height, self.array_size)
        return (self.width, self.height, self.depth)

    @property
    def nbytes(self) -> int:
        """Bytes from texel (0, 0, 0) to the end of the last one."""
        ex, ey, ez = self.extents
        return (ez - 1) * self.slice_pitch + (ey - 1) * self.row_pitch + ex * self.element_size

    def offset(self, x: int, y: int, z: int) -> int:
        """Bytes from texel (0, 0, 0) to texel (x, y, z)."""
        return z * self.slice_pitch + y * self.row_pitch + x * self.element_size

    def descriptor(self, fmt: ImageFormat, channels: int, texels: int) -> bytes:
        """The 64 bytes a kernel reads; `texels` is the device address of texel (0, 0, 0)."""
        ex, ey, ez = self.extents
        return struct.pack("<14iQ", self.width, self.height, self.depth, self.array_size,
                           fmt.channel_order, fmt.channel_data_type, channels, self.element_size,
                           self.row_pitch, self.slice_pitch, ex, ey, ez, self.type, texels)


def _limits(device: Any, image_type: int) -> tuple[int, int, int, int]:
    """(max width, max height, max depth, max layers) for `image_type` on `device`."""
    if image_type == mot.IMAGE3D:
        return (device.image3d_max_width, device.image3d_max_height, device.image3d_max_depth, 1)
    if image_type == mot.IMAGE1D_BUFFER:
        return (device.image_max_buffer_size, 1, 1, 1)
    return (device.image2d_max_width, device.image2d_max_height, 1, device.image_max_array_size)


def make_layout(device: Any, image_type: int, size: tuple[int, int, int, int], elem: int,
                pitches: tuple[int, int], routine: str) -> Layout:
    """The layout of an image of `image_type` and `size` (width, height, depth, layers; the
    ones the type has no use for are 1). `pitches` are the host memory's (row, slice),
    0 for tight; they become the image's own."""
    width, height, depth, layers = size
    if min(size) <= 0:
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE,
                 f"image shape {_describe(image_type, size)} has a zero or negative extent")
    max_w, max_h, max_d, max_layers = _limits(device, image_type)
    if width > max_w or height > max_h or depth > max_d or layers > max_layers:
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE,
                 f"image shape {_describe(image_type, size)} exceeds the device's limits "
                 f"({max_w} x {max_h} x {max_d}, {max_layers} layers)")
    row, slab = pitches
    tight = width * elem
    if row == 0:
        row = tight
    elif row < tight or row % elem:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"row pitch {row} is not a multiple of the element size {elem} at least {tight}")
    if image_type in (mot.IMAGE3D, mot.IMAGE2D_ARRAY, mot.IMAGE1D_ARRAY):
        rows = 1 if image_type == mot.IMAGE1D_ARRAY else height  # rows per slice (or layer)
        if slab == 0:
            slab = row * rows
        elif slab < row * rows or slab % row:
            raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                     f"slice pitch {slab} is not a multiple of the row pitch {row} at least {row * rows}")
        if image_type == mot.IMAGE1D_ARRAY:  # a 1D array's layers are its rows
            row, slab = slab, slab * layers
    else:  # 1D and 2D images have no slices: a slice pitch given is not used
        slab = row * height
    return Layout(image_type, width, height, depth, layers, elem, row, slab)


def _describe(image_type: int, size: tuple[int, int, int, int]) -> str:
    width, height, depth, layers = size
    dims = {mot.IMAGE1D: (width,), mot.IMAGE1D_BUFFER: (width,), mot.IMAGE1D_ARRAY: (width, layers),
            mot.IMAGE2D: (width, height), mot.IMAGE2D_ARRAY: (width, height, layers)}
    return str(dims.get(image_type, (width, height, depth)))


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


def repack(view: memoryview, row: int, slab: int, layout: Layout) -> bytes:
    """The texels of host memory laid out with pitches (row, slab), in `layout`'s pitches."""
    ex, ey, ez = layout.extents
    width = ex * layout.element_size
    out = bytearray(layout.nbytes)
    for z in range(ez):
        for y in range(ey):
            dst = layout.offset(0, y, z)
            src = z * slab + y * row
            out[dst:dst + width] = view[src:src + width]
    return bytes(out)
