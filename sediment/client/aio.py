"""`AsyncSedimentClient`: `SedimentClient` for asyncio, the same calls awaited."""

import asyncio
import uuid
from collections.abc import Awaitable, Callable, Sequence
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
from sediment.client.sync import DEFAULT_URL
from sediment.short_ids import parse_full
from telemetry.recall_logs import LastRecall

T = TypeVar("T")


class AsyncSedimentClient:
    """The arguments are `SedimentClient`'s; `sleep` is awaited."""

    def __init__(
        self,
        url: str = DEFAULT_URL,
        *,
        token: str | None = None,
        bank: str | None = None,
        timeout: float | httpx.Timeout = 10.0,
        retry: Retry | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.url = url.rstrip("/")
        self._http = httpx.AsyncClient(
            base_url=self.url, headers=headers, timeout=timeout, transport=transport
        )
        self._calls = Calls(bank)
        self._retry = retry or Retry()
        self._sleep = sleep

    async def __aenter__(self) -> "AsyncSedimentClient":
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _send(self, call: Call[T]) -> T:
        attempt = 1
        while True:
            try:
                response = await self._http.request(
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
            await self._sleep(wait)
            attempt += 1

    async def retain(
        self,
        text: str,
        *,
        bank: str | None = None,
        occurred_at: datetime | None = None,
        key: str | None = None,
        **fields: Any,
    ) -> RetainAccepted:
        return await self.retain_many([item(text, occurred_at, key=key, **fields)], bank=bank)

    async def retain_many(
        self, items: Sequence[RetainItem], *, bank: str | None = None
    ) -> RetainAccepted:
        return await self._send(self._calls.retain(items, bank))

    @overload
    async def recall(
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
    async def recall(
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

    async def recall(
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
        response = await self._send(self._calls.recall(recall_request(query, **given), bank))
        return response if full else compact(response)

    async def memory(self, memory_id: uuid.UUID | str, *, bank: str | None = None) -> MemoryView:
        return await self._send(self._calls.memory(memory_id, bank))

    async def feedback(
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
            memory_id = (await self.memory(memory_id, bank=bank)).memory.id
        return await self._send(self._calls.feedback(memory_id, vote, bank, session_key, event_id))

    async def banks(self) -> BankList:
        return await self._send(self._calls.banks())

    async def status(self, *, bank: str | None = None) -> BankStatus:
        return await self._send(self._calls.status(bank))

    async def forget(
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
        full = [
            parse_full(str(m)) or (await self.memory(m, bank=bank)).memory.id for m in memory_ids
        ]
        return await self._send(
            self._calls.forget(
                bank,
                forget_selector(
                    full, event_ids, tags, entities, start, end, source_id, all_memories
                ),
            )
        )

    async def stats(self, *, minutes: int = 15, bank: str | None = None) -> dict[str, Any]:
        return await self._send(self._calls.stats(minutes, bank))

    async def audit(self, *, bank: str | None = None, limit: int = 100) -> list[AuditEntry]:
        return await self._send(self._calls.audit(bank, limit))

    async def export(self, *, bank: str | None = None) -> str:
        return await self._send(self._calls.export(bank))

    async def last_recall(self, session_key: str, *, bank: str | None = None) -> LastRecall:
        return await self._send(self._calls.last_recall(bank, session_key))

    async def health(self) -> Health:
        return await self._send(self._calls.health())
