"""Lowering of a checked OpenCL C translation unit to an IR module."""
