"""Auditing: every data change the one retain path accepts goes to the bank's audit
stream (telemetry/audit_log.py), with who asked for it.

`AuditedPublisher` wraps the process's `Publisher`: after a publish succeeds (the
events were accepted: stored here, or taken by the broker) it appends one entry per
bank and action, with the event and memory ids (capped) and counts, never text. A
publish that fails records nothing. Who asked is the `current_actor` of the call's
context (the API sets it per request from the key that authenticated it), or the
publisher's own actor (`cli`, `mcp`, `worker`). An audit write that fails is logged
and does not undo or fail the accepted change.
"""

import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from functools import partial
from typing import Protocol, TypeVar

import structlog

from contracts.audit import MAX_AUDIT_IDS, AuditAction, AuditEntry
from contracts.events import RetainEvent
from contracts.feedback import FeedbackEvent
from contracts.forget import ForgetEvent
from sediment.retain import Publisher
from telemetry.audit_log import AuditLog

log = structlog.get_logger("sediment.audit")

current_actor: ContextVar[str | None] = ContextVar("sediment_actor", default=None)


@contextmanager
def acting_as(actor: str) -> Iterator[None]:
    """Changes made within are recorded as `actor`'s."""
    token = current_actor.set(actor)
    try:
        yield
    finally:
        current_actor.reset(token)


class BankEvent(Protocol):
    @property
    def bank_id(self) -> str: ...


E = TypeVar("E", bound=BankEvent)


def _by_bank(events: Sequence[E]) -> dict[str, list[E]]:
    out: dict[str, list[E]] = {}
    for e in events:
        out.setdefault(e.bank_id, []).append(e)
    return out


@dataclass(frozen=True)
class Auditor:
    """Appends entries to `audit`; the actor is the context's, else `actor`."""

    audit: AuditLog
    actor: str
    clock: Callable[[], datetime] = field(default=partial(datetime.now, UTC))

    def record(
        self,
        bank_id: str,
        action: AuditAction,
        *,
        event_ids: Sequence[uuid.UUID] = (),
        memory_ids: Sequence[uuid.UUID] = (),
        counts: dict[str, int] | None = None,
    ) -> None:
        request_id = structlog.contextvars.get_contextvars().get("request_id")
        try:
            self.audit.append(
                AuditEntry(
                    at=self.clock(),
                    bank_id=bank_id,
                    actor=current_actor.get() or self.actor,
                    action=action,
                    event_ids=list(event_ids[:MAX_AUDIT_IDS]),
                    memory_ids=list(memory_ids[:MAX_AUDIT_IDS]),
                    counts=counts or {},
                    request_id=request_id if isinstance(request_id, str) else None,
                )
            )
        except Exception as exc:
            log.warning("audit_failed", bank_id=bank_id, action=action, error=type(exc).__name__)


@dataclass(frozen=True)
class AuditedPublisher:
    """A `Publisher` that records what it accepted. `retain_action` and `forget_action`
    name the entries (`import` for an import, `expire` for the expiry sweep)."""

    inner: Publisher
    auditor: Auditor
    retain_action: AuditAction = "retain"
    forget_action: AuditAction = "forget"

    @property
    def queued(self) -> bool:
        return self.inner.queued

    def recording(self, action: AuditAction) -> "AuditedPublisher":
        """The same publisher, recording retains and forgets as `action`."""
        return replace(self, retain_action=action, forget_action=action)

    def publish_retain(self, events: Sequence[RetainEvent]) -> int:
        taken = self.inner.publish_retain(events)
        banks = _by_bank(events)
        for bank, mine in banks.items():
            counts = {"events": len(mine)}
            if not self.queued and len(banks) == 1:
                counts["stored"] = taken
            ids = [e.event_id for e in mine]
            self.auditor.record(bank, self.retain_action, event_ids=ids, counts=counts)
        return taken

    def publish_feedback(self, events: Sequence[FeedbackEvent]) -> None:
        self.inner.publish_feedback(events)
        for bank, mine in _by_bank(events).items():
            self.auditor.record(
                bank,
                "feedback",
                event_ids=[e.event_id for e in mine],
                memory_ids=[e.memory_id for e in mine],
                counts={"votes": len(mine)},
            )

    def publish_forget(self, events: Sequence[ForgetEvent]) -> int:
        done = self.inner.publish_forget(events)
        for event in events:
            counts = {"memory_ids": len(event.memory_ids)}
            if event.filter is not None or event.all_memories:
                counts["filter" if event.filter is not None else "all_memories"] = 1
            if not self.queued and len(events) == 1:
                counts["forgotten"] = done
            self.auditor.record(
                event.bank_id,
                self.forget_action,
                event_ids=[event.event_id],
                memory_ids=event.memory_ids,
                counts=counts,
            )
        return done

    def broker_ok(self) -> bool:
        return self.inner.broker_ok()
