"""The `oclpy` command (`main`), its demo (`demo`) and the PyOpenCL compatibility run (`compat`)."""

from .commands import main

__all__ = ["main"]
