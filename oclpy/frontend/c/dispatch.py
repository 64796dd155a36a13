"""Per-object dispatch tables: `cached_table(obj, key, build)` builds a
node-type -> bound-method table once per walker object and keeps it on the
object (the walkers dispatch on every node; rebuilding the dict each time
cost a tenth of the frontend's time)."""

from __future__ import annotations

from typing import Any, Callable


def cached_table(obj: Any, key: str, build: Callable[[], dict[type, Callable]]) -> dict[type, Callable]:
    table = obj.__dict__.get(key)
    if table is None:
        table = obj.__dict__[key] = build()
    return table
