"""The cuda target: IR -> LLVM IR for NVPTX -> PTX."""
