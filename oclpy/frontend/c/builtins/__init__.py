"""OpenCL C's builtin library as data: the signature table and the builtin families' signatures."""
