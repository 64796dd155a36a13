"""Rectangular transfers: enqueue_copy with origins, a region and pitches.

As clEnqueue{Read,Write,Copy}BufferRect: origins and region are up to three
entries (x in bytes, then rows, then slices), pitches are (row_pitch,
slice_pitch) in bytes and default to a tightly packed region. Every row is
checked against both sides before anything is enqueued (and, within one
buffer, against the other side's rows: MEM_COPY_OVERLAP); the copy moves one
row (region[0] bytes) at a time through the driver, so it works on any device.
"""

from __future__ import annotations

import operator
from typing import Any

from .constants import command_type
from .errors import as_list, raise_cl, status_code
from .event import Event
from .memory import Buffer, host_view
from .queue import CommandQueue
from .storage import READ, WRITE
from .transfer_checks import check_queue_and_buffer

Triple = tuple[int, int, int]


def triple(value: Any, fill: int, routine: str, what: str) -> Triple:
    """An origin or region as three non-negative integers, `fill` for the missing ones."""
    items = as_list(value, routine, status_code.INVALID_VALUE, what)
    try:
        numbers = [operator.index(v) for v in items]
    except TypeError:
        raise_cl(routine, status_code.INVALID_VALUE, f"{what} must hold integers, got {items!r}")
    if not 1 <= len(numbers) <= 3 or any(n < 0 for n in numbers):
        raise_cl(routine, status_code.INVALID_VALUE, f"{what} must be 1 to 3 non-negative integers")
    numbers += [fill] * (3 - len(numbers))
    return (numbers[0], numbers[1], numbers[2])


def _pitches(value: Any, region: Triple, routine: str, what: str) -> tuple[int, int]:
    given = as_list(value, routine, status_code.INVALID_VALUE, what)
    row = operator.index(given[0]) if len(given) > 0 and given[0] else region[0]
    slab = operator.index(given[1]) if len(given) > 1 and given[1] else region[1] * row
    if row < region[0] or slab < region[1] * row:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"{what} ({row}, {slab}) are smaller than the region {region}")
    return row, slab


def _start(origin: Triple, row: int, slab: int) -> int:
    return origin[2] * slab + origin[1] * row + origin[0]


def _rows(origin: Triple, region: Triple, row: int, slab: int) -> list[int]:
    """The byte offset of each row of the region, slices outermost."""
    start = _start(origin, row, slab)
    return [start + z * slab + y * row for z in range(region[2]) for y in range(region[1])]


def _extent(origin: Triple, region: Triple, row: int, slab: int) -> int:
    """One past the last byte the region touches (0 for an empty region)."""
    if 0 in region:
        return 0
    return _start(origin, row, slab) + (region[2] - 1) * slab + (region[1] - 1) * row + region[0]


def _side(origin: Any, pitches: Any, region: Triple, size: int, routine: str, name: str) -> list[int]:
    org = triple(origin, 0, routine, f"{name}_origin")
    row, slab = _pitches(pitches, region, routine, f"{name}_pitches")
    end = _extent(org, region, row, slab)
    if end > size:
        raise_cl(routine, status_code.INVALID_VALUE,
                 f"the {name} region ends at byte {end}, past the {name}'s {size} bytes")
    return _rows(org, region, row, slab)


def rows_overlap(a_rows: list[int], b_rows: list[int], width: int) -> bool:
    """Whether any row [a, a + width) meets any row [b, b + width) (a sweep over sorted starts)."""
    if width == 0:
        return False
    marks = sorted([(r, 0) for r in a_rows] + [(r, 1) for r in b_rows])
    last_end = [-1, -1]  # the furthest end seen so far, per side
    for start, side in marks:
        if start < last_end[1 - side]:
            return True
        last_end[side] = max(last_end[side], start + width)
    return False


def host_rect(queue: CommandQueue, buf: Buffer, host: Any, to_device: bool, kw: dict[str, Any]) -> Event:
    """enqueue_copy between a buffer and host memory with buffer_origin/host_origin/region."""
    routine = "clEnqueueWriteBufferRect" if to_device else "clEnqueueReadBufferRect"
    check_queue_and_buffer(queue, buf, routine)
    region = triple(kw.pop("region"), 1, routine, "region")
    view = host_view(host, not to_device, routine, status_code.INVALID_VALUE, "host array")
    buf_rows = _side(kw.pop("buffer_origin"), kw.pop("buffer_pitches", None), region, buf.size,
                     routine, "buffer")
    host_rows = _side(kw.pop("host_origin", (0, 0, 0)), kw.pop("host_pitches", None), region,
                      view.nbytes, routine, "host")
    events = queue.check_wait_for(kw.pop("wait_for", None), routine)
    blocking = bool(kw.pop("is_blocking", True))
    if kw:
        raise TypeError(f"enqueue_copy() got an unexpected keyword argument '{next(iter(kw))}'")
    driver = queue.driver
    alloc, base = buf.allocation(driver)
    width = region[0]

    def action() -> None:
        for b, h in zip(buf_rows, host_rows):
            if to_device:
                driver.write(alloc, base + b, view[h:h + width])
            else:
                driver.read(alloc, base + b, view[h:h + width])

    kind = command_type.WRITE_BUFFER if to_device else command_type.READ_BUFFER
    return queue.enqueue_command(kind, action, events, blocking=blocking, ward=host, keepalive=(buf.storage,),
                                 storages=((buf.storage, WRITE if to_device else READ),))


def buffer_rect(queue: CommandQueue, dst: Buffer, src: Buffer, kw: dict[str, Any]) -> Event:
    """enqueue_copy between buffers with src_origin/dst_origin/region."""
    routine = "clEnqueueCopyBufferRect"
    check_queue_and_buffer(queue, src, routine)
    check_queue_and_buffer(queue, dst, routine)
    region = triple(kw.pop("region"), 1, routine, "region")
    src_rows = _side(kw.pop("src_origin"), kw.pop("src_pitches", None), region, src.size, routine, "src")
    dst_rows = _side(kw.pop("dst_origin", (0, 0, 0)), kw.pop("dst_pitches", None), region, dst.size,
                     routine, "dst")
    if src.storage is dst.storage and rows_overlap([src.offset + r for r in src_rows],
                                                   [dst.offset + r for r in dst_rows], region[0]):
        raise_cl(routine, status_code.MEM_COPY_OVERLAP,
                 "the source and destination regions overlap in the same buffer")
    events = queue.check_wait_for(kw.pop("wait_for", None), routine)
    if kw:
        raise TypeError(f"enqueue_copy() got an unexpected keyword argument '{next(iter(kw))}'")
    driver = queue.driver
    s_alloc, s_base = src.allocation(driver)
    d_alloc, d_base = dst.allocation(driver)
    width = region[0]

    def action() -> None:
        for d, s in zip(dst_rows, src_rows):
            driver.copy(d_alloc, d_base + d, s_alloc, s_base + s, width)

    return queue.enqueue_command(command_type.COPY_BUFFER, action, events,
                                 keepalive=(src.storage, dst.storage),
                                 storages=((src.storage, READ), (dst.storage, WRITE)))
