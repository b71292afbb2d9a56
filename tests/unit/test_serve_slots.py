"""The `RecallGate`: at most N recalls at once where serve hosts the worker,
consolidation first. And embedded recall logs are capped (they live in memory)."""

import asyncio
import threading
from pathlib import Path

from sediment.bootstrap import IN_PROCESS_LOG_MAXLEN, bootstrap
from sediment.recall_gate import RecallGate
from sediment.settings import Settings
from worker.busy import Busy


class Inside:
    """Counts how many turns are taken at once."""

    def __init__(self, gate: RecallGate) -> None:
        self.gate = gate
        self.inside = 0
        self.most = 0

    async def recall(self) -> None:
        async with self.gate.turn():
            self.inside += 1
            self.most = max(self.most, self.inside)
            await asyncio.sleep(0.01)
            self.inside -= 1


def concurrency(slots: int, recalls: int) -> int:
    inner = Inside(RecallGate(slots))

    async def main() -> None:
        await asyncio.gather(*(inner.recall() for _ in range(recalls)))

    asyncio.run(main())
    return inner.most


def test_recalls_wait_for_a_slot() -> None:
    assert concurrency(2, 10) == 2
    assert concurrency(1, 5) == 1


def test_in_process_recall_logs_are_capped(tmp_path: Path) -> None:
    embedded = bootstrap(Settings(mode="embedded", data_dir=tmp_path, impressions_maxlen=500_000))
    assert embedded.recall_log._impressions_maxlen == IN_PROCESS_LOG_MAXLEN  # type: ignore[attr-defined]
    small = bootstrap(Settings(mode="embedded", data_dir=tmp_path, impressions_maxlen=100))
    assert small.recall_log._impressions_maxlen == 100  # type: ignore[attr-defined]
    shared = bootstrap(Settings(mode="standalone", data_dir=tmp_path, impressions_maxlen=500_000))
    assert shared.recall_log._impressions_maxlen == 500_000  # type: ignore[attr-defined]


class Entered:
    """Records whether the worker was running a batch when each recall got its turn."""

    def __init__(self, busy: Busy, gate: RecallGate) -> None:
        self.busy = busy
        self.gate = gate
        self.seen: list[tuple[str, bool]] = []

    def note(self, what: str) -> None:
        self.seen.append((what, self.busy.busy))

    async def recall(self) -> None:
        async with self.gate.turn():
            self.note("recall")


def test_busy_hears_idle_and_busy_once_across_overlapping_batches() -> None:
    busy, heard = Busy(), []
    stop = busy.listen(heard.append)
    with busy.running():
        with busy.running():
            assert busy.busy
        assert busy.busy
    assert not busy.busy and heard == [True, False]
    stop()
    with busy.running():
        pass
    assert heard == [True, False]


def batch_then_recall(yield_s: float, batch_ends: bool) -> list[tuple[str, bool]]:
    """A batch starts on another thread; then a recall comes in, and a retain (which
    takes no turn). The batch ends (or not) once the retain has passed."""
    busy = Busy()
    inner = Entered(busy, RecallGate(2, busy, yield_s))
    started, finish = threading.Event(), threading.Event()

    def batch() -> None:
        with busy.running():
            started.set()
            finish.wait(30)

    async def main() -> None:
        await inner.recall()  # the gate learns the loop
        worker = threading.Thread(target=batch)
        worker.start()
        await asyncio.to_thread(started.wait, 30)
        recall = asyncio.create_task(inner.recall())
        await asyncio.sleep(0)
        inner.note("retain")
        if batch_ends:
            finish.set()
        await recall
        finish.set()
        await asyncio.to_thread(worker.join, 30)

    asyncio.run(main())
    return inner.seen


def test_a_recall_waits_for_the_batch_running() -> None:
    assert batch_then_recall(30.0, batch_ends=True) == [
        ("recall", False),
        ("retain", True),
        ("recall", False),
    ]


def test_a_recall_waits_no_longer_than_its_bound() -> None:
    assert batch_then_recall(0.05, batch_ends=False)[-1] == ("recall", True)
