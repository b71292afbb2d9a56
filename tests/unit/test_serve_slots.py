"""`RecallSlots`: at most N recalls at once where serve hosts the worker; other
requests pass untouched. And embedded recall logs are capped (they live in memory)."""

import asyncio
from pathlib import Path

from starlette.types import Receive, Scope, Send

from sediment.bootstrap import IN_PROCESS_LOG_MAXLEN, bootstrap
from sediment.serve import RecallSlots, is_recall
from sediment.settings import Settings


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
    gate = RecallSlots(inner, slots)

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
