"""Versions: the PyOpenCL API oclpy answers for (`VERSION`), and oclpy's own.

Code written for PyOpenCL reads `pyopencl.VERSION` (or `pyopencl.version.VERSION`)
to decide which API it may use: loopy refuses anything before (2021, 2), silx
branches on 2024.3. So `VERSION`, `VERSION_TEXT`, `VERSION_STATUS` and
`__version__` name the PyOpenCL release whose API and behaviour oclpy follows,
in PyOpenCL's form. oclpy's own release is `OCLPY_VERSION` /
`OCLPY_VERSION_TEXT` (the package's version in pyproject.toml).
"""

from __future__ import annotations

VERSION: tuple[int, ...] = (2026, 1)
VERSION_STATUS = ""
VERSION_TEXT = ".".join(map(str, VERSION)) + VERSION_STATUS
__version__ = VERSION_TEXT

OCLPY_VERSION: tuple[int, ...] = (0, 1, 0)
OCLPY_VERSION_TEXT = ".".join(map(str, OCLPY_VERSION))
