"""Tickets and checkpoints (runtime/drivers/cuda_markers.py): CUDA events recorded
only when a command's completion is asked about, one answering for all before it."""

from __future__ import annotations

import itertools
import threading

from oclpy.runtime.drivers.cuda_markers import Checkpoints, Ticket


class Stream:
    """Records events in order; `recycled` lists the events given back."""

    def __init__(self) -> None:
        self.names = itertools.count()
        self.recorded: list[str] = []
        self.recycled: list[str] = []

    def record(self) -> str:
        name = f"e{next(self.names)}"
        self.recorded.append(name)
        return name

    def checkpoints(self) -> Checkpoints:
        return Checkpoints(self.record, self.recycled.append)


def test_tickets_follow_issue_order_and_need_no_event():
    stream = Stream()
    points = stream.checkpoints()
    tickets = [points.ticket("s") for _ in range(3)]
    assert [t.seq for t in tickets] == sorted({t.seq for t in tickets})
    assert all(isinstance(t, Ticket) and t.stream == "s" and not t.timed for t in tickets)
    assert stream.recorded == [] and not any(points.done(t) for t in tickets)


def test_one_checkpoint_covers_every_ticket_before_it():
    stream = Stream()
    points = stream.checkpoints()
    a, b = points.ticket("s"), points.ticket("s")
    seq, event = points.covering(b)
    assert seq > b.seq and event == "e0"
    assert points.covering(a) == (seq, "e0")  # the same one, nothing recorded
    later = points.ticket("s")
    assert points.covering(later)[1] == "e1"  # issued after it: a new checkpoint
    assert stream.recorded == ["e0", "e1"] and points.pending() == 2


def test_a_reached_checkpoint_completes_what_came_before_and_is_recycled():
    stream = Stream()
    points = stream.checkpoints()
    a = points.ticket("s")
    first = points.covering(a)
    b = points.ticket("s")
    second = points.covering(b)
    points.reached(second[0])  # the later one: the earlier is passed too
    assert points.done(a) and points.done(b) and points.covering(b) is None
    assert stream.recycled == ["e0", "e1"] and points.pending() == 0
    points.reached(first[0])  # a late answer never moves completion back
    assert points.done(b)
    assert not points.done(points.ticket("s"))


def test_an_early_checkpoint_leaves_later_tickets_running():
    stream = Stream()
    points = stream.checkpoints()
    a = points.ticket("s")
    seq, _ = points.covering(a)
    b = points.ticket("s")
    points.reached(seq)
    assert points.done(a) and not points.done(b)


def test_a_synchronisation_completes_everything_marked_before_it():
    stream = Stream()
    points = stream.checkpoints()
    a = points.ticket("s")
    points.covering(a)
    mark = points.mark()
    b = points.ticket("s")  # issued after the synchronisation began
    points.synchronized(mark)
    assert points.done(a) and not points.done(b) and stream.recycled == ["e0"]


def test_checkpoints_stay_in_order_when_threads_ask_at_once():
    stream = Stream()
    points = stream.checkpoints()
    seen: list[tuple[int, str]] = []
    lock = threading.Lock()

    def worker() -> None:
        for _ in range(200):
            found = points.covering(points.ticket("s"))
            with lock:
                seen.append(found)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    numbers = [seq for seq, _ in points._points]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    order = {name: i for i, name in enumerate(stream.recorded)}
    assert [order[e] for _, e in points._points] == sorted(order[e] for _, e in points._points)
    points.reached(max(numbers))
    assert points.pending() == 0 and len(stream.recycled) == len(stream.recorded)
