"""Semantic analysis of OpenCL C: types, conversions, overload resolution, diagnostics."""
