"""Logging as a process configures it: one JSON format for structlog and the stdlib
loggers of Celery and uvicorn, context bound per request and per task, and no task
body in Celery's own error lines. Run in a child process: structlog and the logging
module are process-wide, and pytest's own capture must not be rewired."""

import json
import subprocess
import sys
from typing import Any

import pytest

from sediment.logs import task_context

SCRIPT = r"""
import logging
import structlog
from celery.signals import task_postrun, task_prerun
from sediment.logs import configure

class Task:
    name = "sediment.retain.v1"

configure("json", "INFO")
log = structlog.get_logger("sediment.test")
with structlog.contextvars.bound_contextvars(request_id="req-1"):
    logging.getLogger("uvicorn.error").info("Started server process [%d]", 42)
    log.info("request", path="/v1/banks/b/recall")
payload = {"event_id": "e-1", "bank_id": "b", "text": "SECRET-PAYLOAD-TEXT"}
task_prerun.send(sender=None, task_id="t-1", task=Task(), args=(payload,), kwargs={})
logging.getLogger("celery.app.trace").info("Task %s[%s] running", "sediment.retain.v1", "t-1")
log.info("consolidated")
task_postrun.send(sender=None, task_id="t-1", task=Task(), args=(payload,), kwargs={})
log.info("after the task")
logging.getLogger("celery.worker.consumer.consumer").error(
    "Received unregistered task of type %r.\nThe full contents of the message body was:\n%s",
    "nope.v1", "SECRET-BODY-TEXT", exc_info=ValueError("SECRET-BODY-TEXT"))
logging.getLogger("kombu.connection").info("chatty transport detail")
log.debug("below the level")
"""


@pytest.fixture(scope="module")
def lines() -> list[dict[str, Any]]:
    out = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True
    )
    assert out.stdout == ""
    return [json.loads(line) for line in out.stderr.splitlines() if line.strip()]


def by_event(lines: list[dict[str, Any]], start: str) -> dict[str, Any]:
    [line] = [x for x in lines if str(x["event"]).startswith(start)]
    return line


def test_stdlib_and_structlog_lines_share_one_json_format(lines: list[dict[str, Any]]) -> None:
    uvicorn = by_event(lines, "Started server process [42]")
    assert uvicorn["logger"] == "uvicorn.error" and uvicorn["level"] == "info"
    assert uvicorn["request_id"] == "req-1" and "timestamp" in uvicorn
    assert by_event(lines, "request")["request_id"] == "req-1"


def test_task_ids_are_bound_for_the_task_only(lines: list[dict[str, Any]]) -> None:
    celery = by_event(lines, "Task sediment.retain.v1[t-1] running")
    ours = by_event(lines, "consolidated")
    for line in (celery, ours):
        assert (line["task_id"], line["bank_id"], line["event_id"]) == ("t-1", "b", "e-1")
    after = by_event(lines, "after the task")
    assert not {"task_id", "bank_id", "event_id", "request_id"} & set(after)


def test_no_task_body_and_no_noise(lines: list[dict[str, Any]]) -> None:
    text = json.dumps(lines)
    assert "SECRET" not in text
    withheld = by_event(lines, "task message rejected")
    assert withheld["level"] == "error" and "exception" not in withheld
    assert not any("chatty" in str(x["event"]) or "below" in str(x["event"]) for x in lines)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (({"event_id": "e", "bank_id": "b", "text": "t"},), {"bank_id": "b", "event_id": "e"}),
        (
            ([{"bank_id": "b2", "event_id": "1"}, {"bank_id": "b1", "event_id": "2"}],),
            {"bank_id": "b1,b2"},
        ),
        (([{"bank_id": "b", "event_id": "only"}],), {"bank_id": "b", "event_id": "only"}),
        (("not a payload",), {}),
        ((), {}),
        (({"bank_id": 7},), {}),
    ],
)
def test_task_context_names_ids_never_content(
    args: tuple[Any, ...], expected: dict[str, str]
) -> None:
    bound = task_context("t", "sediment.retain.v1", args)
    assert bound == {"task_id": "t", "task": "sediment.retain.v1", **expected}
