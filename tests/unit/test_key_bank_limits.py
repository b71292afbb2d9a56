"""A key limited to banks is limited on every route and every MCP tool: `/v1/stats` and
`/metrics` refuse another bank's figures and show only the key's banks, `/mcp` lists
and reaches only the key's banks, and `/dashboard` (static, no data) and `/metrics`
follow one rule for a key as for no key."""

import json
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import fakeredis
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families
from pydantic import SecretStr

from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, digest
from sediment.mcp_server import HttpEndpoint
from sediment.mcp_tools.tools import SedimentTools
from telemetry.metrics import QUEUE_READY, RECALL_STAGE_MS, RECALLS
from telemetry.recall_logs import RedisRecallLog, SlowCall
from telemetry.redis_series import RedisMetrics
from tests.unit.api_support import BOSTON, LISBON, RecordingPublisher, mid, seeded_runtime

KEYS = (
    ApiKey(name="b1-admin", sha256=digest("a-secret"), banks=("b1",), scopes=("admin",)),
    ApiKey(name="b1-reader", sha256=digest("r-secret"), banks=("b1",), scopes=("read",)),
    ApiKey(name="scraper", sha256=digest("m-secret"), banks=("*",), scopes=("metrics",)),
)
B1_ADMIN = {"Authorization": "Bearer a-secret"}
READER = {"Authorization": "Bearer r-secret"}
SCRAPER = {"Authorization": "Bearer m-secret"}
TOKEN = {"Authorization": "Bearer admin-token"}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@dataclass
class Served:
    client: TestClient
    publisher: RecordingPublisher


def figures(client: fakeredis.FakeRedis) -> tuple[RedisMetrics, RedisRecallLog]:
    """Recalls of b1 (2) and b2 (5), a stage latency and a queue gauge (no bank label),
    and a slow call in each bank."""
    metrics = RedisMetrics(client, 600)
    metrics.incr(RECALLS, 2, {"bank": "b1"})
    metrics.incr(RECALLS, 5, {"bank": "b2"})
    metrics.observe(RECALL_STAGE_MS, 3.0, {"stage": "fetch"})
    metrics.gauge(QUEUE_READY, 4.0)
    log = RedisRecallLog(client, 100, 100, 60)
    for bank in ("b1", "b2"):
        log.add_slow(
            SlowCall(at=datetime.now(UTC), operation="api.recall", duration_ms=900.0, bank_id=bank)
        )
    return metrics, log


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    rt = seeded_runtime(tmp_path)
    metrics, log = figures(fakeredis.FakeRedis())
    publisher = RecordingPublisher()
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=publisher,
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr("admin-token"),
        api_keys=KEYS,
        metrics=metrics,
        recall_log=log,
    )
    endpoint = HttpEndpoint(SedimentTools(deps, None, immediate=False), host="0.0.0.0")
    with TestClient(create_app(deps, mcp=endpoint)) as client:
        yield Served(client, publisher)
    rt.close()


def recalls(stats: dict[str, Any]) -> int:
    return sum(c["total"] for c in stats["counters"] if c["name"] == RECALLS)


def test_stats_of_another_bank_is_refused(served: Served) -> None:
    r = served.client.get("/v1/stats", params={"bank": "b2"}, headers=B1_ADMIN)
    assert r.status_code == 403, r.text
    assert r.json()["message"] == "API key 'b1-admin' does not open bank 'b2' (banks: b1)"
    own = served.client.get("/v1/stats", params={"bank": "b1"}, headers=B1_ADMIN)
    assert own.status_code == 200 and recalls(own.json()) == 2


def test_stats_of_all_banks_shows_a_limited_key_only_its_banks(served: Served) -> None:
    stats = served.client.get("/v1/stats", headers=B1_ADMIN).json()
    assert stats["banks"] == ["b1"] and recalls(stats) == 2
    assert not stats["latencies"] and not stats["gauges"], "sums over every bank"
    assert [c["bank"] for c in stats["recent_slow_calls"]] == ["b1"]
    assert stats["slow_calls"] == 1
    everything = served.client.get("/v1/stats", headers=TOKEN).json()
    assert everything["banks"] == ["b1", "b2"] and recalls(everything) == 7
    assert everything["latencies"] and everything["gauges"]
    assert served.client.get("/v1/stats", headers=SCRAPER).json()["banks"] == ["b1", "b2"]


def samples(text: str) -> dict[str, float]:
    return {s.name: s.value for f in text_string_to_metric_families(text) for s in f.samples}


def test_metrics_behind_keys_follows_the_stats_rule(served: Served) -> None:
    """With keys configured and SEDIMENT_METRICS_PUBLIC unset, /metrics needs what
    /v1/stats needs: anonymous 401, a key without the metrics scope 403 (whatever
    its banks), another bank 403, and a limited key sees only its banks."""
    assert served.client.get("/metrics").status_code == 401
    r = served.client.get("/metrics", headers=READER)
    assert r.status_code == 403 and "'metrics'" in r.json()["message"]
    r = served.client.get("/metrics", params={"bank": "b2"}, headers=B1_ADMIN)
    assert r.status_code == 403 and "does not open bank 'b2'" in r.json()["message"]
    mine = samples(served.client.get("/metrics", headers=B1_ADMIN).text)
    assert mine["sediment_recalls_in_window"] == 2
    assert "sediment_queue_ready" not in mine
    scraped = samples(served.client.get("/metrics", headers=SCRAPER).text)
    assert scraped["sediment_recalls_in_window"] == 7 and scraped["sediment_queue_ready"] == 4


def test_public_metrics_reads_no_key(served: Served) -> None:
    """SEDIMENT_METRICS_PUBLIC=true: everyone gets the same text; no key is refused."""
    app: Any = served.client.app
    app.state.deps = replace(app.state.deps, metrics_public=True)
    anonymous = served.client.get("/metrics")
    assert anonymous.status_code == 200
    for headers in (READER, B1_ADMIN, {"Authorization": "Bearer unknown"}):
        r = served.client.get("/metrics", headers=headers)
        assert r.status_code == 200 and samples(r.text).keys() == samples(anonymous.text).keys()
        assert samples(r.text)["sediment_recalls_in_window"] == 7


def test_the_dashboard_page_needs_no_key_and_refuses_none(served: Served) -> None:
    for headers in ({}, READER, B1_ADMIN):
        assert served.client.get("/dashboard", headers=headers).status_code == 200
        r = served.client.get("/dashboard/assets/dashboard.js", headers=headers)
        assert r.status_code == 200
    assert served.client.get("/v1/stats").status_code == 401, "the data is behind the key"


def call(
    served: Served, tool: str, arguments: dict[str, Any], key: dict[str, str] = B1_ADMIN
) -> dict[str, Any]:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    r = served.client.post("/mcp", json=body, headers={**MCP_HEADERS, **key})
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()["result"]
    return result


def error_of(result: dict[str, Any]) -> str:
    assert result["isError"], result
    text: str = result["content"][0]["text"]
    return text


def test_mcp_banks_lists_only_the_keys_banks(served: Served) -> None:
    assert call(served, "banks", {})["structuredContent"]["banks"] == ["b1"]


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("recall", {"query": "Carol", "bank": "b2"}),
        ("inspect", {"memory_id": str(mid(LISBON)), "bank": "b2"}),
        ("stats", {"bank": "b2"}),
        ("feedback", {"memory_id": str(mid(LISBON)), "vote": "down", "bank": "b2"}),
        ("retain", {"items": [{"text": "Dan is in b2."}], "bank": "b2"}),
        ("forget", {"tags": ["x"], "bank": "b2"}),
        ("forget", {"memory_ids": [str(mid(LISBON))], "bank": "b2"}),
    ],
)
def test_mcp_tools_refuse_a_bank_the_key_does_not_open(
    served: Served, tool: str, arguments: dict[str, Any]
) -> None:
    message = error_of(call(served, tool, arguments))
    assert "API key 'b1-admin' does not open bank 'b2' (banks: b1)" in message
    publisher = served.publisher
    assert not (publisher.retained or publisher.feedback or publisher.forgets)


def test_mcp_tools_reach_the_keys_own_bank(served: Served) -> None:
    found = call(served, "recall", {"query": "Alice", "bank": "b1"})
    assert not found["isError"] and "Alice lives in Seattle." in found["content"][0]["text"]
    view = call(served, "inspect", {"memory_id": str(mid(BOSTON)), "bank": "b1"})
    assert not view["isError"]
    forgot = call(served, "forget", {"tags": ["x"], "bank": "b1"})
    assert not forgot["isError"] and [e.bank_id for e in served.publisher.forgets] == ["b1"]


def test_the_token_still_reaches_every_bank_over_mcp(served: Served) -> None:
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "banks", "arguments": {}},
    }
    r = served.client.post("/mcp", json=body, headers={**MCP_HEADERS, **TOKEN})
    assert json.loads(r.text)["result"]["structuredContent"]["banks"] == ["b1", "b2"]


@pytest.mark.parametrize(
    ("token", "keys", "public", "status"),
    [
        pytest.param(None, (), None, 200, id="open API: open metrics"),
        pytest.param("admin-token", (), None, 401, id="token: behind it"),
        pytest.param(None, KEYS, None, 401, id="keys: behind them"),
        pytest.param("admin-token", KEYS, True, 200, id="explicitly public"),
        pytest.param(None, (), False, 200, id="explicitly private, but nothing to ask for"),
    ],
)
def test_anonymous_metrics_follows_the_api(
    served: Served, token: str | None, keys: tuple[ApiKey, ...], public: bool | None, status: int
) -> None:
    app: Any = served.client.app
    app.state.deps = replace(
        app.state.deps,
        api_token=SecretStr(token) if token else None,
        api_keys=keys,
        metrics_public=public,
    )
    assert served.client.get("/metrics").status_code == status


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("GET", "/v1/banks/b2/audit"),
        ("GET", "/v1/banks/b2/export"),
        ("GET", f"/v1/banks/b2/memories/{mid(LISBON)}"),
        ("DELETE", "/v1/banks/b2"),
        ("POST", "/v1/banks/b2/forget"),
    ],
)
def test_bank_routes_refuse_an_admin_key_on_another_bank(
    served: Served, method: str, path: str
) -> None:
    r = served.client.request(method, path, headers=B1_ADMIN, json={"all_memories": True})
    assert r.status_code == 403 and "does not open bank 'b2'" in r.json()["message"]
    assert not served.publisher.forgets


def listed(served: Served, key: dict[str, str]) -> set[str]:
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    r = served.client.post("/mcp", json=body, headers={**MCP_HEADERS, **key})
    assert r.status_code == 200, r.text
    return {t["name"] for t in r.json()["result"]["tools"]}


def test_a_read_key_for_one_bank_serves_an_agent_over_mcp(served: Served) -> None:
    """A key scoped to b1 and `read` works on /mcp (no admin needed): it lists and calls
    the read tools; a write or forget is a tool error naming the missing scope."""
    assert listed(served, READER) == {"recall", "inspect", "stats", "banks"}
    assert listed(served, B1_ADMIN) == {
        "retain",
        "recall",
        "inspect",
        "feedback",
        "forget",
        "stats",
        "banks",
    }
    assert listed(served, SCRAPER) == set()
    found = call(served, "recall", {"query": "Alice", "bank": "b1"}, READER)
    assert not found["isError"] and "Alice lives in Seattle." in found["content"][0]["text"]
    for tool, arguments, scope in (
        ("retain", {"items": [{"text": "Dan swims."}], "bank": "b1"}, "write"),
        ("feedback", {"memory_id": str(mid(BOSTON)), "vote": "up", "bank": "b1"}, "write"),
        ("forget", {"tags": ["x"], "bank": "b1"}, "forget"),
    ):
        message = error_of(call(served, tool, arguments, READER))
        assert f"API key 'b1-reader' lacks the '{scope}' scope that {tool} needs" in message
    other = error_of(call(served, "recall", {"query": "Carol", "bank": "b2"}, READER))
    assert "does not open bank 'b2'" in other
    publisher = served.publisher
    assert not (publisher.retained or publisher.feedback or publisher.forgets)
