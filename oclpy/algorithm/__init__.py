"""The API of `pyopencl.algorithm`: stream compaction (`compaction`: copy_if,
remove_if, partition, unique, radix sort) and lists of lists (`lists`)."""

from .compaction import *  # noqa: F401,F403 - the public names of pyopencl.algorithm
from .compaction import __all__  # noqa: F401
