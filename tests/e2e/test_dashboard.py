"""The dashboard as a person sees it: `sediment serve` (embedded mode, a token set) with
traffic, the page in headless Chromium, the token typed into the page, the charts
drawn, and the figures on the page equal to what /v1/stats says."""

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.chromium import Page, chromium, require_chromium
from tests.e2e.test_http import AUTH, TOKEN, Server, eventually, running

BANK = "dash"
TEXTS = [
    "Quinn restores vintage motorcycles in a garage.",
    "Quinn's garage is in Tromso.",
    "Rosa teaches ceramics on Thursdays.",
]
CHARTS = ("chart-retain", "chart-recall", "chart-latency", "chart-lag", "chart-backlog")


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, int]]:
    """A server whose recall count is known: every recall this fixture makes is counted."""
    require_chromium()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_REDIS_URL": "redis://127.0.0.1:1/0",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_METRICS_SAMPLE_S": "1",
        "SEDIMENT_RECALL_SLOW_MS": "0.001",
        "SEDIMENT_EMBEDDER": "hash",
    }
    with running(env, tmp_path_factory.mktemp("dashboard")) as srv:
        items = [
            {"text": t, "occurred_at": f"2024-03-0{i + 1}T10:00:00Z"} for i, t in enumerate(TEXTS)
        ]
        r = srv.post(f"/v1/banks/{BANK}/memories", {"items": items}, headers=AUTH)
        assert r.status_code == 202, r.text
        recalls = 0

        def all_visible() -> bool:
            nonlocal recalls
            recalls += 1
            shown = {
                x["text"]
                for x in srv.recall(BANK, "Quinn Rosa garage ceramics", limit=10)["results"]
            }
            return shown >= set(TEXTS)

        eventually(all_visible, "the three memories to be consolidated")
        for query in ("Where is the garage?", "Who teaches ceramics?", "motorcycles"):
            srv.recall(BANK, query)
            recalls += 1

        def settled() -> bool:
            stats = srv.get("/v1/stats", headers=AUTH).json()
            counted = sum(c["total"] for c in stats["counters"] if c["name"] == "recalls")
            memories = sum(g["value"] for g in stats["gauges"] if g["name"] == "memories")
            return counted == recalls and memories == len(TEXTS)

        eventually(settled, "every recall to be counted and the gauges sampled")
        yield srv, recalls


def figures(page: Page) -> dict[str, str]:
    return page.evaluate(  # type: ignore[no-any-return]
        "Object.fromEntries([...document.querySelectorAll('[data-value]')]"
        ".map(e => [e.id, e.dataset.value]))"
    )


def open_dashboard(page: Page, srv: Server) -> None:
    page.navigate(srv.url + "/dashboard")
    page.wait_for("document.body.dataset.state === 'unauthorized'", what="the token request")
    assert page.evaluate("document.getElementById('auth').hidden") is False
    page.type_into("#token", TOKEN)
    page.evaluate("document.getElementById('token-form').requestSubmit()")
    page.wait_for(
        "document.body.dataset.state === 'ok' && Number(document.body.dataset.updates) >= 1",
        what="the first update",
    )


def latency(stats: dict[str, Any], name: str) -> dict[str, Any]:
    return next(h for h in stats["latencies"] if h["name"] == name and not h["labels"])


def test_dashboard_draws_what_v1_stats_says(traffic: tuple[Server, int], tmp_path: Path) -> None:
    srv, recalls = traffic
    with chromium() as page:
        open_dashboard(page, srv)
        shown = figures(page)
        stats = srv.get("/v1/stats", params={"minutes": 15}, headers=AUTH).json()
        recall = latency(stats, "recall_ms")
        assert int(shown["recalls"]) == recalls == recall["count"]
        assert int(shown["recall-count"]) == recall["count"]
        for p in ("p50", "p95", "p99"):
            assert float(shown[f"recall-{p}"]) == pytest.approx(recall[f"{p}_ms"], rel=1e-12)
        received = sum(
            c["total"]
            for c in stats["counters"]
            if c["name"] == "events" and c["labels"]["outcome"] == "received"
        )
        assert int(shown["events-received"]) == received == len(TEXTS)
        assert int(shown["memories"]) == len(TEXTS)
        assert int(shown["dead-letters"]) == 0
        assert int(shown["slow-calls"]) == stats["slow_calls"] >= recalls
        points = page.evaluate(
            f"{json.dumps(CHARTS)}.map(id => Number(document.getElementById(id).dataset.points))"
        )
        assert all(n > 0 for n in points), dict(zip(CHARTS, points, strict=True))
        rows = page.evaluate("document.querySelectorAll('#slow-table tbody tr').length")
        assert rows == min(10, len(stats["recent_slow_calls"])) > 0
        text = page.evaluate("document.body.innerText")
        assert not any(t in text for t in TEXTS), "memory text on the dashboard"
        assert all(u.startswith(srv.url) for u in page.requested_urls()), page.requested_urls()
        shot = page.screenshot(tmp_path / "dashboard.png")
        assert shot.stat().st_size > 10_000


def test_forgetting_the_token_asks_again(traffic: tuple[Server, int]) -> None:
    srv, _ = traffic
    with chromium() as page:
        open_dashboard(page, srv)
        assert page.evaluate("sessionStorage.getItem('sediment.token')") == TOKEN
        page.evaluate("document.getElementById('forget').click()")
        page.wait_for("document.body.dataset.state === 'unauthorized'", what="the token request")
        assert page.evaluate("sessionStorage.getItem('sediment.token')") is None
