"""The OpenCL C specification suite: one module per spec section
(test_6_2_conversions, test_6_3_operators, test_6_15_<n>_<family>), each
building kernels with the public API and checking results on the cpu device
against NumPy, exact Python integers/fractions or mpmath references (math:
within the ULP bounds of OpenCL C 3.0 section 7.4). `elementwise` batches many
builtin expressions at every vector width into one kernel build."""
