"""The MCP tools in one process: retain items become the same events the HTTP API
makes, bad input is a tool error naming each field, and /mcp takes the API's token.
The in-process calls go through the SDK's own client connected to the server object."""

import asyncio
import uuid
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from mcp import Client
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import SecretStr

from contracts.events import RetainItem, derive_event_id
from sediment.api.app import Endpoint, LazyEndpoint, create_app
from sediment.api.deps import ApiDeps
from sediment.api.routes import to_events as api_events
from sediment.mcp_server import HttpEndpoint, build_server
from sediment.mcp_tools.items import to_events
from sediment.mcp_tools.models import MemoryItem
from sediment.mcp_tools.tools import SedimentTools
from sediment.recall_gate import RecallGate
from tests.e2e.mcp_session import notes, rows
from tests.unit.api_support import BOSTON, LISBON, Api, mid, open_api

WHEN = datetime(2024, 3, 1, 9, tzinfo=UTC)
LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from open_api(Path(tmp_path_factory.mktemp("mcp")))


def deps_of(api: Api) -> ApiDeps:
    deps: ApiDeps = api.client.app.state.deps  # type: ignore[attr-defined]
    return deps


def tools(api: Api, default_bank: str | None = None) -> SedimentTools:
    return SedimentTools(deps_of(api), default_bank, immediate=False)


def call(api: Api, name: str, arguments: dict[str, Any], bank: str | None = "b1") -> Any:
    async def run() -> Any:
        async with Client(build_server(tools(api, bank))) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(run())


def test_an_item_is_the_event_the_http_api_makes() -> None:
    text = "Alice lives in Boston."
    [ours] = to_events("b1", [MemoryItem(text=text, occurred_at=WHEN, ttl_s=3600)], 1024, WHEN)
    item = RetainItem(text=text, occurred_at=WHEN, ttl_s=3600)
    [theirs] = api_events("b1", [item], 1024, WHEN)
    assert ours == theirs
    assert ours.event_id == derive_event_id("b1", "Alice lives in Boston.", WHEN.isoformat())
    assert ours.expires_at == WHEN + timedelta(hours=1)


def test_occurred_at_defaults_to_now() -> None:
    [event] = to_events("b1", [MemoryItem(text="Bob is here.")], 1024, WHEN)
    assert event.occurred_at == WHEN


def test_every_bad_item_is_named_without_its_text() -> None:
    items = [MemoryItem(text="fine"), MemoryItem(text=" "), MemoryItem(text="secret" * 20)]
    with pytest.raises(ToolError) as caught:
        to_events("b1", items, 64, WHEN)
    message = str(caught.value)
    assert message.startswith("invalid retain: items.1.text: text is blank")
    assert "; items.2.text: " in message
    assert "the limit is 64 (SEDIMENT_MAX_TEXT_BYTES)" in message and "secret" not in message


def test_an_event_id_twice_in_one_call_is_refused_naming_both_items() -> None:
    """The HTTP API's rule: one call may not name one event twice."""
    given = uuid.UUID(int=7)
    items = [
        MemoryItem(text="Alice lives in Boston.", event_id=given),
        MemoryItem(text="Bob is here.", occurred_at=WHEN),
        MemoryItem(text="Alice lives in Paris.", event_id=given),
        MemoryItem(text="Bob is here.", occurred_at=WHEN),
    ]
    with pytest.raises(ToolError) as caught:
        to_events("b1", items, 1024, WHEN)
    message = str(caught.value)
    assert f"items.2.event_id: event_id {given} is item 0's too" in message
    assert "items.3.event_id: same text and occurred_at as item 1" in message
    assert "Paris" not in message


def test_a_call_without_bank_needs_a_default(api: Api) -> None:
    with pytest.raises(ToolError, match="no bank given"):
        tools(api).bank_of(None)
    assert tools(api, "b9").bank_of(None) == "b9" and tools(api, "b9").bank_of("b2") == "b2"


def test_retain_publishes_through_the_api_publisher(api: Api) -> None:
    result = call(
        api, "retain", {"items": [{"text": "Dana swims.", "occurred_at": "2024-01-01T00:00:00Z"}]}
    )
    assert not result.is_error and result.structured_content["status"] == "queued"
    published = api.publisher.retained[-1]
    assert (published.bank_id, published.text) == ("b1", "Dana swims.")
    assert str(published.event_id) == result.structured_content["event_ids"][0]


def test_forget_of_an_id_the_bank_does_not_hold_is_http_s_404_as_a_tool_error(
    api: Api,
) -> None:
    """Another bank's id, or one no bank holds: a tool error in the words of HTTP's 404
    detail, with the tools' one prefix, and nothing is published."""
    before = len(api.publisher.forgets)
    for memory in (mid(LISBON), uuid.uuid4()):  # LISBON is bank b2's
        result = call(api, "forget", {"memory_ids": [str(memory)]})
        http = api.client.delete(f"/v1/banks/b1/memories/{memory}")
        assert http.status_code == 404
        assert result.is_error and result.content[0].text == "error: " + http.json()["message"]
    held = call(api, "forget", {"memory_ids": [str(mid(BOSTON))]})
    assert not held.is_error and len(api.publisher.forgets) == before + 1


def test_recall_reads_the_default_bank(api: Api) -> None:
    result = call(api, "recall", {"query": "Where does Alice live?", "limit": 1})
    assert not result.is_error and result.structured_content is None
    [top] = rows(result)
    assert top.text == "Alice lives in Seattle." and top.score > 0


def test_recall_leaves_out_unrelated_results_unless_asked_for(api: Api) -> None:
    """Nothing in b1 is about Paris: the text says so and how many results it left
    out; `all` or a `min_score` shows them, each with its score."""
    ruled = call(api, "recall", {"query": "Paris"})
    assert rows(ruled) == []
    [nothing, left_out] = notes(ruled)
    assert nothing == "nothing found in bank b1"
    count = int(left_out.split()[0])
    assert left_out.endswith("without topical evidence left out (all: true shows them)")
    every = rows(call(api, "recall", {"query": "Paris", "all": True}))
    assert len(every) == count and all(r.score > 0 for r in every)
    assert rows(call(api, "recall", {"query": "Paris", "min_score": 1e-6})) == every


def test_a_recall_of_weak_evidence_says_low_confidence(api: Api) -> None:
    answer = call(api, "recall", {"query": "Paris", "all": True})
    assert notes(answer) == ["low confidence: no result is close to the query in meaning"]


def gated_tools(api: Api, gate: RecallGate | None) -> SedimentTools:
    return SedimentTools(replace(deps_of(api), recall_gate=gate), "b1", immediate=False)


def test_a_gated_recall_is_the_same_tool(api: Api) -> None:
    """What clients see of `recall` does not change behind a serve's recall gate."""

    async def listed(gate: RecallGate | None) -> dict[str, Any]:
        async with Client(build_server(gated_tools(api, gate))) as client:
            return {t.name: t.model_dump() for t in (await client.list_tools()).tools}

    async def both() -> tuple[dict[str, Any], dict[str, Any]]:
        return await listed(None), await listed(RecallGate(1))

    plain, behind = asyncio.run(both())
    assert behind == plain
    assert behind["recall"]["input_schema"]["properties"]["query"]["minLength"] == 1


def test_an_mcp_recall_waits_its_turn_at_the_recall_gate(api: Api) -> None:
    """Where serve hosts the worker, /mcp's recall takes a slot as POST .../recall does:
    with the one slot held, the call does not run until it is given back."""
    gate = RecallGate(1)

    async def run() -> tuple[bool, Any]:
        async with Client(build_server(gated_tools(api, gate))) as client:
            release, held = asyncio.Event(), asyncio.Event()

            async def hold() -> None:
                async with gate.turn():
                    held.set()
                    await release.wait()

            holder = asyncio.create_task(hold())
            await held.wait()
            recall = asyncio.create_task(client.call_tool("recall", {"query": "Alice"}))
            await asyncio.sleep(0.3)
            waited = not recall.done()
            release.set()
            await holder
            return waited, await recall

    waited, result = asyncio.run(run())
    assert waited
    assert not result.is_error and rows(result)


def test_a_dead_broker_is_a_tool_error(api: Api) -> None:
    api.publisher.failing = True
    try:
        result = call(api, "retain", {"items": [{"text": "Eve runs."}]})
    finally:
        api.publisher.failing = False
    assert result.is_error and "the broker did not take the events" in result.content[0].text


@pytest.mark.parametrize(
    ("token", "header", "status"),
    [
        pytest.param(None, None, 200, id="no token configured: open"),
        pytest.param("t0ken", None, 401, id="token, no header"),
        pytest.param("t0ken", "Bearer nope", 401, id="token, wrong header"),
        pytest.param("t0ken", "t0ken", 401, id="token without the Bearer scheme"),
        pytest.param("t0ken", "bearer t0ken", 200, id="token, right header"),
        pytest.param("", "Bearer ", 401, id="empty token admits nobody"),
    ],
)
@pytest.mark.parametrize("lazy", [False, True], ids=["built", "lazy"])
def test_mcp_endpoint_takes_the_api_token(
    api: Api, token: str | None, header: str | None, status: int, lazy: bool
) -> None:
    deps = replace(
        api.client.app.state.deps,  # type: ignore[attr-defined]
        api_token=None if token is None else SecretStr(token),
    )

    def build() -> HttpEndpoint:
        return HttpEndpoint(SedimentTools(deps, "b1", immediate=False), host="0.0.0.0")

    endpoint: Endpoint = LazyEndpoint(build) if lazy else build()
    headers = {**ACCEPT, **({} if header is None else {"Authorization": header})}
    with TestClient(create_app(deps, mcp=endpoint)) as client:
        r = client.post("/mcp", json=LIST_TOOLS, headers=headers)
        assert r.status_code == status, r.text
        if status == 401:
            assert r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
        else:
            assert {t["name"] for t in r.json()["result"]["tools"]} >= {"retain", "recall"}
        assert client.get("/healthz").status_code == 200


def test_a_pinned_server_serves_its_bank_only(api: Api) -> None:
    """`sediment mcp --bank b1` without --all-banks: a call naming another bank is a tool
    error, and `banks` lists no other."""

    async def run() -> list[Any]:
        pinned = SedimentTools(deps_of(api), "b1", immediate=False, pinned=True)
        async with Client(build_server(pinned)) as client:
            return [
                await client.call_tool("recall", {"query": "Carol", "bank": "b2"}),
                await client.call_tool("forget", {"tags": ["x"], "bank": "b2"}),
                await client.call_tool("banks", {}),
                await client.call_tool("recall", {"query": "Alice", "bank": "b1"}),
                await client.call_tool("recall", {"query": "Alice"}),
            ]

    refused, forget, banks, named, default = asyncio.run(run())
    for result in (refused, forget):
        assert result.is_error
        assert "bank 'b2' is not served here" in result.content[0].text
        assert "--all-banks" in result.content[0].text
    assert not any(e.bank_id == "b2" for e in api.publisher.forgets)
    assert banks.structured_content == {"banks": ["b1"], "default_bank": "b1"}
    assert not named.is_error and not default.is_error
    with pytest.raises(ValueError, match="needs that bank"):
        SedimentTools(deps_of(api), None, immediate=False, pinned=True)


def test_an_unpinned_server_reaches_every_bank(api: Api) -> None:
    """--all-banks: the bank is only the default."""
    assert tools(api, "b1").bank_of("b2") == "b2"
    listed = call(api, "banks", {}).structured_content
    assert listed == {"banks": ["b1", "b2"], "default_bank": "b1"}


SECRET = "Alice's PIN is 4321"


@pytest.mark.parametrize(
    ("tool", "arguments", "field"),
    [
        ("retain", {"items": [{"text": SECRET, "kind": "gossip"}]}, "items.0.kind"),
        ("retain", {"items": [{"text": SECRET, "occurred_at": "yesterday"}]}, "occurred_at"),
        ("retain", {"items": [{"text": SECRET, "colour": "red"}]}, "items.0.colour"),
        ("recall", {"query": SECRET, "limit": "many"}, "limit"),
        ("recall", {"query": SECRET, "bank": SECRET}, "bank"),
        ("forget", {"tags": [SECRET + "\u0007"]}, "tags.0"),
        ("forget", {"tags": [SECRET * 20]}, "tags.0"),
        ("feedback", {"memory_id": SECRET, "vote": "up"}, "memory_id"),
    ],
)
def test_tool_errors_name_the_field_never_the_value(
    api: Api, tool: str, arguments: dict[str, Any], field: str
) -> None:
    result = call(api, tool, arguments)
    assert result.is_error
    message = result.content[0].text
    assert field in message and f"invalid {tool}: " in message, message
    assert "PIN" not in message and "input_value" not in message, message


def test_get_on_mcp_is_405_not_an_idle_stream(api: Api) -> None:
    """The stateless endpoint has nothing to send on a GET stream, so it opens none
    (the MCP spec's answer for a server without one); the token is still checked first."""
    deps = replace(
        api.client.app.state.deps,  # type: ignore[attr-defined]
        api_token=SecretStr("t0ken"),
    )
    endpoint = HttpEndpoint(SedimentTools(deps, "b1", immediate=False), host="0.0.0.0")
    auth = {**ACCEPT, "Authorization": "Bearer t0ken"}
    with TestClient(create_app(deps, mcp=endpoint)) as client:
        assert client.get("/mcp", headers=ACCEPT).status_code == 401
        for method in ("GET", "DELETE", "PUT"):
            r = client.request(method, "/mcp", headers=auth)
            assert r.status_code == 405 and r.headers["allow"] == "POST", r.text
            assert r.json()["error"] == "method_not_allowed"
        assert client.post("/mcp", json=LIST_TOOLS, headers=auth).status_code == 200


def test_recall_takes_full_text(api: Api) -> None:
    result = call(api, "recall", {"query": "Where does Alice live?", "limit": 1, "full_text": True})
    assert not result.is_error
    [top] = rows(result)
    assert top.text == "Alice lives in Seattle."


@pytest.mark.parametrize(
    ("name", "arguments", "field"),
    [
        ("recall", {"query": "Alice", "limit": True}, "limit"),
        ("recall", {"query": "Alice", "max_tokens": False}, "max_tokens"),
        ("recall", {"query": "Alice", "wait_timeout_s": True}, "wait_timeout_s"),
        ("recall", {"query": "Alice", "limit": "3"}, "limit"),
        ("recall", {"query": "Alice", "history": 1}, "history"),
        ("stats", {"minutes": True}, "minutes"),
        ("retain", {"items": [{"text": "Ana rows.", "importance": True}]}, "importance"),
        ("retain", {"items": [{"text": "Ana rows.", "ttl_s": True}]}, "ttl_s"),
    ],
)
def test_numbers_and_flags_are_as_strict_as_over_http(
    api: Api, name: str, arguments: dict[str, Any], field: str
) -> None:
    """A boolean is not a number, nor a number or string a flag: the HTTP API's rule."""
    result = call(api, name, arguments)
    assert result.is_error, result
    assert field in result.content[0].text


def test_whole_numbers_given_as_such_are_fine(api: Api) -> None:
    result = call(api, "recall", {"query": "Alice", "limit": 2.0, "wait_timeout_s": 1})
    assert not result.is_error, result.content[0].text


SECRET = "s3cr3t-value"


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": SECRET},
            "params: Input should be a valid dictionary",
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": 5, "params": {"x": SECRET}}, "method: "),
        ({"jsonrpc": SECRET, "id": 1, "method": "tools/list"}, "jsonrpc: "),
        ([SECRET], "a JSON object, not an array"),
        (SECRET, "a JSON object, not a string"),
    ],
)
def test_mcp_envelope_errors_name_fields_never_values(api: Api, body: object, said: str) -> None:
    deps = deps_of(api)
    endpoint = HttpEndpoint(SedimentTools(deps, "b1", immediate=False), host="0.0.0.0")
    with TestClient(create_app(deps, mcp=endpoint)) as client:
        r = client.post("/mcp", json=body, headers=ACCEPT)
    assert r.status_code == 400
    message = r.json()["error"]["message"]
    assert message.startswith("invalid JSON-RPC message: ") and said in message, message
    assert SECRET not in r.text and "input_value" not in r.text


@pytest.mark.parametrize("bank", [".", "..", ":"])
def test_a_bank_of_dots_and_colons_only_is_a_tool_error(api: Api, bank: str) -> None:
    result = call(api, "recall", {"query": "Alice", "bank": bank})
    assert result.is_error
    assert f"{bank!r} is not a bank id: it is only dots and colons" in result.content[0].text
