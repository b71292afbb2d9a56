"""Forget with retains in flight: a forget of a whole bank published while retains
accepted before it are still on their way (held back here by a countdown, as a retry
holds them), then retains accepted after it. A live `sediment worker` handles the
forget first; the held retains land after it and must be forgotten (the forget's rule,
worker/forget_rules.py), the later ones kept. The same check, small, runs with the
tests: tests/integration/test_forget_in_flight.py.
"""

import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from celery import Celery

from bench.reliability.cluster import Broker, Node, Proc, RedisServer, running, wait_for
from contracts.events import RetainEvent
from readmodel.store import Filter
from sediment.forgetting import forget
from worker.celery_app import PUBLISHED_AT_HEADER, RETAIN_TASK
from worker.tombstones import RULES_KEY, TOMBSTONES_KEY

HOLD_S = 5
SETTLE_S = 300.0


@dataclass
class ForgetInFlight:
    """Per bank forgotten: retains accepted before the forget and delivered after it
    (`held_*`), retains accepted after it (`later_*`); `stored`: raw memories of each
    kind in the store at the end. `held_after_forget`: held retains that were still
    queued when the forget had been handled (the case really happened)."""

    banks: int
    held_sent: int = 0
    held_after_forget: int = 0
    held_stored: int = 0
    later_sent: int = 0
    later_stored: int = 0


def _events(bank: str, tag: str, n: int) -> list[RetainEvent]:
    start = datetime(2024, 5, 1, tzinfo=UTC)
    return [
        RetainEvent(
            event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{bank}-{tag}-{i}"),
            bank_id=bank,
            text=f"Erin filed note {tag} {i} in drawer {uuid.uuid4().hex[:6]}.",
            occurred_at=start + timedelta(minutes=i),
        )
        for i in range(n)
    ]


def forget_in_flight(
    server: RedisServer, workdir: Path, banks: int, per_bank: int
) -> ForgetInFlight:
    node = Node(server.url, workdir, "forget-in-flight")
    broker = Broker(server.client(), node.queue)
    publisher = node.runtime().publisher
    producer = Celery(broker=server.url, set_as_current=False)
    result = ForgetInFlight(banks)
    held: dict[str, list[RetainEvent]] = {}
    later: dict[str, list[RetainEvent]] = {}
    with running(Proc.worker(node)):
        for b in range(banks):
            bank = f"in-flight-{b}"
            held[bank], later[bank] = (
                _events(bank, "held", per_bank),
                _events(bank, "later", per_bank),
            )
            for e in held[bank]:
                producer.send_task(
                    RETAIN_TASK,
                    args=[e.model_dump(mode="json")],
                    queue=node.queue,
                    headers={PUBLISHED_AT_HEADER: time.time()},
                    countdown=HOLD_S,
                )
            forget(publisher, bank, everything=True)
            wait_for(partial(_ruled, broker, bank), SETTLE_S, "the forget")
            result.held_after_forget += _not_handled(broker, bank, held[bank])
            publisher.publish_retain(later[bank])
        wait_for(broker.settled, SETTLE_S, "the held and later retains")
    return _counted(node, result, held, later)


def _ruled(broker: Broker, bank: str) -> bool:
    return bool(broker.client.exists(RULES_KEY.format(bank=bank)))


def _not_handled(broker: Broker, bank: str, events: list[RetainEvent]) -> int:
    """Held retains the forget found neither stored nor tombstoned: still in flight."""
    stones = int(broker.client.hlen(TOMBSTONES_KEY.format(bank=bank)))
    return max(0, len(events) - stones)


def _counted(
    node: Node,
    result: ForgetInFlight,
    held: dict[str, list[RetainEvent]],
    later: dict[str, list[RetainEvent]],
) -> ForgetInFlight:
    rt = node.runtime()
    try:
        for bank in held:
            ids = {p.record.event_id for p in rt.store.scroll(Filter(bank))}
            result.held_sent += len(held[bank])
            result.held_stored += sum(e.event_id in ids for e in held[bank])
            result.later_sent += len(later[bank])
            result.later_stored += sum(e.event_id in ids for e in later[bank])
    finally:
        rt.close()
    return result


def in_flight_verdicts(f: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) rows of the summary table."""
    return [
        (
            "retains accepted before a bank forget and delivered after it, left stored",
            f"{f['held_stored']} of {f['held_sent']} ({f['held_after_forget']} still queued "
            "when the forget was handled)",
            "0",
            f["held_stored"] == 0 and f["held_after_forget"] > 0,
        ),
        (
            "retains accepted after the forget, stored",
            f"{f['later_stored']} of {f['later_sent']}",
            f"= {f['later_sent']}",
            f["later_stored"] == f["later_sent"],
        ),
    ]


def in_flight_section(f: dict[str, Any]) -> list[str]:
    ran = f.get("ran_alone")
    return [
        "",
        "## Forget with retains in flight",
        "",
        f"{f['banks']} banks on a node of their own, each: retains published with their",
        f"acceptance time and held back {HOLD_S} s (as a retry holds a message), then a",
        "forget of the whole bank, handled by a live `sediment worker` while they wait,",
        "then retains published after the forget. The held retains land after the forget",
        "and are forgotten by the rule it left (worker/forget_rules.py); the later ones",
        "are kept.",
        "",
        f"Held: {f['held_sent']} sent, {f['held_after_forget']} still queued when the",
        f"forget was handled, {f['held_stored']} stored at the end. Later: "
        f"{f['later_stored']} of {f['later_sent']} stored.",
        *([f"This scenario ran on its own ({ran[0]} on {ran[1]})."] if ran else []),
        "The same check runs with the tests: `tests/integration/test_forget_in_flight.py`.",
    ]
