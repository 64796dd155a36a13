"""The SPIR-V frontend: OpenCL-environment SPIR-V binaries -> our IR.

`spirv_driver.compile_spirv(data, options, filename)` is the entry point the
compiler calls; `is_spirv(data)` tells a SPIR-V module by its magic number.
Modules: `binary` (words, header, instructions), `grammar` (numbers from the
spec), `reader` (module layout), `spirv_types`, `spec_constants`, `translate` (module),
`function` (one body), `ops_*` (instruction tables), `builtins` (BuiltIn
variables), `opencl_std` (extended instructions), `mangled` (builtins left as
calls), `arg_info`, `validate` (structure checks before translation), `spirv_errors`.
Importing the package is cheap (the runtime reads `IL_VERSIONS`); the
reader loads with `spirv_driver`.
"""

# What `IL_VERSION` reports: the SPIR-V versions the reader accepts (binary.SUPPORTED_VERSIONS).
IL_VERSIONS = ("1.0", "1.1", "1.2", "1.3", "1.4", "1.5", "1.6")

