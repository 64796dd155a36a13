"""The one door into the compiler: `build(source or SPIR-V bytes, options, Target)`.

- `door`: `build` (through the build cache), `Target` values for the host CPU,
  for cuda GPUs and for simt devices, `CompiledProgram`;
- `cache`: the one build cache (memory and disk), keyed by the source's bytes,
  the options, the included headers, the Target and the compiler version;
- `units`: what the runtime needs besides a build (options, SPIR-V detection,
  header names);
- `toolchain`: the compiling part (frontend -> one pipeline -> the target's
  code generator: `compile_program`, without the cache), loaded at its first
  use so that importing oclpy and cached builds stay cheap; its names are
  reachable from here too (`TOOLCHAIN_NAMES`).
"""

from typing import Any

from ..targets.target import Target
from . import cache
from .door import (CUDA_MAX_ARGUMENT_BYTES, DEVICE_KINDS, CompiledProgram, build, cuda_target, host_target,
                   load_toolchain, preprocess_unit, resolve, simt_target)
from .units import (IL_VERSIONS, InvalidBuildOptions, check_header_name, check_options, is_spirv, opt_level,
                    source_unit, strip_source_options)

TOOLCHAIN_NAMES = ("BACKENDS", "TARGET_PIPELINES", "ast_text", "compile_program", "frontend_for", "optimize",
                   "pipeline_for")

__all__ = ["CUDA_MAX_ARGUMENT_BYTES", "DEVICE_KINDS", "IL_VERSIONS", "CompiledProgram", "InvalidBuildOptions",
           "Target", "build", "cache", "check_header_name", "check_options", "cuda_target", "host_target",
           "is_spirv", "opt_level", "resolve", "load_toolchain", "preprocess_unit", "simt_target", "source_unit",
           "strip_source_options", *TOOLCHAIN_NAMES]


def __getattr__(name: str) -> Any:
    """The toolchain's names, from the toolchain module loaded at the first use of one."""
    if name in TOOLCHAIN_NAMES:
        return getattr(load_toolchain(), name)
    raise AttributeError(f"module 'oclpy.compiler' has no attribute '{name}'")
