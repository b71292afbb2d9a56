"""`RecallSlots` and its `RecallGate`: at most N recalls at once where serve hosts the
worker, consolidation first; other requests pass untouched. And embedded recall logs
are capped (they live in memory)."""

import asyncio
import threading
from pathlib import Path

from starlette.types import Receive, Scope, Send

from sediment.bootstrap import IN_PROCESS_LOG_MAXLEN, bootstrap
from sediment.recall_gate import RecallGate
from sediment.serve import RecallSlots, is_recall
from sediment.settings import Settings
from worker.busy import Busy


class SlowApp:
    """Counts how many requests are inside at once."""

    def __init__(self) -> None:
        self.inside = 0
        self.most = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.inside += 1
        self.most = max(self.most, self.inside)
        await asyncio.sleep(0.01)
        self.inside -= 1


def http(method: str, path: str) -> Scope:
    return {"type": "http", "method": method, "path": path}


async def _nothing() -> dict[str, object]:
    return {}


async def _drop(_: object) -> None:
    return None


def concurrency(slots: int, scopes: list[Scope]) -> int:
    inner = SlowApp()
    gate = RecallSlots(inner, RecallGate(slots))

    async def main() -> None:
        await asyncio.gather(*(gate(s, _nothing, _drop) for s in scopes))

    asyncio.run(main())
    return inner.most


def test_recalls_wait_for_a_slot() -> None:
    assert concurrency(2, [http("POST", "/v1/banks/b/recall")] * 10) == 2
    assert concurrency(1, [http("POST", "/v1/banks/b/recall")] * 5) == 1


def test_other_requests_are_not_held() -> None:
    others = [http("POST", "/v1/banks/b/memories"), http("GET", "/healthz")] * 5
    assert concurrency(1, others) == 10


def test_what_counts_as_a_recall() -> None:
    assert is_recall(http("POST", "/v1/banks/b/recall"))
    assert not is_recall(http("GET", "/v1/banks/b/recall"))
    assert not is_recall(http("POST", "/v1/banks/b/memories"))
    assert not is_recall({"type": "websocket", "path": "/recall"})


def test_in_process_recall_logs_are_capped(tmp_path: Path) -> None:
    embedded = bootstrap(Settings(mode="embedded", data_dir=tmp_path, impressions_maxlen=500_000))
    assert embedded.recall_log._impressions_maxlen == IN_PROCESS_LOG_MAXLEN  # type: ignore[attr-defined]
    small = bootstrap(Settings(mode="embedded", data_dir=tmp_path, impressions_maxlen=100))
    assert small.recall_log._impressions_maxlen == 100  # type: ignore[attr-defined]
    shared = bootstrap(Settings(mode="standalone", data_dir=tmp_path, impressions_maxlen=500_000))
    assert shared.recall_log._impressions_maxlen == 500_000  # type: ignore[attr-defined]


class Entered:
    """Records whether the worker was running a batch when each request got in."""

    def __init__(self, busy: Busy) -> None:
        self.busy = busy
        self.seen: list[tuple[str, bool]] = []

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.seen.append((str(scope["path"]), self.busy.busy))


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
    """A batch starts on another thread; then a recall and a retain come in. The batch
    ends (or not) once the retain has passed."""
    busy = Busy()
    inner = Entered(busy)
    gate = RecallSlots(inner, RecallGate(2, busy, yield_s))
    started, finish = threading.Event(), threading.Event()

    def batch() -> None:
        with busy.running():
            started.set()
            finish.wait(30)

    async def main() -> None:
        await gate(http("GET", "/healthz"), _nothing, _drop)  # the gate learns the loop
        worker = threading.Thread(target=batch)
        worker.start()
        await asyncio.to_thread(started.wait, 30)
        recall = asyncio.create_task(gate(http("POST", "/v1/banks/b/recall"), _nothing, _drop))
        await gate(http("POST", "/v1/banks/b/memories"), _nothing, _drop)
        if batch_ends:
            finish.set()
        await recall
        finish.set()
        await asyncio.to_thread(worker.join, 30)

    asyncio.run(main())
    return inner.seen


def test_a_recall_waits_for_the_batch_running() -> None:
    assert batch_then_recall(30.0, batch_ends=True) == [
        ("/healthz", False),
        ("/v1/banks/b/memories", True),
        ("/v1/banks/b/recall", False),
    ]


def test_a_recall_waits_no_longer_than_its_bound() -> None:
    assert batch_then_recall(0.05, batch_ends=False)[-1] == ("/v1/banks/b/recall", True)
