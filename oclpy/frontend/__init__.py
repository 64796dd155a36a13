"""The OpenCL C frontend: preprocessing, lexing, parsing, semantic analysis and
lowering to IR. `driver.compile_to_ir` is its entry point."""
