"""The LLVM targets: our IR lowered to LLVM IR with llvmlite (`emit.py`), and
the one module that touches `llvmlite.binding` (`binding.py`)."""
