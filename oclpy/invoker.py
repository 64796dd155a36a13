"""`pyopencl.invoker`: what generated argument-setting code asks of it.

PyOpenCL generates a Python function per kernel that sets its arguments in
groups; loopy generates the same code itself and reads from here which struct
type characters the kernel's `_set_arg_buf_pack_multi` packs directly
(`BUF_PACK_TYPECHARS`); any other scalar goes through `struct.pack` and
`_set_arg_buf_multi`. oclpy's `Kernel.__call__` binds arguments without
generated code, so this module holds only that table.
"""

BUF_PACK_TYPECHARS = ["c", "b", "B", "h", "H", "i", "I", "l", "L", "f", "d"]

__all__ = ["BUF_PACK_TYPECHARS"]
