"""Recall, memory reads, last-recall snapshots, health and OpenAPI over HTTP, on an
embedded runtime: everything bank-scoped."""

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.helpers import mid
from tests.unit.api_support import BOSTON, CELLO_1, CELLO_2, LISBON, SEATTLE, Api, open_api


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from open_api(tmp_path)


def recall(api: Api, bank: str, query: str, **kw: object) -> dict:  # type: ignore[type-arg]
    r = api.client.post(f"/v1/banks/{bank}/recall", json={"query": query, **kw})
    assert r.status_code == 200, r.text
    return r.json()  # type: ignore[no-any-return]


def test_recall_returns_current_state_with_explain(api: Api) -> None:
    body = recall(api, "b1", "Where does Alice live?", explain=True, limit=3)
    assert body["results"][0]["text"] == "Alice lives in Seattle."
    assert body["results"][0]["state_replaces"] == str(mid(BOSTON))
    assert body["results"][0]["components"] is not None
    assert [s["stage"] for s in body["explain"]][:2] == ["embed", "fetch"]


def test_recall_reports_its_own_time_in_server_timing(api: Api) -> None:
    """`recall;dur=<ms>`: positive, and no more than the whole request took."""
    start = time.perf_counter()
    r = api.client.post("/v1/banks/b1/recall", json={"query": "Where does Alice live?"})
    whole_ms = (time.perf_counter() - start) * 1000
    assert r.status_code == 200
    name, _, value = r.headers["server-timing"].partition(";dur=")
    assert name == "recall"
    assert 0 < float(value) <= whole_ms


def test_recall_prefers_observations_by_default(api: Api) -> None:
    members = {str(mid(CELLO_1)), str(mid(CELLO_2))}
    body = recall(api, "b1", "Bob cello orchestra")
    assert body["results"][0]["kind"] == "observation"
    assert set(body["results"][0]["source_memory_ids"]) == members
    assert not members & {r["id"] for r in body["results"]}
    assert body["dropped_by_prefer_observations"] == 2
    raw = recall(api, "b1", "Bob cello orchestra", prefer_observations=False)["results"]
    assert members <= {r["id"] for r in raw}


def test_recall_never_crosses_banks(api: Api) -> None:
    """With `all`, results without topical evidence too: b2's one memory shares nothing
    with the query, and still no memory of b1 comes in."""
    assert all("Carol" not in r["text"] for r in recall(api, "b1", "Carol Lisbon")["results"])
    every = recall(api, "b2", "Alice Seattle", all=True)["results"]
    assert [r["text"] for r in every] == [LISBON.text]


def test_recall_request_is_validated(api: Api) -> None:
    r = api.client.post(
        "/v1/banks/b1/recall", json={"query": "x", "limit": 0, "as_of": "yesterday"}
    )
    assert r.status_code == 422
    assert {d["field"] for d in r.json()["detail"]} == {"body.limit", "body.as_of"}
    assert "yesterday" not in r.text


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({"query": "\u200b"}, "body.query", "query is blank"),
        ({"query": "Alice\x00"}, "body.query", "control character U+0000 at position 5"),
        ({"query": "Alice", "session_key": "s\x00"}, "body.session_key", "U+0000"),
    ],
)
def test_recall_refuses_invisible_queries_and_nul_naming_the_field(
    api: Api, body: dict[str, object], field: str, words: str
) -> None:
    r = api.client.post("/v1/banks/b1/recall", json=body)
    assert r.status_code == 422, r.text
    problems = {d["field"]: d["problem"] for d in r.json()["detail"]}
    assert words in problems[field]


@pytest.mark.parametrize("path", ["/v1/banks/b1/last-recall", "/v1/banks/b1/feedback/last-recall"])
def test_a_session_key_with_nul_is_refused_naming_it(api: Api, path: str) -> None:
    if path.endswith("/feedback/last-recall"):
        r = api.client.post(path, json={"session_key": "s\x00", "useful_ids": []})
        field = "body.session_key"
    else:
        r = api.client.get(path, params={"session_key": "s\x00"})
        field = "query.session_key"
    assert r.status_code == 422, r.text
    problems = {d["field"]: d["problem"] for d in r.json()["detail"]}
    assert "session_key contains control character U+0000" in problems[field]


def test_memory_shows_edges_and_history(api: Api) -> None:
    r = api.client.get(f"/v1/banks/b1/memories/{mid(BOSTON)}")
    assert r.status_code == 200
    view = r.json()
    assert view["memory"]["state"] == "superseded"
    assert view["edges"]["superseded_by"] == str(mid(SEATTLE))
    assert view["edges"]["relation"] == "EVOLVED_INTO"
    assert [h["id"] for h in view["history"]] == [str(mid(SEATTLE))]
    newer = api.client.get(f"/v1/banks/b1/memories/{mid(SEATTLE)}").json()
    assert [s["id"] for s in newer["edges"]["supersedes"]] == [str(mid(BOSTON))]
    assert "alice.city" in newer["edges"]["supersedes"][0]["supersession_reason"]
    assert newer["history"] == []


def test_observation_shows_its_sources(api: Api) -> None:
    obs_id = api.rt.store.fetch("b1", [mid(CELLO_1)])[0].record.observation_id
    view = api.client.get(f"/v1/banks/b1/memories/{obs_id}").json()
    assert view["memory"]["kind"] == "observation"
    assert view["memory"]["proof_count"] == 2
    assert {s["id"] for s in view["sources"]} == {str(mid(CELLO_1)), str(mid(CELLO_2))}


def test_memory_of_another_bank_is_404(api: Api) -> None:
    r = api.client.get(f"/v1/banks/b1/memories/{mid(LISBON)}")
    assert r.status_code == 404
    assert r.json()["error"] == "not_found" and "bank b1" in r.json()["message"]
    assert api.client.get(f"/v1/banks/b2/memories/{mid(LISBON)}").status_code == 200


def test_last_recall_snapshot_by_session(api: Api) -> None:
    body = recall(api, "b1", "Where does Alice live?", session_key="s-1")
    r = api.client.get("/v1/banks/b1/last-recall", params={"session_key": "s-1"})
    assert r.status_code == 200
    snap = r.json()
    assert [x["id"] for x in snap["results"]] == [x["id"] for x in body["results"]]
    assert "Alice" not in r.text and "Where" not in r.text
    assert api.client.get("/v1/banks/b2/last-recall?session_key=s-1").status_code == 404
    assert api.client.get("/v1/banks/b1/last-recall?session_key=other").status_code == 404


def test_unknown_route_is_json_404(api: Api) -> None:
    r = api.client.get("/v2/nothing")
    assert r.status_code == 404 and r.json()["error"] == "not_found"


def test_healthz(api: Api) -> None:
    r = api.client.get("/healthz")
    assert (r.status_code, r.json()) == (200, {"store": "ok", "redis": "ok", "broker": "ok"})
    api.publisher.failing = True
    r = api.client.get("/healthz")
    assert (r.status_code, r.json()["broker"]) == (503, "failed")


def test_openapi_documents_the_endpoints(api: Api) -> None:
    schema = api.client.get("/openapi.json").json()
    assert {
        "/v1/banks/{bank_id}/memories",
        "/v1/banks/{bank_id}/recall",
        "/v1/banks/{bank_id}/feedback",
        "/v1/banks/{bank_id}/feedback/last-recall",
        "/v1/banks/{bank_id}/memories/{memory_id}",
        "/v1/banks/{bank_id}/last-recall",
        "/healthz",
    } <= set(schema["paths"])
    assert api.client.get("/docs").status_code == 200


def test_history_is_spelled_as_everywhere_and_state_mode_is_deprecated(api: Api) -> None:
    query = "Where does Alice live?"
    current = recall(api, "b1", query, history=False)
    history = recall(api, "b1", query, history=True)
    assert str(mid(BOSTON)) not in {r["id"] for r in current["results"]}
    assert str(mid(BOSTON)) in {r["id"] for r in history["results"]}
    plain = api.client.post("/v1/banks/b1/recall", json={"query": query, "history": True})
    assert "deprecation" not in plain.headers
    old = api.client.post("/v1/banks/b1/recall", json={"query": query, "state_mode": "history"})
    assert old.status_code == 200
    assert old.headers["deprecation"] == "true" and "send history" in old.headers["warning"]
    assert [r["id"] for r in old.json()["results"]] == [r["id"] for r in history["results"]]
    both = {"query": query, "state_mode": "history", "history": False}
    clash = api.client.post("/v1/banks/b1/recall", json=both)
    assert clash.status_code == 422 and "disagree" in clash.text


def test_unrelated_results_are_left_out_unless_asked_for(api: Api) -> None:
    """No memory of b1 has a word of "Paris" or is near it: the route leaves them out
    and says how many; `all` or a `min_score` of the caller's own brings them back."""
    ruled = recall(api, "b1", "Paris")
    assert ruled["results"] == [] and ruled["without_evidence"] > 0
    every = recall(api, "b1", "Paris", all=True)["results"]
    assert len(every) == ruled["without_evidence"]
    assert all(r["score"] > 0 for r in every)
    assert recall(api, "b1", "Paris", min_score=1e-6)["results"] == every
    assert recall(api, "b1", "Alice")["results"][0]["text"] == SEATTLE.text
