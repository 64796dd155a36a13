"""The names PyOpenCL's tests reach through `pyopencl._cl`, its native module.

oclpy has no native module: this one re-exports the host API and the pool
used by PyOpenCL's memory-pool test.
"""

from __future__ import annotations

from . import *  # noqa: F401,F403 - pyopencl._cl holds the whole host API
from . import create_program_with_il
from .mempool import SizeOnlyMemoryPool

_TestMemoryPool = SizeOnlyMemoryPool
_create_program_with_il = create_program_with_il
