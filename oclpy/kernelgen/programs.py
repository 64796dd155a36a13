"""Building generated kernels, and keeping what is made once per context.

`build_kernel(context, source, name, options)` compiles `source` with the
public `oclpy.Program` and returns its kernel `name`; the kernel is kept
per (context, source, name, options), so a generator that asks again gets
the same Kernel object without a second build. `ContextCache` is the
store behind it, which the generators also use for their own objects
(an ElementwiseKernel per operation, a ReductionKernel per dtype): values
are kept per context, the context held weakly, so releasing a context
drops them.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any, Callable, Hashable, TypeVar

import oclpy as cl

T = TypeVar("T")


class ContextCache:
    """Values made once per (context, key), the context held weakly.

    Two threads asking for the same missing key may both make the value;
    the first one stored wins and both get it.
    """

    def __init__(self) -> None:
        self._entries: weakref.WeakKeyDictionary[Any, dict[Hashable, Any]] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, context: Any, key: Hashable, make: Callable[[], T]) -> T:
        """The value kept for (context, key), made by `make()` the first time."""
        with self._lock:
            per_context = self._entries.setdefault(context, {})
            if key in per_context:
                return per_context[key]
        value = make()
        with self._lock:
            return per_context.setdefault(key, value)

    def count(self, context: Any) -> int:
        """How many values are kept for `context`."""
        with self._lock:
            return len(self._entries.get(context, ()))


_kernels = ContextCache()


def build_kernel(context: Any, source: str, name: str, options: Any = None) -> Any:
    """Kernel `name` of `source` built for `context` (built once, then kept)."""
    key = (source, name, str(options))
    return _kernels.get(context, key,
                        lambda: getattr(cl.Program(context, source).build(options=options or []), name))
