"""POST /v1/banks/{bank}/memories: items become the bank's retain events, or one 422
that names every bad field; auth and the body cap apply before anything is published."""

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from contracts.base import NOT_BLANK_PATTERN, RFC3339_PATTERN
from contracts.events import RetainEvent, RetainItem, derive_event_id
from tests.helpers import event, mid
from tests.unit.api_support import AUTH, TOKEN, Api, open_api, seeded_runtime

ITEM = {"text": "Dana moved to Porto.", "occurred_at": "2024-05-01T09:00:00Z"}


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from open_api(tmp_path, token=TOKEN, max_text_bytes=64, api_max_body_bytes=4096)


def fields(response: httpx.Response) -> dict[str, str]:
    body = response.json()
    assert body["error"] == "validation"
    return {d["field"]: d["problem"] for d in body["detail"]}


def test_items_are_published_as_events_of_the_url_bank(api: Api) -> None:
    given = uuid.uuid4()
    items = [ITEM, {**ITEM, "event_id": str(given), "tags": ["b", "a", "a"]}]
    r = api.client.post("/v1/banks/u-7/memories", json={"items": items})
    assert r.status_code == 202
    derived = derive_event_id("u-7", ITEM["text"], "2024-05-01T09:00:00+00:00")
    assert r.json() == {"event_ids": [str(derived), str(given)], "status": "queued"}
    assert [e.bank_id for e in api.publisher.retained] == ["u-7", "u-7"]
    assert api.publisher.retained[1].tags == ["a", "b"]


def test_the_same_item_twice_is_the_same_event(api: Api) -> None:
    first = api.client.post("/v1/banks/u-7/memories", json={"items": [ITEM]}).json()
    again = {**ITEM, "occurred_at": "2024-05-01T11:00:00+02:00"}
    second = api.client.post("/v1/banks/u-7/memories", json={"items": [again]}).json()
    assert first == second


@pytest.mark.parametrize(
    ("item", "field", "words"),
    [
        ({**ITEM, "bank_id": "other"}, "body.items.0.bank_id", "comes from the URL"),
        ({**ITEM, "occurred_at": "2024-05-01T09:00:00"}, "body.items.0.occurred_at", "timezone"),
        ({**ITEM, "text": "x" * 65}, "body.items.0.text", "SEDIMENT_MAX_TEXT_BYTES"),
        ({**ITEM, "text": "   "}, "body.items.0.text", "blank"),
        ({**ITEM, "text": "\u200b"}, "body.items.0.text", "text is blank"),
        ({**ITEM, "text": "\u200c\u200d\u2060\ufeff\u00ad"}, "body.items.0.text", "blank"),
        ({**ITEM, "importance": 2}, "body.items.0.importance", "less than or equal"),
        ({**ITEM, "colour": "red"}, "body.items.0.colour", "Extra inputs"),
        ({**ITEM, "importance": False}, "body.items.0.importance", "valid number"),
        ({**ITEM, "occurred_at": 1714554000}, "body.items.0.occurred_at", "Unix times"),
        ({**ITEM, "occurred_at": "2024-05-01"}, "body.items.0.occurred_at", "not RFC 3339"),
        ({**ITEM, "text": "\u001e"}, "body.items.0.text", "control character U+001E at position 0"),
    ],
)
def test_invalid_items_are_named(api: Api, item: dict[str, object], field: str, words: str) -> None:
    r = api.client.post("/v1/banks/u-7/memories", json={"items": [ITEM, item]})
    assert r.status_code == 422
    assert words in fields(r)[field.replace(".0.", ".1.")]
    assert api.publisher.retained == []


def test_an_event_id_twice_in_one_request_is_422_naming_the_items(api: Api) -> None:
    """Within a request a repeated event id is refused (which one would win is not the
    caller's to guess); across requests the first event of an id is kept."""
    given = "0b6f1c2e-7d4a-5c39-8e21-f0a6e3b9d417"
    items = [
        {**ITEM, "event_id": given},
        {**ITEM, "text": "Bo keeps bees."},
        {**ITEM, "text": "Alice moved to Paris.", "event_id": given},
        {**ITEM, "text": "Bo keeps bees."},
    ]
    r = api.client.post("/v1/banks/u-7/memories", json={"items": items})
    assert r.status_code == 422, r.text
    named = fields(r)
    assert set(named) == {"body.items.2.event_id", "body.items.3.event_id"}
    assert f"event_id {given} is item 0's too" in named["body.items.2.event_id"]
    assert "same text and occurred_at as item 1" in named["body.items.3.event_id"]
    assert api.publisher.retained == []


def test_the_in_process_path_keeps_the_first_event_of_an_id(tmp_path: Path) -> None:
    """Embedded, through the one retain path: across calls, and within one call (a
    worker's batch joins several requests' messages), a later event with an id already
    seen is a duplicate whatever it says."""
    rt = seeded_runtime(tmp_path)
    oslo = event("Dana lives in Oslo.", 0, bank="dup", event_id=uuid.UUID(int=99))
    rome = event("Dana lives in Rome.", 1, bank="dup", event_id=uuid.UUID(int=99))
    lima = event("Eli lives in Lima.", 0, bank="dup", event_id=uuid.UUID(int=98))
    quito = event("Eli lives in Quito.", 1, bank="dup", event_id=uuid.UUID(int=98))
    try:
        assert rt.publisher.publish_retain([oslo]) == 1
        assert rt.publisher.publish_retain([rome]) == 0
        assert rt.publisher.publish_retain([lima, quito]) == 1
        stored = rt.store.fetch("dup", [mid(oslo), mid(lima)])
        assert sorted(p.record.text for p in stored) == [
            "Dana lives in Oslo.",
            "Eli lives in Lima.",
        ]
    finally:
        rt.close()


def test_bad_bank_in_the_path_is_named(api: Api) -> None:
    r = api.client.post("/v1/banks/no%20spaces/memories", json={"items": [ITEM]})
    assert r.status_code == 422
    assert "path.bank_id" in fields(r)


@pytest.mark.parametrize("bank", [":", "...", "%2E", "%2E%2E"])
def test_a_bank_of_dots_and_colons_only_is_refused_naming_why(api: Api, bank: str) -> None:
    r = api.client.post(f"/v1/banks/{bank}/memories", json={"items": [ITEM]})
    assert r.status_code == 422, r.text
    [detail] = r.json()["detail"]
    assert detail["field"] == "path.bank_id"
    assert (
        "is not a bank id: it is only dots and colons; a bank id needs a letter"
        in detail["problem"]
    )
    assert api.publisher.retained == []
    stats = api.client.get("/v1/stats", params={"bank": ":"})
    assert stats.status_code == 422 and "only dots and colons" in stats.text


def test_empty_or_malformed_bodies_are_422(api: Api) -> None:
    assert "body.items" in fields(api.client.post("/v1/banks/u/memories", json={"items": []}))
    r = api.client.post(
        "/v1/banks/u/memories", content=b"{not json", headers={"content-type": "application/json"}
    )
    assert r.status_code == 422 and r.json()["error"] == "validation"


def test_a_body_that_is_not_utf8_is_400_with_the_offset(api: Api) -> None:
    body = b'{"items": [{"text": "caf\xe9", "occurred_at": "2024-05-01T09:00:00Z"}]}'
    r = api.client.post("/v1/banks/u/memories", content=body)
    assert r.status_code == 400, r.text
    assert r.json()["error"] == "bad_request"
    assert "not valid UTF-8: byte 0xe9 at offset 24" in r.json()["message"]
    assert api.publisher.retained == []


def test_the_openapi_document_says_what_is_accepted(api: Api) -> None:
    schema = api.client.get("/openapi.json").json()
    assert "400" in schema["paths"]["/v1/banks/{bank_id}/memories"]["post"]["responses"]
    item = schema["components"]["schemas"]["RetainItem"]["properties"]
    assert item["occurred_at"]["pattern"] == RFC3339_PATTERN
    assert item["text"]["pattern"] == NOT_BLANK_PATTERN
    assert "control characters" in item["text"]["description"]
    recall = schema["components"]["schemas"]["RecallRequest"]["properties"]
    assert recall["explain"]["type"] == "boolean" and recall["limit"]["type"] == "integer"


def test_oversized_body_is_413_json(api: Api) -> None:
    big = {"items": [{**ITEM, "text": "y" * 60}] * 80}
    r = api.client.post("/v1/banks/u/memories", content=json.dumps(big).encode())
    assert r.status_code == 413
    assert r.json()["error"] == "too_large" and "SEDIMENT_API_MAX_BODY_BYTES" in r.json()["message"]


def test_streamed_oversized_body_is_413(api: Api) -> None:
    def chunks() -> Iterator[bytes]:
        yield b'{"items": ['
        for _ in range(100):
            yield json.dumps(ITEM).encode() + b","
        yield json.dumps(ITEM).encode() + b"]}"

    r = api.client.post("/v1/banks/u/memories", content=chunks())
    assert r.status_code == 413


@pytest.mark.parametrize("headers", [{"Authorization": ""}, {"Authorization": "Bearer wrong"}])
def test_token_is_required(api: Api, headers: dict[str, str]) -> None:
    r = api.client.post("/v1/banks/u/memories", json={"items": [ITEM]}, headers=headers)
    assert r.status_code == 401
    assert r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    assert api.publisher.retained == []


def test_broker_failure_is_503(api: Api) -> None:
    api.publisher.failing = True
    r = api.client.post("/v1/banks/u/memories", json={"items": [ITEM]}, headers=AUTH)
    assert r.status_code == 503 and r.json()["error"] == "unavailable"


def test_retain_item_is_the_contract_without_bank_id() -> None:
    """Plus `ttl_s`, which the API turns into the event's `expires_at`."""
    item = set(RetainItem.model_fields) - {"ttl_s"}
    assert item == set(RetainEvent.model_fields) - {"bank_id"}
