"""Event streams for the fault suite: deterministic events over several banks, sent at
a steady pace by a Celery producer (`worker.publish`, with the redelivery ledger) or
by an HTTP client of `sediment serve`; both resend what was refused until it is
taken, so "sent" means accepted by the broker or answered 202 by the API."""

import random
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

import httpx
from celery import Celery

from bench.reliability.cluster import TOKEN
from contracts.events import RetainEvent
from worker.consolidation.relations import memory_id
from worker.publish import publish

PEOPLE = ["Ada", "Bo", "Cleo", "Dev", "Eun", "Faro", "Gil", "Hana", "Ivo", "Juno"]
PLACES = ["Lisbon", "Oslo", "Kyoto", "Lima", "Accra", "Perth", "Quito", "Riga", "Hanoi"]
THINGS = ["violin lessons", "sourdough", "chess club", "a marathon", "pottery", "sailing"]
START = datetime(2024, 1, 1, tzinfo=UTC)


def make_events(prefix: str, n: int, banks: Sequence[str], seed: int = 7) -> list[RetainEvent]:
    rng = random.Random(seed)
    out = []
    for i in range(n):
        text = (
            f"{rng.choice(PEOPLE)} talked about {rng.choice(THINGS)} in {rng.choice(PLACES)} "
            f"(note {i} of {prefix})."
        )
        out.append(
            RetainEvent(
                event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{prefix}-{i}"),
                bank_id=banks[(i // 10) % len(banks)],
                kind="experience" if i % 5 == 0 else "world",
                text=text,
                occurred_at=START + timedelta(minutes=i),
            )
        )
    return out


def expected_ids(events: Sequence[RetainEvent]) -> set[uuid.UUID]:
    return {memory_id(e.bank_id, e.event_id) for e in events}


@dataclass
class Sent:
    """What a producer got accepted, and how often it had to resend."""

    events: list[RetainEvent] = field(default_factory=list)
    refused: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, events: Sequence[RetainEvent]) -> None:
        with self.lock:
            self.events.extend(events)


class Paced(threading.Thread):
    """Sends `events` in chunks over about `duration_s`, resending refused chunks."""

    def __init__(self, events: Sequence[RetainEvent], chunk: int, duration_s: float) -> None:
        super().__init__(daemon=True)
        self.todo = list(events)
        self.chunk = chunk
        self.gap = duration_s / max(1, len(self.todo) / chunk)
        self.sent = Sent()
        self.stopped = threading.Event()

    def send(self, events: Sequence[RetainEvent]) -> None:
        raise NotImplementedError

    def run(self) -> None:
        next_at = time.monotonic()
        for i in range(0, len(self.todo), self.chunk):
            part = self.todo[i : i + self.chunk]
            while not self.stopped.is_set():
                try:
                    self.send(part)
                    self.sent.add(part)
                    break
                except Exception:
                    self.sent.refused += 1
                    time.sleep(0.5)
            next_at += self.gap
            time.sleep(max(0.0, next_at - time.monotonic()))


class CeleryProducer(Paced):
    """A Python service publishing with `worker.publish`, `batch_size` events per message,
    `chunk` events per call."""

    def __init__(
        self,
        broker_url: str,
        queue: str,
        events: Sequence[RetainEvent],
        duration_s: float,
        batch_size: int = 10,
        chunk: int = 20,
    ) -> None:
        super().__init__(events, chunk=chunk, duration_s=duration_s)
        self.batch_size = batch_size
        self.app = Celery(broker=broker_url, set_as_current=False)
        self.app.conf.broker_connection_retry = False
        self.queue = queue

    def send(self, events: Sequence[RetainEvent]) -> None:
        publish(self.app, events, self.queue, batch_size=self.batch_size)


class HttpProducer(Paced):
    """A client of the HTTP API: one request per bank-chunk, resent until 202."""

    def __init__(self, base_url: str, events: Sequence[RetainEvent], duration_s: float) -> None:
        super().__init__(events, chunk=20, duration_s=duration_s)
        self.base_url = base_url
        self.client = httpx.Client(
            timeout=30, headers={"Authorization": f"Bearer {TOKEN}"}, transport=None
        )

    def send(self, events: Sequence[RetainEvent]) -> None:
        by_bank: dict[str, list[RetainEvent]] = {}
        for e in events:
            by_bank.setdefault(e.bank_id, []).append(e)
        for bank, items in by_bank.items():
            body = {"items": [e.model_dump(mode="json", exclude={"bank_id"}) for e in items]}
            r = self.client.post(f"{self.base_url}/v1/banks/{bank}/memories", json=body)
            if r.status_code != 202:
                raise RuntimeError(f"{r.status_code}: {r.text[:200]}")
