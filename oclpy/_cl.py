"""The names PyOpenCL's tests reach through `pyopencl._cl`, its native module.

oclpy has no native module: this one re-exports the host API, the pool
used by PyOpenCL's memory-pool test and the image copies under their native
names (`_enqueue_copy_image`, ...).
"""

from __future__ import annotations

from . import *  # noqa: F401,F403 - pyopencl._cl holds the whole host API
from . import (create_program_with_il, enqueue_copy_buffer_to_image, enqueue_copy_image,
               enqueue_copy_image_to_buffer, enqueue_read_image, enqueue_write_image)
from .mempool import SizeOnlyMemoryPool

_TestMemoryPool = SizeOnlyMemoryPool
_create_program_with_il = create_program_with_il

# PyOpenCL's native image copies, which its enqueue_copy and tests call by keyword
_enqueue_copy_image = enqueue_copy_image
_enqueue_copy_image_to_buffer = enqueue_copy_image_to_buffer
_enqueue_copy_buffer_to_image = enqueue_copy_buffer_to_image
_enqueue_read_image = enqueue_read_image
_enqueue_write_image = enqueue_write_image
