"""`SedimentClient`: the HTTP API from Python, blocking, on httpx."""

import time
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from types import TracebackType
from typing import Any, Literal, TypeVar, overload

import httpx

from contracts.audit import AuditEntry
from contracts.events import RetainItem
from contracts.feedback import Vote
from contracts.memory import MemoryKind
from contracts.recall import RecallRequest, RecallResponse
from sediment.api.banks import BankList
from sediment.api.compact import Recalled, compact
from sediment.api.models import (
    BankStatus,
    FeedbackAccepted,
    ForgetAccepted,
    Health,
    MemoryView,
    RetainAccepted,
)
from sediment.client.calls import (
    Call,
    Calls,
    forget_selector,
    item,
    recall_options,
    recall_request,
    unreachable,
)
from sediment.client.retry import Retry
from sediment.short_ids import parse_full
from telemetry.recall_logs import LastRecall

T = TypeVar("T")
DEFAULT_URL = "http://127.0.0.1:8000"


class SedimentClient:
    """`token`: SEDIMENT_API_TOKEN of the server; `bank`: the bank of calls that name
    none; `timeout`: seconds per attempt (or an `httpx.Timeout`); `retry`: see `Retry`.
    `transport` and `sleep` replace the network and the clock (tests, proxies)."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        token: str | None = None,
        bank: str | None = None,
        timeout: float | httpx.Timeout = 10.0,
        retry: Retry | None = None,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self._http = httpx.Client(
            base_url=self.url, headers=headers, timeout=timeout, transport=transport
        )
        self._calls = Calls(bank)
        self._retry = retry or Retry()
        self._sleep = sleep

    def __enter__(self) -> "SedimentClient":
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    def _send(self, call: Call[T]) -> T:
        attempt = 1
        while True:
            try:
                response = self._http.request(
                    call.method, call.path, json=call.body, params=call.params
                )
            except httpx.TransportError as exc:
                wait = self._retry.after(attempt, None, None)
                if wait is None:
                    raise unreachable(self.url, attempt, exc) from exc
            else:
                status = response.status_code
                wait = (
                    None
                    if status in call.answers
                    else self._retry.after(attempt, status, response.headers.get("retry-after"))
                )
                if wait is None:
                    return call.answer(response)
            self._sleep(wait)
            attempt += 1

    def retain(
        self,
        text: str,
        *,
        bank: str | None = None,
        occurred_at: datetime | None = None,
        key: str | None = None,
        **fields: Any,
    ) -> RetainAccepted:
        """One fact; `occurred_at` defaults to now, `fields` are `RetainItem`'s others."""
        return self.retain_many([item(text, occurred_at, key=key, **fields)], bank=bank)

    def retain_many(
        self, items: Sequence[RetainItem], *, bank: str | None = None
    ) -> RetainAccepted:
        """Many facts in one request; each gets its event id before the first attempt."""
        return self._send(self._calls.retain(items, bank))

    @overload
    def recall(
        self,
        query: str | RecallRequest,
        *,
        bank: str | None = None,
        limit: int | None = None,
        history: bool | None = None,
        as_of: datetime | None = None,
        explain: bool | None = None,
        session_key: str | None = None,
        tags: Sequence[str] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        wait_for: Sequence[uuid.UUID] | None = None,
        wait_timeout_s: float | None = None,
        full: Literal[False] = False,
        **options: Any,
    ) -> Recalled: ...

    @overload
    def recall(
        self,
        query: str | RecallRequest,
        *,
        bank: str | None = None,
        limit: int | None = None,
        history: bool | None = None,
        as_of: datetime | None = None,
        explain: bool | None = None,
        session_key: str | None = None,
        tags: Sequence[str] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        wait_for: Sequence[uuid.UUID] | None = None,
        wait_timeout_s: float | None = None,
        full: Literal[True],
        **options: Any,
    ) -> RecallResponse: ...

    def recall(
        self,
        query: str | RecallRequest,
        *,
        bank: str | None = None,
        limit: int | None = None,
        history: bool | None = None,
        as_of: datetime | None = None,
        explain: bool | None = None,
        session_key: str | None = None,
        tags: Sequence[str] | None = None,
        kinds: Sequence[MemoryKind] | None = None,
        wait_for: Sequence[uuid.UUID] | None = None,
        wait_timeout_s: float | None = None,
        full: bool = False,
        **options: Any,
    ) -> Recalled | RecallResponse:
        """A query and the recall options (the names every surface uses), or a whole
        `RecallRequest`. The answer is compact by default (`Recalled`: per result the
        short id, date, kind, text and state; scores and timings with `explain`), sized
        for an agent's context; `full=True` returns the whole `RecallResponse`."""
        given = recall_options(
            limit,
            history,
            as_of,
            explain,
            session_key,
            tags=list(tags) if tags is not None else None,
            kinds=list(kinds) if kinds is not None else None,
            wait_for=list(wait_for) if wait_for is not None else None,
            wait_timeout_s=wait_timeout_s,
            **options,
        )
        response = self._send(self._calls.recall(recall_request(query, **given), bank))
        return response if full else compact(response)

    def memory(self, memory_id: uuid.UUID | str, *, bank: str | None = None) -> MemoryView:
        """A memory with its provenance, edges and newer states (`NotFound` if none)."""
        return self._send(self._calls.memory(memory_id, bank))

    def feedback(
        self,
        memory_id: uuid.UUID | str,
        vote: Vote,
        *,
        bank: str | None = None,
        session_key: str | None = None,
        event_id: uuid.UUID | None = None,
    ) -> FeedbackAccepted:
        """A short id (as a compact recall shows it) is looked up first."""
        if parse_full(str(memory_id)) is None:
            memory_id = self.memory(memory_id, bank=bank).memory.id
        return self._send(self._calls.feedback(memory_id, vote, bank, session_key, event_id))

    def banks(self) -> BankList:
        """The banks holding memories that this client's key may read, with counts."""
        return self._send(self._calls.banks())

    def status(self, *, bank: str | None = None) -> BankStatus:
        """The bank's watermark: how many accepted events are not consolidated yet
        (`pending`), and its memory and observation counts."""
        return self._send(self._calls.status(bank))

    def forget(
        self,
        *,
        bank: str | None = None,
        memory_ids: Sequence[uuid.UUID | str] = (),
        event_ids: Sequence[uuid.UUID] = (),
        tags: Sequence[str] = (),
        entities: Sequence[str] = (),
        start: datetime | None = None,
        end: datetime | None = None,
        source_id: str | None = None,
        all_memories: bool = False,
    ) -> ForgetAccepted:
        """Forget by ids (a short id is looked up first), by event ids, by a filter, or
        the whole bank (`all_memories`): exactly one of them."""
        full = [parse_full(str(m)) or (self.memory(m, bank=bank)).memory.id for m in memory_ids]
        return self._send(
            self._calls.forget(
                bank,
                forget_selector(
                    full, event_ids, tags, entities, start, end, source_id, all_memories
                ),
            )
        )

    def stats(self, *, minutes: int = 15, bank: str | None = None) -> dict[str, Any]:
        """The `/v1/stats` snapshot (what `sediment stats --json` prints)."""
        return self._send(self._calls.stats(minutes, bank))

    def audit(self, *, bank: str | None = None, limit: int = 100) -> list[AuditEntry]:
        return self._send(self._calls.audit(bank, limit))

    def export(self, *, bank: str | None = None) -> str:
        """The bank's export: JSON lines ending with the trailer `sediment import` checks."""
        return self._send(self._calls.export(bank))

    def last_recall(self, session_key: str, *, bank: str | None = None) -> LastRecall:
        return self._send(self._calls.last_recall(bank, session_key))

    def health(self) -> Health:
        return self._send(self._calls.health())
