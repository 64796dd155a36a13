"""OpenCL C: preprocessing, lexing, parsing to an AST, C types and their layout."""
