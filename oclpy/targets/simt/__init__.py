"""simt: oclpy's own GPU target (ISA, ABI, machine code, simulator); docs/simt.md describes it."""
