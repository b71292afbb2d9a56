"""A recall with `wait_for` waits for its events holding no recall slot, so one tenant's
parked waiters cannot stall another tenant's recall; and waiters are bounded per key
and per bank, with a 429 (an MCP tool error) naming the bound past it."""

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import fakeredis
import httpx
import pytest
from mcp import Client

from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, digest
from sediment.mcp_server import build_server
from sediment.mcp_tools.tools import SedimentTools
from sediment.pending import PendingWrites
from sediment.recall_gate import RecallGate
from sediment.recall_waits import Waiters
from tests.unit.api_support import RecordingPublisher, seeded_runtime
from tests.unit.test_pending import owe
from worker.ledger import Kind, Ledger, event_key

KEYS = (
    ApiKey(name="tenant-a", sha256=digest("secret-a"), banks=("b1",), scopes=("read", "write")),
    ApiKey(name="tenant-b", sha256=digest("secret-b"), banks=("b2", "b1"), scopes=("read",)),
    ApiKey(name="tenant-c", sha256=digest("secret-c"), banks=("b1",), scopes=("read",)),
)


@dataclass
class Served:
    deps: ApiDeps
    ledger: Ledger
    gate: RecallGate


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    rt = seeded_runtime(tmp_path)
    ledger = Ledger(fakeredis.FakeRedis())
    gate = RecallGate(2)
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_keys=KEYS,
        pending=PendingWrites(ledger),
        recall_gate=gate,
        waiters=Waiters(per_key=2, per_bank=3),
    )
    yield Served(deps, ledger, gate)
    rt.close()


def client(deps: ApiDeps, secret: str) -> httpx.AsyncClient:
    transport = httpx.ASGITransport(app=create_app(deps))
    headers = {"Authorization": f"Bearer {secret}"}
    return httpx.AsyncClient(transport=transport, base_url="http://api", headers=headers)


def waiting_for(event: uuid.UUID) -> dict[str, Any]:
    return {"query": "Alice", "wait_for": [str(event)], "wait_timeout_s": 30}


async def parked(deps: ApiDeps, bank: str, count: int) -> None:
    """Until `count` recalls wait on `bank`."""
    while deps.waiters.waiting(bank_id=bank) < count:
        await asyncio.sleep(0.01)


def test_parked_waiters_hold_no_slot_and_another_tenant_recalls(served: Served) -> None:
    """Tenant A parks as many waiters as there are slots behind an event not yet
    consolidated; tenant B's recall is answered while they still wait, because none of
    them holds a slot."""
    event = uuid.uuid4()
    owe(served.ledger, "b1", event)

    async def run() -> tuple[int, int, bool, list[int]]:
        async with client(served.deps, "secret-a") as a, client(served.deps, "secret-b") as b:
            waiters = [
                asyncio.create_task(a.post("/v1/banks/b1/recall", json=waiting_for(event)))
                for _ in range(2)
            ]
            await parked(served.deps, "b1", 2)
            held_while_waiting = served.gate.held
            other = await b.post("/v1/banks/b2/recall", json={"query": "Alice"})
            still_waiting = not any(w.done() for w in waiters)
            served.ledger.settle(Kind.RETAIN, [event_key("b1", event)])
            answers = await asyncio.gather(*waiters)
            return (
                held_while_waiting,
                other.status_code,
                still_waiting,
                [r.status_code for r in answers],
            )

    held, other, still_waiting, answers = asyncio.run(run())
    assert held == 0, "a recall waiting for its events holds no recall slot"
    assert other == 200 and still_waiting
    assert answers == [200, 200]
    assert served.deps.waiters.waiting() == 0


def test_one_waiter_past_the_keys_bound_is_429(served: Served) -> None:
    event = uuid.uuid4()
    owe(served.ledger, "b1", event)

    async def run() -> httpx.Response:
        async with client(served.deps, "secret-a") as a:
            waiters = [
                asyncio.create_task(a.post("/v1/banks/b1/recall", json=waiting_for(event)))
                for _ in range(2)
            ]
            await parked(served.deps, "b1", 2)
            refused = await a.post("/v1/banks/b1/recall", json=waiting_for(event))
            plain = await a.post("/v1/banks/b1/recall", json={"query": "Alice"})
            assert plain.status_code == 200, "a recall without wait_for is not counted"
            served.ledger.settle(Kind.RETAIN, [event_key("b1", event)])
            await asyncio.gather(*waiters)
            return refused

    refused = asyncio.run(run())
    assert refused.status_code == 429
    body = refused.json()
    assert body["error"] == "too_many_requests"
    assert "for API key 'tenant-a': at most 2" in body["message"]
    assert "SEDIMENT_RECALL_WAITERS_PER_KEY" in body["message"]
    assert "recall without wait_for" in body["message"]


def test_one_waiter_past_the_banks_bound_is_429_whichever_key(served: Served) -> None:
    event = uuid.uuid4()
    owe(served.ledger, "b1", event)

    async def run() -> httpx.Response:
        async with (
            client(served.deps, "secret-a") as a,
            client(served.deps, "secret-b") as b,
            client(served.deps, "secret-c") as c,
        ):
            waiters = [
                asyncio.create_task(k.post("/v1/banks/b1/recall", json=waiting_for(event)))
                for k in (a, a, b)
            ]
            await parked(served.deps, "b1", 3)
            refused = await c.post("/v1/banks/b1/recall", json=waiting_for(event))
            served.ledger.settle(Kind.RETAIN, [event_key("b1", event)])
            await asyncio.gather(*waiters)
            return refused

    refused = asyncio.run(run())
    assert refused.status_code == 429
    assert "on bank 'b1': at most 3" in refused.json()["message"]
    assert "SEDIMENT_RECALL_WAITERS_PER_BANK" in refused.json()["message"]


def test_mcp_waiters_share_the_bound_and_hold_no_slot(served: Served) -> None:
    """The MCP `recall` tool waits as POST .../recall does: outside any slot, counted
    among the same waiters, refused past the bound with a tool error saying which."""
    event = uuid.uuid4()
    owe(served.ledger, "b1", event)
    tools = SedimentTools(served.deps, "b1", immediate=False)
    arguments = {"query": "Alice", "wait_for": [str(event)], "wait_timeout_s": 30}

    async def run() -> tuple[int, Any, Any]:
        async with Client(build_server(tools)) as mcp:
            waiters = [asyncio.create_task(mcp.call_tool("recall", arguments)) for _ in range(2)]
            await parked(served.deps, "b1", 2)
            held = served.gate.held
            refused = await mcp.call_tool("recall", arguments)
            served.ledger.settle(Kind.RETAIN, [event_key("b1", event)])
            answers = await asyncio.gather(*waiters)
            return held, refused, answers

    held, refused, answers = asyncio.run(run())
    assert held == 0
    assert refused.is_error
    assert "SEDIMENT_RECALL_WAITERS_PER_KEY" in refused.content[0].text
    assert not any(a.is_error for a in answers)
