"""The cpu target: IR -> LLVM IR for the host, work-group launchers, JIT."""
