"""`int_ptr` and `from_int_ptr`: an object's handle, and the object from its handle.

PyOpenCL hands out the OpenCL handle as `obj.int_ptr` and rebuilds a Python
object from one with `Cls.from_int_ptr(ptr)`. oclpy objects are their own
handles: `int_ptr` is the object's id, registered (weakly) when first asked
for, and `from_int_ptr` finds the live object again. A handle of a dead
object, or of an object of another class, is LogicError INVALID_VALUE.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from .errors import raise_cl, status_code

_live: weakref.WeakValueDictionary[int, Any] = weakref.WeakValueDictionary()
_lock = threading.Lock()


class Handle:
    """Mixin giving `int_ptr` and `from_int_ptr`."""

    @property
    def int_ptr(self) -> int:
        with _lock:
            _live[id(self)] = self
        return id(self)

    @classmethod
    def from_int_ptr(cls, int_ptr_value: int, retain: bool = True) -> Any:
        with _lock:
            obj = _live.get(int_ptr_value)
        if obj is None or not isinstance(obj, cls):
            raise_cl(f"{cls.__name__}.from_int_ptr", status_code.INVALID_VALUE,
                     f"{int_ptr_value:#x} is not the handle of a live {cls.__name__}")
        return obj
