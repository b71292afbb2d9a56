"""The client's retries and errors at the transport level (httpx.MockTransport stands in
for the server; the round trip against a real `sediment serve` is in
tests/e2e/test_client.py): what is retried, how long it waits, that a retried retain
sends the same event ids, and which exception each error answer raises."""

import asyncio
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import httpx
import pytest

from sediment.client import (
    AsyncSedimentClient,
    AuthError,
    NotFound,
    Retry,
    SedimentClient,
    SedimentError,
    Unavailable,
    ValidationFailed,
)
from sediment.client.retry import retry_after

T0 = datetime(2024, 1, 1, 9, tzinfo=UTC)
NO_JITTER = Retry(attempts=4, backoff_s=0.5, max_delay_s=30.0, jitter=0.0)
ACCEPTED = {"event_ids": ["00000000-0000-0000-0000-000000000001"]}
Answer = Callable[[httpx.Request], httpx.Response]


def scripted(*answers: Answer | type[httpx.TransportError]) -> tuple[list[httpx.Request], Answer]:
    """Answers in order (an exception class is raised instead); the last one repeats."""
    seen: list[httpx.Request] = []
    script: Iterator[Answer | type[httpx.TransportError]] = iter(answers)
    last: list[Answer | type[httpx.TransportError]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        step = next(script, None) or last[0]
        last[:] = [step]
        if isinstance(step, type):
            raise step("scripted failure", request=request)
        return step(request)

    return seen, handle


def status(code: int, body: object = None, **headers: str) -> Answer:
    return lambda _: httpx.Response(code, json=body if body is not None else {}, headers=headers)


def client(handle: Answer, sleeps: list[float], retry: Retry = NO_JITTER) -> SedimentClient:
    return SedimentClient(
        "http://sediment.test",
        token="t0ken",
        bank="b1",
        retry=retry,
        transport=httpx.MockTransport(handle),
        sleep=sleeps.append,
    )


@pytest.mark.parametrize(
    ("retry", "wait"),
    [(1, 0.5), (2, 1.0), (3, 2.0), (8, 30.0)],
)
def test_backoff_doubles_up_to_the_cap(retry: int, wait: float) -> None:
    assert NO_JITTER.delay(retry) == wait


def test_jitter_stays_within_its_fraction() -> None:
    policy = Retry(backoff_s=1.0, jitter=0.25)
    assert all(0.75 <= policy.delay(1) <= 1.25 for _ in range(200))


@pytest.mark.parametrize(
    ("header", "seconds"),
    [
        ("3", 3.0),
        ("0.5", 0.5),
        ("-4", 0.0),
        (format_datetime(T0 + timedelta(seconds=90), usegmt=True), 90.0),
        (format_datetime(T0 - timedelta(seconds=90), usegmt=True), 0.0),
        ("soon", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_reads_seconds_and_dates(header: str | None, seconds: float | None) -> None:
    assert retry_after(header, now=T0) == seconds


def test_503_then_429_are_retried_with_the_same_event_ids() -> None:
    seen, handle = scripted(status(503), status(429, **{"Retry-After": "7"}), status(202, ACCEPTED))
    sleeps: list[float] = []
    with client(handle, sleeps) as c:
        accepted = c.retain("Alice lives in Boston.", occurred_at=T0, key="alice.city")
    assert [str(e) for e in accepted.event_ids] == ACCEPTED["event_ids"]
    assert sleeps == [0.5, 7.0]
    bodies = [json.loads(r.content) for r in seen]
    assert len(bodies) == 3 and bodies[0] == bodies[1] == bodies[2]
    assert bodies[0]["items"][0]["event_id"]
    assert all(r.headers["authorization"] == "Bearer t0ken" for r in seen)


def test_connection_errors_are_retried() -> None:
    seen, handle = scripted(httpx.ConnectError, httpx.ReadTimeout, status(202, ACCEPTED))
    sleeps: list[float] = []
    with client(handle, sleeps) as c:
        c.retain("Bob likes tea.", occurred_at=T0)
    assert len(seen) == 3 and sleeps == [0.5, 1.0]


def test_a_retry_after_above_the_cap_waits_the_cap() -> None:
    _, handle = scripted(status(503, **{"Retry-After": "3600"}), status(202, ACCEPTED))
    sleeps: list[float] = []
    with client(handle, sleeps) as c:
        c.retain("Carol sings.", occurred_at=T0)
    assert sleeps == [30.0]


def test_out_of_attempts_is_unavailable() -> None:
    body = {"error": "unavailable", "message": "the broker did not take the events; retry"}
    seen, handle = scripted(status(503, body))
    sleeps: list[float] = []
    with client(handle, sleeps) as c, pytest.raises(Unavailable) as caught:
        c.retain("Dan swims.", occurred_at=T0)
    assert len(seen) == 4 and sleeps == [0.5, 1.0, 2.0]
    assert caught.value.status == 503 and "broker did not take" in str(caught.value)
    seen, handle = scripted(httpx.ConnectError)
    with client(handle, []) as c, pytest.raises(Unavailable, match="no answer from") as lost:
        c.health()
    assert len(seen) == 4 and isinstance(lost.value.__cause__, httpx.ConnectError)


@pytest.mark.parametrize(
    ("code", "body", "kind", "words"),
    [
        (
            401,
            {"error": "unauthorized", "message": "missing or wrong bearer token"},
            AuthError,
            "bearer",
        ),
        (403, {"error": "forbidden", "message": "not this bank"}, AuthError, "not this bank"),
        (404, {"error": "not_found", "message": "no memory x in bank b1"}, NotFound, "no memory"),
        (
            422,
            {"error": "validation", "detail": [{"field": "body.query", "problem": "too short"}]},
            ValidationFailed,
            "body.query: too short",
        ),
        (413, {"error": "too_large", "message": "over 1024 bytes"}, ValidationFailed, "1024"),
        (500, {"error": "error", "message": "internal error"}, SedimentError, "internal"),
        (502, "<html>bad gateway</html>", SedimentError, "502"),
    ],
)
def test_errors_are_not_retried_and_carry_the_server_message(
    code: int, body: object, kind: type[SedimentError], words: str
) -> None:
    seen, handle = scripted(status(code, body))
    with client(handle, []) as c, pytest.raises(kind) as caught:
        c.recall("Alice")
    assert type(caught.value) is kind and len(seen) == 1
    assert caught.value.status == code and words in str(caught.value)
    if code == 422:
        assert [d.field for d in caught.value.detail] == ["body.query"]


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda c: c.recall("Alice", bank="a b"), "not a bank id"),
        (lambda c: c.recall("Alice", limit=0), "limit"),
        (lambda c: c.recall(""), "query"),
        (lambda c: c.memory("not-a-uuid"), "is not a memory id"),
        (lambda c: c.retain("x", occurred_at=datetime(2024, 1, 1)), "timezone"),
        (lambda c: c.feedback("00000000-0000-0000-0000-000000000001", "meh"), "vote"),  # type: ignore[arg-type]
    ],
)
def test_bad_input_fails_before_sending(
    call: Callable[[SedimentClient], object], words: str
) -> None:
    seen, handle = scripted(status(200))
    with client(handle, []) as c, pytest.raises(ValidationFailed, match=words):
        call(c)
    assert seen == []


def test_a_call_without_a_bank_needs_a_default() -> None:
    seen, handle = scripted(status(200))
    with (
        SedimentClient(transport=httpx.MockTransport(handle)) as c,
        pytest.raises(ValidationFailed, match="no bank"),
    ):
        c.recall("Alice")
    assert seen == []


def test_health_reports_a_failed_component_without_retrying() -> None:
    seen, handle = scripted(status(503, {"store": "ok", "redis": "failed", "broker": "ok"}))
    with client(handle, []) as c:
        assert c.health().redis == "failed"
    assert len(seen) == 1


def test_the_async_client_retries_alike() -> None:
    seen, handle = scripted(httpx.ConnectError, status(503), status(202, ACCEPTED))
    sleeps: list[float] = []

    async def sleep(seconds: float) -> None:
        sleeps.append(seconds)

    async def run() -> None:
        async with AsyncSedimentClient(
            "http://sediment.test",
            bank="b1",
            retry=NO_JITTER,
            transport=httpx.MockTransport(handle),
            sleep=sleep,
        ) as c:
            await c.retain("Erin keeps bees.", occurred_at=T0)

    asyncio.run(run())
    assert sleeps == [0.5, 1.0]
    assert len({json.loads(r.content)["items"][0]["event_id"] for r in seen[1:]}) == 1
