"""Messages Celery refuses before any task code runs: a body it cannot decode (not JSON,
a content type the worker does not accept), a task name no worker here knows, a message
in no known format. Celery logs and drops them; Sediment keeps them in the dead-letter
stream with the reason, so a producer's mistake is visible and can be replayed.

The hook is Celery's own: `worker_consumer` names the Consumer class a worker uses.
"""

import weakref
from collections.abc import Callable
from typing import Any

import structlog
from celery import Celery
from celery.worker.consumer import Consumer

log = structlog.get_logger("sediment.worker")

Reject = Callable[[str, str, str], None]
"""(task name, message body as text, reason)"""

BODY_CAP = 64 * 1024
_HANDLERS: "weakref.WeakKeyDictionary[Celery, Reject]" = weakref.WeakKeyDictionary()


def route_rejects(app: Celery, handler: Reject) -> None:
    _HANDLERS[app] = handler
    app.conf.worker_consumer = f"{__name__}:DeadLetteringConsumer"


def _text(body: object) -> str:
    if isinstance(body, bytes | bytearray):
        return bytes(body[:BODY_CAP]).decode("utf-8", errors="replace")
    return str(body)[:BODY_CAP]


class DeadLetteringConsumer(Consumer):  # type: ignore[misc]
    """Celery's consumer, plus a dead letter before each of its refusals."""

    def on_decode_error(self, message: Any, exc: Exception) -> None:
        reason = f"undecodable message (content type {message.content_type!r}): {exc}"
        self._dead_letter(message, message.body, reason)
        super().on_decode_error(message, exc)

    def on_unknown_message(self, body: Any, message: Any) -> None:
        self._dead_letter(message, message.body, "not a Celery task message")
        super().on_unknown_message(body, message)

    def on_unknown_task(self, body: Any, message: Any, exc: Exception) -> None:
        name = (message.headers or {}).get("task")
        reason = f"unknown task {name!r}: no such task is registered on Sediment's workers"
        self._dead_letter(message, message.body, reason)
        super().on_unknown_task(body, message, exc)

    def on_invalid_task(self, body: Any, message: Any, exc: Exception) -> None:
        reason = f"invalid task message (content type {message.content_type!r}): {exc}"
        self._dead_letter(message, message.body, reason)
        super().on_invalid_task(body, message, exc)

    def _dead_letter(self, message: Any, body: object, reason: str) -> None:
        handler = _HANDLERS.get(self.app)
        if handler is None:
            return
        task = str((getattr(message, "headers", None) or {}).get("task") or "unknown")
        try:
            handler(task, _text(body), reason)
        except Exception as exc:
            log.error("reject_not_dead_lettered", task=task, error=type(exc).__name__)
