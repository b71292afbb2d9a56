"""`Gate`: a lock many threads hold at once (`shared`) or one alone (`exclusive`).

The embedded store copies its shard while it serves (a forget's purge,
readmodel/stores/edge.py): its calls hold the gate shared, the swap holds it exclusive.
A thread that holds it shared takes it again without waiting (the store's methods call
one another), and so does the thread that holds it exclusive; an exclusive holder
waiting stops new shared ones, so a steady stream of recalls cannot starve a swap.
"""

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Gate:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._shared = 0
        self._waiting = 0
        self._owner: int | None = None
        self._mine = threading.local()

    @contextmanager
    def shared(self) -> Iterator[None]:
        depth: int = getattr(self._mine, "depth", 0)
        if depth == 0 and self._owner != threading.get_ident():
            with self._cond:
                while self._owner is not None or self._waiting:
                    self._cond.wait()
                self._shared += 1
            counted = True
        else:
            counted = False
        self._mine.depth = depth + 1
        try:
            yield
        finally:
            self._mine.depth = depth
            if counted:
                with self._cond:
                    self._shared -= 1
                    if not self._shared:
                        self._cond.notify_all()

    @contextmanager
    def exclusive(self) -> Iterator[None]:
        me = threading.get_ident()
        if self._owner == me:
            yield
            return
        if getattr(self._mine, "depth", 0):
            raise RuntimeError("a thread holding the gate shared cannot take it exclusive")
        with self._cond:
            self._waiting += 1
            try:
                while self._owner is not None or self._shared:
                    self._cond.wait()
            finally:
                self._waiting -= 1
            self._owner = me
        try:
            yield
        finally:
            with self._cond:
                self._owner = None
                self._cond.notify_all()
