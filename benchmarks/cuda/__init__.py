"""The benchmark suite on the cuda device against NVIDIA's own OpenCL (PyOpenCL)."""
