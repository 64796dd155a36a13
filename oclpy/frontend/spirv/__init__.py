"""The SPIR-V frontend: OpenCL-environment SPIR-V binaries -> our IR.

`compile_spirv(data, options, filename)` (driver.py) is the entry point the
compiler calls; `is_spirv(data)` tells a SPIR-V module by its magic number.
Modules: `binary` (words, header, instructions), `grammar` (numbers from the
spec), `reader` (module layout), `types`, `constants`, `translate` (module),
`function` (one body), `ops_*` (instruction tables), `builtins` (BuiltIn
variables), `opencl_std` (extended instructions), `mangled` (builtins left as
calls), `arg_info`, `validate` (structure checks before translation), `errors`.
"""

from .driver import compile_spirv, is_spirv

# What `IL_VERSION` reports: the SPIR-V versions the reader accepts (binary.SUPPORTED_VERSIONS).
IL_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6")

__all__ = ["compile_spirv", "is_spirv", "IL_VERSIONS"]
