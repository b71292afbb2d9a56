"""The forget endpoints publish one ForgetEvent each, with exactly one selector; an
embedded runtime's own publisher forgets before the response."""

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from contracts.memory import derive_memory_id
from contracts.recall import RecallRequest
from readmodel.store import Filter
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from tests.unit.api_support import BOSTON, CELLO_1, Api, mid, open_api, seeded_runtime


@pytest.fixture
def api(tmp_path: Path) -> Iterator[Api]:
    yield from open_api(tmp_path)


def test_each_endpoint_publishes_one_selector(api: Api) -> None:
    memory = mid(BOSTON)
    assert api.client.delete(f"/v1/banks/b1/memories/{memory}").status_code == 202
    r = api.client.delete("/v1/banks/b1/memories", params={"tag": ["x", "y"], "source_id": "s"})
    assert r.status_code == 202
    assert api.client.delete("/v1/banks/b1").status_code == 202
    body = {"filter": {"entities": ["Bob"], "start": "2024-01-01T00:00:00Z"}}
    assert api.client.post("/v1/banks/b1/forget", json=body).status_code == 202
    by_id, by_filter, whole, posted = api.publisher.forgets
    assert by_id.memory_ids == [memory] and by_id.bank_id == "b1"
    assert by_filter.filter is not None and by_filter.filter.tags == ["x", "y"]
    assert by_filter.filter.source_id == "s"
    assert whole.all_memories
    assert posted.filter is not None and posted.filter.entities == ["Bob"]


def test_forgetting_an_unknown_id_is_404_and_publishes_nothing(api: Api) -> None:
    never = uuid.uuid4()
    r = api.client.delete(f"/v1/banks/b1/memories/{never}")
    assert r.status_code == 404
    assert f"no memory {never} in bank b1: nothing was forgotten" in r.json()["message"]
    other_bank = api.client.delete(f"/v1/banks/b2/memories/{mid(BOSTON)}")
    assert other_bank.status_code == 404
    assert api.publisher.forgets == []


def test_forget_takes_event_ids_of_the_bank(api: Api) -> None:
    """`event_ids`, as docs/data.md lists it: the memories those retains of the bank store."""
    r = api.client.post("/v1/banks/b1/forget", json={"event_ids": [str(BOSTON.event_id)]})
    assert r.status_code == 202, r.text
    [posted] = api.publisher.forgets
    assert posted.event_ids == [BOSTON.event_id] and posted.bank_id == "b1"
    assert posted.memory_ids == []
    both = {"event_ids": [str(BOSTON.event_id)], "memory_ids": [str(mid(BOSTON))]}
    r = api.client.post("/v1/banks/b1/forget", json=both)
    assert r.status_code == 422 and "exactly one selector: memory_ids, event_ids" in r.text


def test_an_id_the_bank_does_not_hold_is_one_404_whichever_way_it_is_forgotten(
    api: Api,
) -> None:
    """DELETE .../memories/{id} and POST .../forget answer alike for an id the bank does
    not hold, and the same whether another bank holds it or none does."""
    elsewhere, nowhere = mid(BOSTON), uuid.uuid4()  # BOSTON is bank b1's

    def answers(memory: uuid.UUID) -> list[tuple[int, str]]:
        said = [
            api.client.delete(f"/v1/banks/b2/memories/{memory}"),
            api.client.post("/v1/banks/b2/forget", json={"memory_ids": [str(memory)]}),
        ]
        return [(r.status_code, r.json()["message"].replace(str(memory), "ID")) for r in said]

    assert answers(elsewhere) == answers(nowhere)
    [(status, message), other] = answers(elsewhere)
    assert (status, message) == other and status == 404
    assert message.startswith("no memory ID in bank b2: nothing was forgotten")
    by_event = api.client.post("/v1/banks/b2/forget", json={"event_ids": [str(BOSTON.event_id)]})
    assert by_event.status_code == 404
    assert (
        f"no memory {derive_memory_id('b2', BOSTON.event_id)} in bank b2"
        in (by_event.json()["message"])
    )
    some = {"memory_ids": [str(mid(BOSTON)), str(nowhere), str(uuid.uuid4())]}
    r = api.client.post("/v1/banks/b1/forget", json=some)
    assert r.status_code == 404 and "(and 1 more of the ids given)" in r.json()["message"]
    assert api.publisher.forgets == []


def test_no_selector_or_two_selectors_is_422(api: Api) -> None:
    assert api.client.delete("/v1/banks/b1/memories").status_code == 422
    both = {"memory_ids": [str(mid(BOSTON))], "all_memories": True}
    r = api.client.post("/v1/banks/b1/forget", json=both)
    assert r.status_code == 422 and "exactly one selector" in r.text
    assert api.publisher.forgets == []


@pytest.mark.parametrize(
    ("params", "field", "problem"),
    [
        ({}, "query", "at least one condition"),
        ({"source_id": "", "end": "2000-01-01T00:00:00Z"}, "query.source_id", "at least 1"),
        ({"start": "2024-01-01T00:00:00"}, "query.start", "no timezone"),
        ({"tag": "a\x01"}, "query.tag.0", "control character"),
    ],
)
def test_a_bad_filter_in_the_query_is_422_naming_the_parameter(
    api: Api, params: dict[str, str], field: str, problem: str
) -> None:
    """Each problem named as validation names it elsewhere; never pydantic's own text
    (its class names and links) as the message."""
    r = api.client.delete("/v1/banks/b1/memories", params=params)
    assert r.status_code == 422 and r.json()["error"] == "validation"
    [detail] = r.json()["detail"]
    assert detail["field"] == field and problem in detail["problem"]
    assert "pydantic" not in r.text and "ForgetFilter" not in r.text
    assert api.publisher.forgets == []


@pytest.mark.parametrize(
    "body",
    [
        {"memory_ids": [str(mid(BOSTON))], "all_memories": 0},
        {"all_memories": "true"},
        {"filter": {}},
        {"filter": {"tags": []}},
        {"memory_ids": [], "all_memories": False},
    ],
)
def test_a_body_the_schema_refuses_is_refused(api: Api, body: dict[str, object]) -> None:
    """The OpenAPI document says what validation does: a flag is true or false, a filter
    needs a condition, a forget exactly one selector."""
    r = api.client.post("/v1/banks/b1/forget", json=body)
    assert r.status_code == 422 and r.json()["error"] == "validation"
    assert api.publisher.forgets == []


def test_the_forget_schemas_declare_their_rules(api: Api) -> None:
    schema = api.client.get("/openapi.json").json()["components"]["schemas"]
    assert len(schema["ForgetBody"]["oneOf"]) == 4
    assert {tuple(c["required"]) for c in schema["ForgetFilter"]["anyOf"]} == {
        ("tags",),
        ("entities",),
        ("start",),
        ("end",),
        ("source_id",),
    }


def test_405_allows_every_method_served_at_the_path(api: Api) -> None:
    """POST retains and DELETE forgets at the same path, from two routers."""
    r = api.client.request("OPTIONS", "/v1/banks/b1/memories")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, POST"
    r = api.client.put(f"/v1/banks/b1/memories/{mid(BOSTON)}")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, GET"


def test_embedded_forget_is_done_before_the_response(tmp_path: Path) -> None:
    rt = seeded_runtime(tmp_path)
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=rt.publisher,
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr("t"),
    )
    with TestClient(create_app(deps), headers={"Authorization": "Bearer t"}) as client:
        r = client.delete(f"/v1/banks/b1/memories/{mid(CELLO_1)}")
        assert r.status_code == 202 and r.json()["forgotten"] == 1
        assert r.json()["queued"] is False
        results = rt.recaller.recall("b1", RecallRequest(query="cello orchestra", limit=10))
        assert mid(CELLO_1) not in {x.id for x in results.results}
        assert client.delete("/v1/banks/b1").json()["forgotten"] == 3
        assert rt.store.count(Filter("b1")) == 0
        assert rt.store.count(Filter("b2")) == 1
        assert client.delete("/v1/banks/b1/memories/x").status_code == 422
        before = rt.tombstones.of_bank("b1")
        assert client.delete(f"/v1/banks/b1/memories/{uuid.uuid4()}").status_code == 404
        assert rt.tombstones.of_bank("b1") == before
    rt.close()


def test_the_schema_says_what_the_forget_routes_take(api: Api) -> None:
    """Exactly one selector in the body, at least one condition in a filter, non-empty
    query labels, and a 405 that lists every method of the path."""
    schemas = api.client.get("/openapi.json").json()["components"]["schemas"]
    assert len(schemas["ForgetBody"]["oneOf"]) == 4
    assert len(schemas["ForgetFilter"]["anyOf"]) == 5
    assert schemas["RetainItem"]["not"]["required"] == ["ttl_s", "expires_at"]
    r = api.client.delete("/v1/banks/b1/memories")
    assert r.status_code == 422 and "give at least one condition" in r.text
    assert api.client.delete("/v1/banks/b1/memories?source_id=").status_code == 422
    r = api.client.post("/v1/banks/b1/forget", json={"memory_ids": [], "all_memories": True})
    assert r.status_code == 202
    r = api.client.post("/v1/banks/b1/forget", json={"filter": {}})
    assert r.status_code == 422 and "at least one of" in r.text
    r = api.client.options("/v1/banks/b1/memories")
    assert r.status_code == 405 and r.headers["allow"] == "DELETE, POST"


def test_the_short_id_recall_shows_names_the_memory_over_http(api: Api) -> None:
    memory = mid(BOSTON)
    view = api.client.get(f"/v1/banks/b1/memories/{str(memory)[:6]}")
    assert view.status_code == 200 and view.json()["memory"]["id"] == str(memory)
    assert api.client.get("/v1/banks/b1/memories/zzzzzz").status_code == 422
    assert api.client.get("/v1/banks/b2/memories/" + str(memory)[:6]).status_code == 404
    assert api.client.delete(f"/v1/banks/b1/memories/{str(memory)[:6]}").status_code == 202
    assert api.publisher.forgets[-1].memory_ids == [memory]
