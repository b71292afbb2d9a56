"""The MCP tools: typed signatures (the schemas clients see) over the HTTP API's deps.

Every call goes where the HTTP API's goes: retains and votes through the `Publisher`
(the Celery queue, or in-process consolidation for `sediment mcp` in embedded mode),
reads through the recall service and the store. A call the server cannot serve as
given raises `ToolError` with what was wrong; the SDK returns it as an `isError`
result and the server carries on. Messages name fields, ids and banks, never memory
or query text, because the SDK logs them (the SDK's own argument errors are rewritten
so, sediment/mcp_server.py). Redis, the broker or the store failing is not caught
here: the server says it for every tool in one place (`unavailable: ...`).

What the calls do is imported when a call needs it (the store port, the retain path,
the views): listing the tools takes the signatures only, so `sediment mcp` answers
`initialize` and `tools/list` before the store and the embedder are loaded.

Which banks a call may name: the caller's API key's (`current_key`, set per request
for /mcp), and for a server pinned to its default bank (`sediment mcp --bank B`
without --all-banks) that bank only. `banks` lists no other.
"""

import json
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Literal

import pydantic
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import CallToolResult, TextContent
from pydantic import AfterValidator, Field, StrictBool

from contracts.base import (
    BANK_ID_PATTERN,
    AwareDatetime,
    Number,
    WholeNumber,
    require_bank_id_or_none,
)
from contracts.feedback import FeedbackEvent, Vote
from contracts.memory import MemoryKind, State
from contracts.recall import MAX_LIMIT, MAX_WAIT_FOR, MAX_WAIT_S, RecallRequest
from sediment.api.compact import compact, structured, text_of
from sediment.api.keys import current_key
from sediment.api.models import MAX_ITEMS, MemoryView
from sediment.mcp_tools.errors import bad_fields, invalid
from sediment.mcp_tools.items import to_events
from sediment.mcp_tools.models import Banks, BankStats, Forgot, MemoryItem, Retained, Voted
from sediment.recall_defaults import surface_default
from sediment.recall_waits import TooManyWaiters
from telemetry.metrics import EVENTS, RECALLS

if TYPE_CHECKING:
    from sediment.api.deps import ApiDeps

Bank = Annotated[
    str | None,
    Field(
        pattern=BANK_ID_PATTERN,
        description="the bank (a memory space); default: the server's",
    ),
    AfterValidator(require_bank_id_or_none),
]
MemoryId = Annotated[
    str,
    Field(
        min_length=4,
        max_length=36,
        description="a memory id, short (as recall shows it) or full",
    ),
]
INTERNALS = {"features", "slot_keys"}
"""Derived fields of a stored memory that say nothing to an agent; `inspect` shows them
with `raw`."""
NO_BANK = (
    "no bank given and this server has no default bank: pass `bank`, or start the "
    "server with --bank / SEDIMENT_MCP_BANK"
)


def pinned_elsewhere(bank_id: str, pinned: str) -> str:
    return (
        f"bank {bank_id!r} is not served here: this server is pinned to bank {pinned!r} "
        "(sediment mcp --bank); omit `bank`, or start the server with --all-banks"
    )


class SedimentTools:
    """`deps`: the HTTP API's, or what gives them when a call first needs them (the
    stdio server builds them while it answers `initialize`). `immediate`: retains and
    votes are applied before the call returns (in-process consolidation), so the
    results say `consolidated`/`counted`, not `queued`. `pinned`: every call is to
    `default_bank`; a call naming another is refused."""

    def __init__(
        self,
        deps: "ApiDeps | Callable[[], ApiDeps]",
        default_bank: str | None,
        immediate: bool,
        pinned: bool = False,
    ) -> None:
        if pinned and default_bank is None:
            raise ValueError("a server pinned to a bank needs that bank as its default")
        self._deps_of = deps if callable(deps) else lambda: deps
        self.default_bank = default_bank
        self._immediate = immediate
        self.pinned = pinned

    @property
    def _deps(self) -> "ApiDeps":
        return self._deps_of()

    def bank_of(self, bank: str | None) -> str:
        """The call's bank, or a tool error when it names none and there is no default,
        or names a bank this server or the caller's key does not open."""
        bank_id = bank if bank is not None else self.default_bank
        if bank_id is None:
            raise ToolError(NO_BANK)
        if self.pinned and bank_id != self.default_bank:
            raise ToolError(pinned_elsewhere(bank_id, str(self.default_bank)))
        key = current_key.get()
        if key is not None and not key.opens(bank_id):
            raise ToolError(f"{key.refusal(bank_id)}: name one of those banks in `bank`")
        return bank_id

    def opens(self, bank_id: str) -> bool:
        key = current_key.get()
        if self.pinned and bank_id != self.default_bank:
            return False
        return key is None or key.opens(bank_id)

    def retain(
        self,
        items: Annotated[
            list[MemoryItem],
            Field(min_length=1, max_length=MAX_ITEMS, description="one or more facts"),
        ],
        bank: Bank = None,
    ) -> Annotated[CallToolResult, Retained]:
        """Remember facts. Give a `key` (e.g. 'alice.city') to a value that can change,
        and `occurred_at` to what did not happen just now: the later state replaces the
        earlier in recall."""
        bank_id = self.bank_of(bank)
        deps = self._deps
        with deps.service.slow_calls.timed("mcp.retain", bank_id, {"items": len(items)}):
            events = to_events(bank_id, items, deps.max_text_bytes, datetime.now(UTC))
            deps.publisher.publish_retain(events)
        ids = [e.event_id for e in events]
        if not self._immediate:
            return answered(Retained(bank=bank_id, event_ids=ids, status="queued"))
        from sediment.api.outcomes import outcomes

        said = [o.said for o in outcomes(deps.store, bank_id, ids)]
        return answered(Retained(bank=bank_id, event_ids=ids, status="consolidated", outcomes=said))

    async def recall(
        self,
        query: Annotated[str, Field(min_length=1, max_length=4096, description="what to find")],
        bank: Bank = None,
        limit: Annotated[
            int, Field(ge=1, le=MAX_LIMIT, description="most results"), WholeNumber
        ] = 10,
        kinds: Annotated[
            Sequence[MemoryKind], Field(max_length=3, description="only these kinds")
        ] = (),
        tags: Annotated[Sequence[str], Field(max_length=32, description="only these tags")] = (),
        tags_match: Annotated[
            Literal["any", "all"], Field(description="a result needs any or all of the tags")
        ] = "any",
        start: Annotated[
            AwareDatetime | None, Field(description="only what occurred from this time")
        ] = None,
        end: Annotated[
            AwareDatetime | None, Field(description="only what occurred up to this time")
        ] = None,
        as_of: Annotated[
            AwareDatetime | None, Field(description="the state as it was at this time")
        ] = None,
        history: Annotated[StrictBool, Field(description="superseded states too")] = False,
        explain: Annotated[
            StrictBool, Field(description="score components and stage timings")
        ] = False,
        session_key: Annotated[
            str | None, Field(max_length=256, description="groups recalls of one conversation")
        ] = None,
        max_tokens: Annotated[
            int | None,
            Field(ge=1, le=100_000, description="budget for the results' text"),
            WholeNumber,
        ] = None,
        prefer_observations: Annotated[
            StrictBool, Field(description="an observation in place of its sources")
        ] = True,
        full_text: Annotated[
            StrictBool,
            Field(description="whole texts, not the passage that matched"),
        ] = False,
        wait_for: Annotated[
            Sequence[uuid.UUID],
            Field(
                max_length=MAX_WAIT_FOR,
                description="retain's event ids: recall once they are in",
            ),
        ] = (),
        wait_timeout_s: Annotated[
            Number, Field(ge=0, le=MAX_WAIT_S, description="longest wait for `wait_for`")
        ] = 5.0,
        min_score: Annotated[
            Number, Field(ge=0, le=10, description="leave out scores below this instead")
        ] = 0.0,
        all: Annotated[
            StrictBool, Field(description="also results without topical evidence")
        ] = False,
    ) -> CallToolResult:
        """Find what the bank knows: current states, results without topical evidence left
        out. One line per result: id, date, score, text, the state when not current; a
        last line for low confidence. `explain` adds scores and timings as structured
        content."""
        if not query.strip():
            raise ToolError("invalid recall: query: is blank; say what to look for")
        try:
            request = RecallRequest(
                query=query,
                limit=limit,
                kinds=list(kinds),
                tags=list(tags),
                tags_match=tags_match,
                start=start,
                end=end,
                as_of=as_of,
                history=history,
                explain=explain,
                session_key=session_key,
                max_tokens=max_tokens,
                prefer_observations=prefer_observations,
                full_text=full_text,
                wait_for=list(wait_for),
                wait_timeout_s=wait_timeout_s,
                min_score=min_score,
                all=True if all else None,
            )
        except pydantic.ValidationError as exc:
            raise invalid("recall", bad_fields(exc)) from None
        try:
            found = await self._deps.recall_served(self.bank_of(bank), surface_default(request))
        except TooManyWaiters as exc:
            raise ToolError(f"refused recall: {exc}") from None
        text = [TextContent(type="text", text=text_of(found))]
        if not explain:
            return CallToolResult(content=text)
        return CallToolResult(content=text, structured_content=structured(compact(found)))

    def inspect(
        self,
        memory_id: MemoryId,
        bank: Bank = None,
        raw: Annotated[StrictBool, Field(description="every stored field, internals too")] = False,
    ) -> Annotated[CallToolResult, MemoryView]:
        """One memory with its provenance (an observation's sources), what it replaced,
        what replaced it and why, and its newer states."""
        from sediment.api.views import memory_view
        from sediment.mcp_tools.story import story

        bank_id = self.bank_of(bank)
        found_id = self.memory_of("inspect", bank_id, memory_id)
        with self._deps.service.slow_calls.timed("mcp.inspect", bank_id):
            view = memory_view(self._deps.store, bank_id, found_id)
        if view is None:
            raise ToolError(not_found(bank_id, found_id))
        hidden = None if raw else {"memory": INTERNALS}
        data = view.model_dump(mode="json", exclude_none=True, exclude=hidden)
        return CallToolResult(
            content=[TextContent(type="text", text=story(view))], structured_content=data
        )

    def memory_of(self, tool: str, bank_id: str, memory_id: str) -> uuid.UUID:
        """The memory a short or full id names in the bank, or a tool error saying why."""
        from sediment.memory_ids import MemoryIdError, resolve

        try:
            return resolve(self._deps.store, bank_id, memory_id)
        except MemoryIdError as exc:
            raise invalid(tool, [f"memory_id: {exc.problem}"]) from None

    def feedback(
        self,
        memory_id: MemoryId,
        vote: Annotated[
            Vote, Field(description="up: helpful; down: wrong; not_useful: beside the point")
        ],
        bank: Bank = None,
        session_key: Annotated[str | None, Field(min_length=1, max_length=256)] = None,
        event_id: Annotated[
            uuid.UUID | None, Field(description="idempotency key: a vote counts once per id")
        ] = None,
    ) -> Annotated[CallToolResult, Voted]:
        """Vote on a recalled memory; votes nudge its later ranking, within bounds."""
        bank_id = self.bank_of(bank)
        deps = self._deps
        found_id = self.memory_of("feedback", bank_id, memory_id)
        if not deps.store.fetch(bank_id, [found_id]):
            raise ToolError(not_found(bank_id, found_id))
        event = FeedbackEvent(
            event_id=event_id or uuid.uuid4(),
            bank_id=bank_id,
            memory_id=found_id,
            vote=vote,
            occurred_at=datetime.now(UTC),
            session_key=session_key,
        )
        deps.publisher.publish_feedback([event])
        status = "counted" if self._immediate else "queued"
        return answered(Voted(bank=bank_id, event_id=event.event_id, status=status))

    def forget(
        self,
        memory_ids: Annotated[
            list[str],
            Field(max_length=1000, description="memories to forget (short or full ids)"),
        ] = [],  # noqa: B006
        tags: Annotated[list[str], Field(description="or: memories with any of these tags")] = [],  # noqa: B006
        source_id: Annotated[str | None, Field(description="or: metadata.source_id")] = None,
        bank: Bank = None,
    ) -> Annotated[CallToolResult, Forgot]:
        """Forget memories for good (by ids, or by tags and/or source id): they leave
        recall, observations and histories, and a replayed retain never brings them back."""
        from sediment.forgetting import NotHeldError, forget_event, require_held

        bank_id = self.bank_of(bank)
        ids = [self.memory_of("forget", bank_id, m) for m in memory_ids]
        try:
            require_held(self._deps.store, bank_id, ids)
        except NotHeldError as exc:
            raise ToolError(str(exc)) from None
        try:
            event = forget_event(bank_id, memory_ids=ids, tags=tags, source_id=source_id)
        except pydantic.ValidationError as exc:
            raise invalid("forget", bad_fields(exc)) from None
        counted = self._deps.publisher.publish_forget([event])
        if self._immediate:
            return answered(
                Forgot(bank=bank_id, event_id=event.event_id, status="forgotten", forgotten=counted)
            )
        return answered(Forgot(bank=bank_id, event_id=event.event_id, status="queued"))

    def stats(
        self,
        bank: Bank = None,
        minutes: Annotated[
            int, Field(ge=1, le=1440, description="activity window"), WholeNumber
        ] = 60,
    ) -> Annotated[CallToolResult, BankStats]:
        """How much the bank holds, and how much it was written and read lately."""
        from readmodel.store import Filter
        from worker.consolidation.neighbourhood import RAW_KINDS

        bank_id = self.bank_of(bank)
        store, snapshot = self._deps.store, self._deps.metrics.snapshot(minutes, bank_id)
        counts = BankStats(
            bank=bank_id,
            memories=store.count(Filter(bank_id, kinds=RAW_KINDS)),
            observations=store.count(Filter(bank_id, kinds=("observation",))),
            superseded=store.count(Filter(bank_id, state=State.SUPERSEDED)),
            minutes=minutes,
            retained=snapshot.total(EVENTS, outcome="stored"),
            recalls=snapshot.total(RECALLS),
        )
        return answered(counts)

    def banks(self) -> Annotated[CallToolResult, Banks]:
        """The banks that hold memories that this call may name, and the default bank."""
        listed = sorted(b for b in self._deps.store.banks() if self.opens(b))
        default = self.default_bank if self.default_bank and self.opens(self.default_bank) else None
        return answered(Banks(banks=listed, default_bank=default))


def answered(result: pydantic.BaseModel) -> CallToolResult:
    """The result as structured content, and as one line of JSON for the model to read
    (the SDK would write it indented, a third longer)."""
    data = result.model_dump(mode="json")
    text = json.dumps(data, separators=(",", ":"))
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=data)


TOOL_SCOPES: dict[str, str] = {
    "retain": "write",
    "recall": "read",
    "inspect": "read",
    "feedback": "write",
    "forget": "forget",
    "stats": "read",
    "banks": "read",
}
"""The API-key scope each tool needs, as the HTTP route doing the same needs it."""


def scope_refusal(tool: str) -> str | None:
    """Why the caller's key may not call `tool` (naming the missing scope); None when it
    may, or when no key is in play (the token, an open API, stdio)."""
    key = current_key.get()
    scope = TOOL_SCOPES.get(tool, "admin")
    if key is None or key.grants(scope):
        return None
    return (
        f"API key {key.name!r} lacks the {scope!r} scope that {tool} needs "
        f"(it has {', '.join(key.scopes)})"
    )


def not_found(bank_id: str, memory_id: uuid.UUID) -> str:
    return (
        f"no memory {memory_id} in bank {bank_id}: check the id, and that it belongs to "
        "this bank (a memory is only visible within its own bank)"
    )
