"""The vectorisable math library: OpenCL's math builtins as branch-free LLVM IR bodies."""
