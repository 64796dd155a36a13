"""Targets: one folder per code generator (`llvm/` for cpu and nvptx)."""
