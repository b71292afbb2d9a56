"""The memory browser as a person uses it: `sediment serve` (embedded, a token set) over
the demo's memories and one more bank, `/browse` in headless Chromium, the token typed
into the page, a bank picked and searched; each result shows its state, the supersession
chain (old -> new, with times and the reason in words), an observation's source memories
and the text's reading, all as the API says them.

`SEDIMENT_WRITE_SCREENSHOTS=1` also saves the page to docs/browser.png (the HTTP page
shows it)."""

import io
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from sediment.demo import run_demo
from sediment.settings import Settings
from tests.e2e.chromium import Page, chromium, require_chromium
from tests.e2e.test_http import AUTH, TOKEN, Server, eventually, running

ROOT = Path(__file__).resolve().parents[2]
SCREENSHOT = ROOT / "docs" / "browser.png"
OTHER = "notes"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    require_chromium()
    tmp = tmp_path_factory.mktemp("browser")
    settings = Settings(mode="embedded", data_dir=tmp / "data", embedder="static")
    run_demo(settings, None, Console(file=io.StringIO()))
    env = {
        **os.environ,
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_REDIS_URL": "redis://127.0.0.1:1/0",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_EMBEDDER": "static",
    }
    with running(env, tmp) as srv:
        item = {"text": "Ola keeps bees in Bergen.", "occurred_at": "2024-05-01T10:00:00Z"}
        r = srv.post(f"/v1/banks/{OTHER}/memories", {"items": [item]}, headers=AUTH)
        assert r.status_code == 202, r.text
        eventually(lambda: srv.recall(OTHER, "bees")["results"], "the other bank's memory")
        yield srv


def open_browser(page: Page, srv: Server, query: str = "") -> None:
    page.navigate(srv.url + "/browse" + query)
    page.wait_for("document.body.dataset.state === 'unauthorized'", what="the token request")
    page.type_into("#token", TOKEN)
    page.evaluate("document.getElementById('token-form').requestSubmit()")
    page.wait_for("Number(document.body.dataset.banks) >= 1", what="the banks")


def search(page: Page, bank: str, query: str, history: bool = False, limit: int = 10) -> None:
    page.evaluate(
        f"(() => {{ const b = document.getElementById('bank'); b.value = {bank!r};"
        f" document.getElementById('limit').value = '{limit}';"
        f" document.getElementById('query').value = {query!r};"
        f" document.getElementById('history').checked = {str(history).lower()};"
        " document.body.dataset.details = 'x'; })()"
    )
    page.evaluate("document.getElementById('search').requestSubmit()")
    page.wait_for(
        "document.body.dataset.state === 'ok' && Number(document.body.dataset.details) === "
        "Number(document.body.dataset.results) && Number(document.body.dataset.results) > 0",
        what=f"the results for {query!r} and their details",
    )


def cards(page: Page) -> list[dict[str, Any]]:
    """Each result as shown: id, state, kind, text, and each part's items' text."""
    return page.evaluate(  # type: ignore[no-any-return]
        "[...document.querySelectorAll('#results > .result')].map(c => ({"
        " id: c.dataset.id, state: c.dataset.state, kind: c.dataset.kind,"
        " loaded: c.dataset.loaded, text: c.querySelector('.text').textContent,"
        " parts: Object.fromEntries([...c.querySelectorAll('[data-part]')].map(p =>"
        "   [p.dataset.part, [...p.querySelectorAll('li, p')].map(li => ({"
        "     id: li.dataset.id || null, cls: li.className, text: li.textContent}))])),"
        " chains: [...c.querySelectorAll('ol.chain')].map(ol => [...ol.children].map(li => ({"
        "     id: li.dataset.id || null, cls: li.className, text: li.textContent})))"
        "}))"
    )


def view(srv: Server, bank: str, memory_id: str) -> dict[str, Any]:
    r = srv.get(f"/v1/banks/{bank}/memories/{memory_id}", headers=AUTH)
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_the_browser_lists_the_banks_and_shows_a_supersession_chain(
    served: Server, tmp_path: Path
) -> None:
    srv = served
    with chromium() as page:
        open_browser(page, srv)
        banks = page.evaluate("[...document.querySelectorAll('#bank option')].map(o => o.value)")
        assert banks == ["demo", OTHER]
        search(page, "demo", "Where does Maya live?", history=True)
        shown = cards(page)
        answer = srv.recall("demo", "Where does Maya live?", history=True, limit=10)
        assert [c["id"] for c in shown] == [r["id"] for r in answer["results"]]
        assert [c["state"] for c in shown] == [r["state"] for r in answer["results"]]
        assert all(c["loaded"] == "true" for c in shown), shown
        moved = next(c for c in shown if "moved to Seattle" in c["text"])
        assert moved["state"] == "current"
        [chain] = [c for c in moved["chains"] if "Boston" in c[0]["text"]]
        steps = [s for s in chain if "step" in s["cls"]]
        reasons = [s["text"] for s in chain if s["cls"] == "why"]
        assert "Boston" in steps[0]["text"] and "Seattle" in steps[-1]["text"]
        assert len(steps) == 3, "the chain walks back past the state it replaced directly"
        assert steps[-1]["cls"] == "step this" and steps[-1]["id"] == moved["id"]
        replaced = view(srv, "demo", moved["id"])["edges"]["supersedes"]
        assert len(moved["chains"]) == len(replaced) == 2, "one chain per memory it replaced"
        assert "superseded" in steps[0]["text"] and "current" in steps[-1]["text"]
        assert len(reasons) == len(steps) - 1
        older = view(srv, "demo", steps[-2]["id"])["memory"]
        assert older["superseded_by"] == steps[-1]["id"]
        assert older["supersession_reason"] and older["supersession_reason"] in reasons[-1]
        assert reasons[-1].startswith(("replaced by the next", "invalidated by the next"))
        assert "2024-" in steps[0]["text"] and "UTC" in steps[0]["text"]
        for card in shown:
            record = view(srv, "demo", card["id"])["memory"]
            reading = [li["text"] for li in card["parts"]["reading"]]
            assert reading and reading == reading_of(srv, card["id"])
            assert record["text"] == card["text"] or card["text"] in record["text"]
        text = page.evaluate("document.body.innerText")
        assert "Maya moved to Seattle" in text
        assert all(u.startswith(srv.url) for u in page.requested_urls()), page.requested_urls()
        shot = page.screenshot(tmp_path / "browser.png")
        assert shot.stat().st_size > 10_000
        search(page, "demo", "grey cat")
        answer = srv.recall("demo", "grey cat", limit=10)
        summary = page.evaluate("document.getElementById('summary').textContent")
        left = f"{answer['without_evidence']} without topical evidence left out"
        assert answer["without_evidence"] > 0 and left in summary, summary
        assert len(cards(page)) == len(answer["results"])


def reading_of(srv: Server, memory_id: str) -> list[str]:
    r = srv.get(f"/v1/banks/demo/memories/{memory_id}/reading", headers=AUTH)
    assert r.status_code == 200, r.text
    lines: list[str] = r.json()["lines"]
    assert lines[0].startswith(("read as:", "not read as a statement"))
    return lines


def test_the_browser_shows_an_observations_sources(served: Server, tmp_path: Path) -> None:
    srv = served
    with chromium(height=900) as page:
        open_browser(page, srv, "?bank=demo&q=What+does+Maya+do+on+weekends%3F")
        page.wait_for(
            "document.body.dataset.state === 'ok' && Number(document.body.dataset.details) === "
            "Number(document.body.dataset.results) && Number(document.body.dataset.results) > 0",
            what="the search given in the address, and its details",
        )
        shown = cards(page)
        observation = next(c for c in shown if c["kind"] == "observation")
        sources = observation["parts"]["sources"]
        expected = view(srv, "demo", observation["id"])["sources"]
        assert len(sources) == len(expected) >= 2
        assert [s["id"] for s in sources] == [s["id"] for s in expected]
        for li, source in zip(sources, expected, strict=True):
            assert source["text"] in li["text"] and source["state"] in li["text"]
        reading = [li["text"] for li in observation["parts"]["reading"]]
        assert reading == reading_of(srv, observation["id"])
        if os.environ.get("SEDIMENT_WRITE_SCREENSHOTS"):
            search(page, "demo", "Where does Maya live?", history=True, limit=5)
            page.screenshot(SCREENSHOT)
        else:
            assert page.screenshot(tmp_path / "sources.png").stat().st_size > 10_000


def test_the_page_holds_no_data_and_the_routes_need_the_token(served: Server) -> None:
    srv = served
    page = srv.get("/browse")
    assert page.status_code == 200 and "Maya" not in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert srv.get("/browse/assets/browser.js").status_code == 200
    assert srv.get("/v1/browse/banks").status_code == 401
    assert srv.get("/v1/browse/banks", headers=AUTH).json() == {"banks": ["demo", OTHER]}
    some = srv.recall("demo", "Maya")["results"][0]["id"]
    assert srv.get(f"/v1/banks/demo/memories/{some}/reading").status_code == 401
    assert srv.get(f"/v1/banks/{OTHER}/memories/{some}/reading", headers=AUTH).status_code == 404
