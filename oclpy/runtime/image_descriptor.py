"""PyOpenCL's `ImageDescriptor` (OpenCL 1.2's cl_image_desc) and the descriptor
PyOpenCL's `Image(context, flags, format, shape, pitches, hostbuf, is_array, buffer)`
stands for.

An ImageDescriptor is plain settable data, as in PyOpenCL: `image_type`, `shape`
(setting it sets width, height and depth, the missing ones 1, and `array_size`
to the third entry or 1), `array_size`, `pitches` (row, slice; bytes of the host
memory), `num_mip_levels`, `num_samples`, `buffer`. `Image(..., desc=d)` checks
it (`checked`) as clCreateImage does.
"""

from __future__ import annotations

import operator
from typing import Any

from .constants import mem_object_type as mot
from .errors import raise_cl, status_code

IMAGE_TYPES = (mot.IMAGE1D, mot.IMAGE1D_ARRAY, mot.IMAGE2D, mot.IMAGE2D_ARRAY, mot.IMAGE3D,
               mot.IMAGE1D_BUFFER)


class ImageDescriptor:
    """clCreateImage's image_desc, PyOpenCL's attribute by attribute."""

    def __init__(self) -> None:
        self.image_type = 0
        self.width = self.height = self.depth = 1
        self.array_size = 1
        self.row_pitch = self.slice_pitch = 0
        self.num_mip_levels = self.num_samples = 0
        self.buffer: Any = None

    @property
    def shape(self) -> tuple[int, int, int]:
        return (self.width, self.height, self.depth)

    @shape.setter
    def shape(self, value: Any) -> None:
        dims = [operator.index(n) for n in value]
        if not 1 <= len(dims) <= 3:
            raise ValueError(f"an image shape has 1 to 3 entries, got {tuple(dims)}")
        dims += [1] * (3 - len(dims))
        self.width, self.height, self.depth = dims
        self.array_size = dims[2]

    @property
    def pitches(self) -> tuple[int, int]:
        return (self.row_pitch, self.slice_pitch)

    @pitches.setter
    def pitches(self, value: Any) -> None:
        given = [operator.index(p) for p in value]
        if len(given) > 2:
            raise ValueError(f"pitches are (row, slice), got {tuple(given)}")
        given += [0] * (2 - len(given))
        self.row_pitch, self.slice_pitch = given

    def size(self) -> tuple[int, int, int, int]:
        """(width, height, depth, layers), 1 where `image_type` has no such extent."""
        t = self.image_type
        height = self.height if t in (mot.IMAGE2D, mot.IMAGE2D_ARRAY, mot.IMAGE3D) else 1
        depth = self.depth if t == mot.IMAGE3D else 1
        layers = self.array_size if t in (mot.IMAGE1D_ARRAY, mot.IMAGE2D_ARRAY) else 1
        return (self.width, height, depth, layers)

    def __repr__(self) -> str:
        return (f"<oclpy.ImageDescriptor {mot.to_string(self.image_type, '0x%x')} {self.shape} "
                f"array_size={self.array_size} pitches={self.pitches}>")


OVER_BUFFERS = (mot.IMAGE1D_BUFFER, mot.IMAGE2D)  # cl_khr_image2d_from_buffer makes the 2D ones


def checked(desc: Any, has_host: bool, routine: str) -> ImageDescriptor:
    """`desc`, if clCreateImage takes it: INVALID_IMAGE_DESCRIPTOR for what is not an
    ImageDescriptor, an image type that is not one, mipmaps or samples, pitches without
    host memory (a 2D image over a buffer takes a row pitch), a buffer where the type is
    neither IMAGE1D_BUFFER nor IMAGE2D; INVALID_MEM_OBJECT for an IMAGE1D_BUFFER without a
    buffer (as PoCL)."""
    if not isinstance(desc, ImageDescriptor):
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"expected an ImageDescriptor, got {type(desc).__name__}")
    if desc.image_type not in IMAGE_TYPES:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"image_type {mot.to_string(desc.image_type, '0x%x')} is not an image type")
    if desc.num_mip_levels or desc.num_samples:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"num_mip_levels and num_samples must be 0 (oclpy has no mipmapped or multisample "
                 f"images), got {desc.num_mip_levels} and {desc.num_samples}")
    from_buffer = desc.image_type == mot.IMAGE2D and desc.buffer is not None
    if (desc.row_pitch or desc.slice_pitch) and not has_host and not (from_buffer and not desc.slice_pitch):
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"pitches {desc.pitches} need host memory (hostbuf); without it they must be 0"
                 + (" (a 2D image over a buffer takes a row pitch alone)" if from_buffer else ""))
    if desc.image_type == mot.IMAGE1D_BUFFER:
        if desc.buffer is None:
            raise_cl(routine, status_code.INVALID_MEM_OBJECT, "an IMAGE1D_BUFFER image needs a buffer")
    elif desc.buffer is not None and desc.image_type not in OVER_BUFFERS:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"only IMAGE1D_BUFFER and IMAGE2D images are made over a buffer, not an "
                 f"{mot.to_string(desc.image_type)} one")
    return desc


def from_arguments(shape: Any, pitches: Any, is_array: bool, buffer: Any, routine: str) -> ImageDescriptor:
    """The descriptor PyOpenCL's Image arguments stand for: the type from the shape's length,
    `is_array` and `buffer`; an array's last extent is its layer count."""
    dims = tuple(shape)
    if not 1 <= len(dims) <= 3:
        raise_cl(routine, status_code.INVALID_IMAGE_SIZE, f"an image has 1 to 3 dimensions, got shape {dims}")
    if buffer is not None and (is_array or len(dims) > 1):
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR,
                 f"a buffer backs only a 1D image (IMAGE1D_BUFFER), not one of shape {dims}"
                 f"{' (an array)' if is_array else ''}")
    if is_array and len(dims) == 1:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, "an image array needs a layer count in its shape")
    desc = ImageDescriptor()
    if buffer is not None:
        desc.image_type = mot.IMAGE1D_BUFFER
    elif is_array:
        desc.image_type = mot.IMAGE1D_ARRAY if len(dims) == 2 else mot.IMAGE2D_ARRAY
    else:
        desc.image_type = (mot.IMAGE1D, mot.IMAGE2D, mot.IMAGE3D)[len(dims) - 1]
    desc.shape = dims
    desc.array_size = dims[-1] if is_array else 1
    given = tuple(pitches or ())
    if len(given) > 2:
        raise_cl(routine, status_code.INVALID_IMAGE_DESCRIPTOR, f"at most two pitches (row, slice), got {given}")
    desc.pitches = given
    desc.buffer = buffer
    return desc
