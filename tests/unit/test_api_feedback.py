"""Votes through HTTP: only on memories of the URL's bank, and safe batch marking of a
session's last recall (an empty list marks nothing)."""

import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers import mid
from tests.unit.api_support import BOSTON, LISBON, SEATTLE, Api, open_api


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from open_api(tmp_path)


def test_vote_is_published_for_a_memory_of_the_bank(api: Api) -> None:
    eid = uuid.uuid4()
    body = {"memory_id": str(mid(SEATTLE)), "vote": "up", "session_key": "s", "event_id": str(eid)}
    r = api.client.post("/v1/banks/b1/feedback", json=body)
    assert (r.status_code, r.json()) == (202, {"event_id": str(eid)})
    [event] = api.publisher.feedback
    assert (event.bank_id, event.memory_id, event.vote) == ("b1", mid(SEATTLE), "up")


@pytest.mark.parametrize("memory", [mid(LISBON), uuid.uuid4()])
def test_vote_on_a_memory_outside_the_bank_is_404(api: Api, memory: uuid.UUID) -> None:
    r = api.client.post("/v1/banks/b1/feedback", json={"memory_id": str(memory), "vote": "down"})
    assert r.status_code == 404 and r.json()["error"] == "not_found"
    assert api.publisher.feedback == []


def test_unknown_vote_is_named(api: Api) -> None:
    r = api.client.post(
        "/v1/banks/b1/feedback", json={"memory_id": str(mid(BOSTON)), "vote": "meh"}
    )
    assert r.status_code == 422 and r.json()["detail"][0]["field"] == "body.vote"


def shown_ids(api: Api, session: str) -> list[str]:
    body = {"query": "Alice lives", "session_key": session, "state_mode": "history"}
    results = api.client.post("/v1/banks/b1/recall", json=body).json()["results"]
    assert len(results) >= 2
    return [r["id"] for r in results]


def mark(api: Api, bank: str, session: str, useful: list[str]) -> httpx.Response:
    body = {"session_key": session, "useful_ids": useful}
    return api.client.post(f"/v1/banks/{bank}/feedback/last-recall", json=body)


def test_empty_useful_list_marks_nothing(api: Api) -> None:
    shown_ids(api, "s-1")
    r = mark(api, "b1", "s-1", [])
    assert r.status_code == 202
    assert r.json() == {"useful": 0, "marked_not_useful": 0, "event_ids": []}
    assert api.publisher.feedback == []


def test_useful_ids_mark_the_rest_not_useful_once(api: Api) -> None:
    ids = shown_ids(api, "s-2")
    first = mark(api, "b1", "s-2", [ids[0]]).json()
    assert first["useful"] == 1 and first["marked_not_useful"] == len(ids) - 1
    marked = [str(e.memory_id) for e in api.publisher.feedback]
    assert sorted(marked) == sorted(ids[1:])
    assert {e.vote for e in api.publisher.feedback} == {"not_useful"}
    again = mark(api, "b1", "s-2", [ids[0]]).json()
    assert again["event_ids"] == first["event_ids"]


def test_marking_needs_a_last_recall_in_this_bank(api: Api) -> None:
    ids = shown_ids(api, "s-3")
    assert mark(api, "b2", "s-3", ids[:1]).status_code == 404
    unrelated = mark(api, "b1", "s-3", [str(uuid.uuid4())]).json()
    assert unrelated["marked_not_useful"] == 0
    assert api.publisher.feedback == []
