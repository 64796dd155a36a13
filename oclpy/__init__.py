"""oclpy: OpenCL written in Python."""
