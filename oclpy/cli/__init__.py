"""The `oclpy` command (`main`), its demo (`demo`) and the PyOpenCL compatibility run (`compat`)."""

from .main import main

__all__ = ["main"]
