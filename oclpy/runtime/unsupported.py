"""What oclpy does not implement: pipes, SVM and GL interop.

PyOpenCL has these names; in oclpy each is an object that raises, when it
is called, a LogicError INVALID_OPERATION naming the feature, so a script
that uses one fails at that line with a clear message instead of an
AttributeError.
"""

from __future__ import annotations

from typing import Any, NoReturn

from .errors import raise_cl, status_code

# name -> the feature it belongs to
UNSUPPORTED_NAMES: dict[str, str] = {
    **dict.fromkeys(("Pipe",), "pipes"),
    **dict.fromkeys(("SVM", "SVMAllocation", "SVMPointer", "SVMMap", "svm_empty", "svm_empty_like",
                     "csvm_empty", "csvm_empty_like", "fsvm_empty", "fsvm_empty_like",
                     "enqueue_svm_memfill", "enqueue_svm_migratemem", "SVMAllocator", "SVMPool"),
                    "shared virtual memory (SVM)"),
    **dict.fromkeys(("GLBuffer", "GLRenderBuffer", "GLTexture", "enqueue_acquire_gl_objects",
                     "enqueue_release_gl_objects", "get_gl_context_info_khr"), "OpenGL interop"),
}


class Unsupported:
    """Stands for a PyOpenCL name whose feature oclpy does not implement."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.feature = UNSUPPORTED_NAMES[name]

    def __call__(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise_cl(self.name, status_code.INVALID_OPERATION,
                 f"oclpy does not implement {self.feature} ({self.name})")

    def __repr__(self) -> str:
        return f"<oclpy: {self.name} is not implemented ({self.feature})>"


def unsupported(name: str) -> Unsupported:
    return Unsupported(name)
