"""The HTTP API's calls as data: what to send and how to read the answer. The sync and
async clients differ only in how they send; building a call does no I/O, and every
id a retry must repeat (event ids, `occurred_at` defaulted to now) is fixed here,
before the first attempt."""

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Generic, TypeVar

import httpx
import pydantic

from contracts.audit import AuditEntry
from contracts.base import bank_id_problem
from contracts.events import RetainItem, derive_event_id
from contracts.feedback import Vote
from contracts.recall import RecallRequest, RecallResponse
from sediment.api.banks import BankList
from sediment.api.models import (
    BankStatus,
    FeedbackAccepted,
    FeedbackBody,
    ForgetAccepted,
    Health,
    MemoryView,
    RetainAccepted,
    RetainBody,
)
from sediment.client.errors import Unavailable, ValidationFailed, error_for, invalid_locally
from telemetry.recall_logs import LastRecall

T = TypeVar("T")


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[Any], T]
    body: Mapping[str, Any] | None = None
    answers: frozenset[int] = frozenset()
    """Error statuses whose body is the answer (503 from /healthz), never retried."""
    params: Mapping[str, Any] | None = None
    text: bool = False
    """The answer is read as text (an export's JSON lines), not as one JSON document."""

    def answer(self, response: httpx.Response) -> T:
        if response.is_success or response.status_code in self.answers:
            return self.read(response.text if self.text else response.json())
        raise error_for(response)


def with_event_id(bank: str, item: RetainItem) -> RetainItem:
    """The id the server would derive (bank, text, occurred_at), set here so the client
    knows it even when an answer is lost; an id the caller chose is kept."""
    if item.event_id is not None:
        return item
    when = item.occurred_at.astimezone(UTC).isoformat()
    return item.model_copy(update={"event_id": derive_event_id(bank, item.text, when)})


def item(text: str, occurred_at: datetime | None = None, **fields: Any) -> RetainItem:
    """A retain item; `occurred_at` defaults to now (taken once, here)."""
    data = {**fields, "text": text, "occurred_at": occurred_at or datetime.now(UTC)}
    return validated(RetainItem, "retain item", data)


class Calls:
    """`bank`: the bank of calls that name none."""

    def __init__(self, bank: str | None) -> None:
        self.bank = bank

    def _bank(self, bank: str | None) -> str:
        chosen = bank or self.bank
        if chosen is None:
            raise ValidationFailed("no bank: pass bank=..., or give the client a default bank")
        problem = bank_id_problem(chosen)
        if problem is not None:
            raise ValidationFailed(f"bank {problem}")
        return chosen

    def retain(self, items: Sequence[RetainItem], bank: str | None) -> Call[RetainAccepted]:
        bank_id = self._bank(bank)
        body = validated(
            RetainBody, "retain", {"items": [with_event_id(bank_id, i) for i in items]}
        )
        return Call(
            "POST",
            f"/v1/banks/{bank_id}/memories",
            RetainAccepted.model_validate,
            body.model_dump(mode="json", exclude_unset=True),
        )

    def recall(self, request: RecallRequest, bank: str | None) -> Call[RecallResponse]:
        return Call(
            "POST",
            f"/v1/banks/{self._bank(bank)}/recall",
            RecallResponse.model_validate,
            request.model_dump(mode="json", exclude_unset=True),
        )

    def memory(self, memory_id: uuid.UUID | str, bank: str | None) -> Call[MemoryView]:
        path = f"/v1/banks/{self._bank(bank)}/memories/{memory_ref(memory_id)}"
        return Call("GET", path, MemoryView.model_validate)

    def feedback(
        self,
        memory_id: uuid.UUID | str,
        vote: Vote,
        bank: str | None,
        session_key: str | None = None,
        event_id: uuid.UUID | None = None,
    ) -> Call[FeedbackAccepted]:
        """Without `event_id`, a new one: this vote, retried, still counts once."""
        fields = {
            "memory_id": memory_uuid(memory_id),
            "vote": vote,
            "session_key": session_key,
            "event_id": event_id or uuid.uuid4(),
        }
        body = validated(FeedbackBody, "feedback", fields)
        return Call(
            "POST",
            f"/v1/banks/{self._bank(bank)}/feedback",
            FeedbackAccepted.model_validate,
            body.model_dump(mode="json", exclude_none=True),
        )

    def banks(self) -> Call[BankList]:
        return Call("GET", "/v1/banks", BankList.model_validate)

    def status(self, bank: str | None) -> Call[BankStatus]:
        return Call("GET", f"/v1/banks/{self._bank(bank)}/status", BankStatus.model_validate)

    def forget(self, bank: str | None, selector: Mapping[str, Any]) -> Call[ForgetAccepted]:
        """`selector`: exactly one of `memory_ids` (full ids), `event_ids`, `filter`
        (tags, entities, start, end, source_id) or `all_memories`, as `POST .../forget`
        takes it (the server checks the rule, and names what is wrong)."""
        body = {k: _jsonable(v) for k, v in selector.items()}
        return Call(
            "POST", f"/v1/banks/{self._bank(bank)}/forget", ForgetAccepted.model_validate, body
        )

    def stats(self, minutes: int, bank: str | None) -> Call[dict[str, Any]]:
        params: dict[str, Any] = {"minutes": minutes, "slow": 0}
        if bank is not None:
            params["bank"] = self._bank(bank)
        return Call("GET", "/v1/stats", _as_dict, params=params)

    def audit(self, bank: str | None, limit: int) -> Call[list[AuditEntry]]:
        def read(body: Any) -> list[AuditEntry]:
            return [AuditEntry.model_validate(e) for e in body["entries"]]

        path = f"/v1/banks/{self._bank(bank)}/audit"
        return Call("GET", path, read, params={"limit": limit})

    def export(self, bank: str | None) -> Call[str]:
        return Call("GET", f"/v1/banks/{self._bank(bank)}/export", str, text=True)

    def last_recall(self, bank: str | None, session_key: str) -> Call[LastRecall]:
        path = f"/v1/banks/{self._bank(bank)}/last-recall"
        return Call("GET", path, LastRecall.model_validate, params={"session_key": session_key})

    def health(self) -> Call[Health]:
        return Call("GET", "/healthz", Health.model_validate, answers=frozenset({503}))


M = TypeVar("M", bound=pydantic.BaseModel)


def _as_dict(body: Any) -> dict[str, Any]:
    if not isinstance(body, dict):
        raise ValidationFailed(f"expected a JSON object, got {type(body).__name__}")
    return body


def _jsonable(value: Any) -> Any:
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items() if v is not None}
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, datetime):
        return value.isoformat()
    return value


def validated(model: type[M], what: str, data: Mapping[str, Any]) -> M:
    try:
        return model.model_validate(data)
    except pydantic.ValidationError as exc:
        raise invalid_locally(what, exc) from None


def memory_ref(memory_id: uuid.UUID | str) -> str:
    """A full id, or the short id a compact recall shows (the server resolves it)."""
    text = str(memory_id).strip()
    if not 4 <= len(text) <= 36 or not all(c in "0123456789abcdefABCDEF-" for c in text):
        raise ValidationFailed(f"memory_id {memory_id!r} is not a memory id")
    return text


def memory_uuid(memory_id: uuid.UUID | str) -> uuid.UUID:
    try:
        return memory_id if isinstance(memory_id, uuid.UUID) else uuid.UUID(memory_id)
    except ValueError:
        raise ValidationFailed(f"memory_id {memory_id!r} is not a UUID") from None


def recall_request(query: str | RecallRequest, **options: Any) -> RecallRequest:
    """A request from a query and options, or a request with options changed; checked
    here, so a bad one fails before it is sent."""
    given = query.model_dump(exclude_unset=True) if isinstance(query, RecallRequest) else {}
    query_text = query.query if isinstance(query, RecallRequest) else query
    return validated(RecallRequest, "recall", {**given, "query": query_text, **options})


def recall_options(
    limit: int | None,
    history: bool | None,
    as_of: datetime | None,
    explain: bool | None,
    session_key: str | None,
    **more: Any,
) -> dict[str, Any]:
    """The options given, as `RecallRequest` fields (the names HTTP, MCP and the CLI
    use: `tags`, `kinds`, `wait_for`, ...); the others keep their defaults."""
    given = {
        "limit": limit,
        "history": history,
        "as_of": as_of,
        "explain": explain,
        "session_key": session_key,
        **more,
    }
    return {k: v for k, v in given.items() if v is not None}


def unreachable(url: str, attempts: int, exc: httpx.TransportError) -> Unavailable:
    return Unavailable(
        f"no answer from {url} after {attempts} attempt(s): {type(exc).__name__}: {exc}"
    )


def forget_selector(
    memory_ids: Sequence[uuid.UUID],
    event_ids: Sequence[uuid.UUID],
    tags: Sequence[str],
    entities: Sequence[str],
    start: datetime | None,
    end: datetime | None,
    source_id: str | None,
    all_memories: bool,
) -> dict[str, Any]:
    """The body of `POST .../forget` for what was given (the server checks that it is
    exactly one selector)."""
    condition = {
        "tags": list(tags) or None,
        "entities": list(entities) or None,
        "start": start,
        "end": end,
        "source_id": source_id,
    }
    selector: dict[str, Any] = {}
    if memory_ids:
        selector["memory_ids"] = list(memory_ids)
    if event_ids:
        selector["event_ids"] = list(event_ids)
    if any(v is not None for v in condition.values()):
        selector["filter"] = {k: v for k, v in condition.items() if v is not None}
    if all_memories:
        selector["all_memories"] = True
    return selector
