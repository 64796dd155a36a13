"""The oclpy IR: types, values, the opcode table, the builder, DataLayout,
intrinsics, and (in their own modules) the printer, parser and verifier."""
