"""What the runtime asks of the compiler besides a build, all cheap to import.

- `check_options(options)`: InvalidBuildOptions when the options are not valid
  OpenCL build options (the runtime says INVALID_BUILD_OPTIONS before building);
  `opt_level(options)`: the pipeline level they ask for;
- `strip_source_options(options)`: the options that still mean something for
  preprocessed text (no -D, -I), for rebuilding a program binary;
- `is_spirv(data)`, `source_unit(source)` and `IL_VERSIONS`: telling a SPIR-V
  module by its magic number, a source as the frontends take it (text, or
  SPIR-V bytes), and the SPIR-V versions the SPIR-V frontend reads;
- `check_header_name(name)`: header names of `Program.compile` are include
  names, never paths to write: absolute, climbing out with `..`, empty parts
  or a NUL are refused (ValueError).
"""

from __future__ import annotations

import os

from ..diagnostics import CompileError
from ..frontend.options import InvalidBuildOptions, parse_build_options
from ..frontend.spirv import IL_VERSIONS
from ..frontend.spirv.binary import MAGIC

SPIRV_MAGIC = (MAGIC.to_bytes(4, "little"), MAGIC.to_bytes(4, "big"))
__all__ = ["IL_VERSIONS", "InvalidBuildOptions", "check_header_name", "check_options", "is_spirv",
           "opt_level", "source_unit", "strip_source_options"]


def check_options(options: str) -> None:
    """Raise InvalidBuildOptions (saying what is wrong) unless `options` are valid."""
    parse_build_options(options)


def opt_level(options: str) -> int:
    """The pipeline level the build options ask for: -cl-opt-disable or -O0 give 0,
    -O1 gives 1, anything else 2 (the highest we have)."""
    parsed = parse_build_options(options)
    return 0 if parsed.opt_disable else min(parsed.opt_level, 2)


def is_spirv(data: bytes) -> bool:
    """Whether `data` (bytes) starts with the SPIR-V magic number, in either byte order."""
    return isinstance(data, (bytes, bytearray, memoryview)) and bytes(data[:4]) in SPIRV_MAGIC


def source_unit(source: str | bytes, filename: str = "<kernel>") -> str | bytes:
    """OpenCL C as text, a SPIR-V module as bytes: `source` as the frontends take it
    (CompileError for bytes that are neither SPIR-V nor UTF-8 text)."""
    if isinstance(source, str):
        return source
    data = bytes(source)
    if is_spirv(data):
        return data
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise CompileError(f"{filename}: error: the source is not UTF-8 text: {exc}\n") from None


def strip_source_options(options: str) -> str:
    """The options that still mean something for preprocessed text (no -D, -I)."""
    words = parse_build_options(options).raw
    kept, skip = [], False
    for word in words:
        if skip:
            skip = False
            continue
        if word in ("-D", "-I"):
            skip = True
            continue
        if word[:2] not in ("-D", "-I"):
            kept.append(word)
    return " ".join(kept)


def check_header_name(name: str) -> str:
    """`name` when it is a relative include name inside its folder, else ValueError."""
    parts = name.replace("\\", "/").split("/")
    if not name or "\0" in name or os.path.isabs(name) or name.startswith(("/", "\\")) \
            or ".." in parts or "" in parts:
        raise ValueError(f"header name {name!r} is not a relative include name "
                         f"(no leading '/', no '..', no empty part)")
    return name
