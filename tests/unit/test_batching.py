"""When a batch of retain messages runs: once they stop coming, when it is full, or
when its first message has waited long enough."""

import pytest

from worker.batching import RetainBatches


class Recorded(RetainBatches):
    flush_every = 4
    quiet_s = 0.02
    max_wait_s = 0.25

    def __init__(self) -> None:
        super().__init__()
        self.ran = 0

    def flush_now(self) -> None:
        self._first_at = None
        self.ran += 1
        while not self._buffer.empty():
            self._buffer.get_nowait()


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    now = [100.0]
    monkeypatch.setattr("worker.batching.time.monotonic", lambda: now[0])
    return now


def take(b: Recorded, n: int = 1) -> None:
    for _ in range(n):
        b._buffer.put(object())
        b.received()


def test_a_batch_runs_once_messages_stop_coming(clock: list[float]) -> None:
    b = Recorded()
    take(b)
    clock[0] += 0.01
    b._do_flush()
    take(b)
    clock[0] += 0.015
    b._do_flush()
    assert b.ran == 0, "a message came within the quiet period"
    clock[0] += 0.01
    b._do_flush()
    assert b.ran == 1


def test_a_full_batch_runs_at_once(clock: list[float]) -> None:
    b = Recorded()
    take(b, 4)
    b._do_flush()
    assert b.ran == 1


def test_a_steady_stream_runs_by_the_first_message_s_wait(clock: list[float]) -> None:
    b = Recorded()
    for _ in range(24):
        clock[0] += 0.011
        take(b)
        b._do_flush()
        if b.ran:
            break
        b._buffer.get_nowait()  # the buffer never fills in this stream
    assert b.ran == 1 and clock[0] - 100.0 >= 0.25
