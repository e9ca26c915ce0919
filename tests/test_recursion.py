"""The recursion room is shared by threads: ``api.search`` compiles on a thread of its own
while another thread reads or prints, and one thread leaving must not take the room from
another still inside (issue 18)."""

from __future__ import annotations

import sys
import threading

from cqllegacy.recursion import DEEP_LIMIT, room_for_deep_trees


def test_a_thread_leaving_keeps_the_room_of_a_thread_still_inside() -> None:
    before = sys.getrecursionlimit()
    first_inside, second_inside, first_left = (threading.Event() for _ in range(3))
    seen: list[int] = []

    def first() -> None:
        with room_for_deep_trees():
            first_inside.set()
            second_inside.wait(10)
        first_left.set()

    def second() -> None:
        first_inside.wait(10)
        with room_for_deep_trees():
            second_inside.set()
            first_left.wait(10)
            seen.append(sys.getrecursionlimit())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(20)
    assert seen == [max(before, DEEP_LIMIT)]
    assert sys.getrecursionlimit() == before


def test_a_limit_set_inside_by_someone_else_is_kept() -> None:
    before = sys.getrecursionlimit()
    try:
        with room_for_deep_trees():
            sys.setrecursionlimit(DEEP_LIMIT + 1)
        assert sys.getrecursionlimit() == DEEP_LIMIT + 1
    finally:
        sys.setrecursionlimit(before)
