"""Operator commands as a user runs them (embedded mode, one data directory): dead-letter
replay that succeeds, ingest's duplicate count and ids, inspect without a bank, the demo
in the configured store, twice."""

import json
import subprocess
import uuid
from pathlib import Path

from contracts.deadletter import DeadLetter
from contracts.events import derive_event_id
from sediment.ingest import complete
from sediment.maintenance import _events_of
from tests.e2e.cli import sediment as run_cli
from worker.celery_app import FEEDBACK_TASK, RETAIN_BATCH_TASK
from worker.deadletters import FileDeadLetters

LONG_TEXT = "Ines keeps a detailed logbook of every glacier crossing she guides. " * 3


HASH = {"SEDIMENT_EMBEDDER": "hash"}


def sediment(
    tmp: Path, *args: str, env: dict[str, str] | None = None, check: bool = True
) -> subprocess.CompletedProcess[str]:
    """The CLI with the hash embedder: these tests are about operations, not meaning."""
    return run_cli(tmp, *args, env={**HASH, **(env or {})}, check=check)


def write_lines(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_a_dead_letter_replays_once_its_cause_is_fixed(tmp_path: Path) -> None:
    line = {"text": LONG_TEXT, "occurred_at": "2024-04-01T08:00:00Z"}
    path = write_lines(tmp_path / "in.jsonl", [line])
    small = {"SEDIMENT_MAX_TEXT_BYTES": "64"}
    out = sediment(tmp_path, "ingest", "--bank", "guides", str(path), env=small, check=False)
    assert "dead-lettered 1" in out.stdout
    still = sediment(tmp_path, "dlq", "replay", "--bank", "guides", env=small).stdout
    assert "replayed 0, still failing 1" in still
    assert (
        "replayed 1, still failing 0"
        in sediment(tmp_path, "dlq", "replay", "--bank", "guides").stdout
    )
    assert json.loads(sediment(tmp_path, "dlq", "list", "--json").stdout) == []
    recalled = json.loads(
        sediment(tmp_path, "recall", "--bank", "guides", "--json", "glacier logbook").stdout
    )
    expected = derive_event_id("guides", LONG_TEXT, "2024-04-01T08:00:00+00:00")
    assert [r["text"] for r in recalled["results"]] == [LONG_TEXT]
    sediment(tmp_path, "inspect", "--bank", "guides", recalled["results"][0]["id"])
    assert expected == uuid.UUID(str(complete(line, "guides")["event_id"]))


def letter(task: str, payload: object) -> DeadLetter:
    body = payload if isinstance(payload, str) else json.dumps(payload)
    now = "2024-01-01T00:00:00Z"
    return DeadLetter.model_validate(
        {
            "task": task,
            "payload": body,
            "error_class": "X",
            "message": "m",
            "attempts": 1,
            "first_seen": now,
            "last_seen": now,
        }
    )


def test_a_truncated_dead_letter_is_named_and_kept_not_replayed(tmp_path: Path) -> None:
    """An oversized poison batch keeps only a preview (D1): replay says it cannot bring
    the event back, instead of failing on a cut JSON document, and leaves it there."""
    events = [{"bank_id": "b", "text": "x" * 1000, "occurred_at": "nope"}] * 20
    small = {"SEDIMENT_DLQ_MAX_PAYLOAD_BYTES": "4096"}
    FileDeadLetters(tmp_path / "data" / "dlq.jsonl", 100, max_payload_bytes=4096).add(
        letter(RETAIN_BATCH_TASK, events)
    )
    [kept] = json.loads(sediment(tmp_path, "dlq", "list", "--json", env=small).stdout)
    assert kept["truncated"] and kept["payload_bytes"] > 20_000
    out = sediment(tmp_path, "dlq", "replay", env=small, check=False)
    assert out.returncode == 1, out.stdout + out.stderr
    said = " ".join(out.stderr.split())
    assert f"{kept['id']}: cannot be replayed" in said and "the full payload is gone" in said
    assert kept["payload_sha256"] in said and "replayed 0, still failing 0" in out.stdout
    assert json.loads(sediment(tmp_path, "dlq", "list", "--json").stdout) == [kept]
    assert "removed 1" in sediment(tmp_path, "dlq", "remove", kept["id"]).stdout


def test_replay_understands_feedback_batch_members_and_ingest_lines() -> None:
    vote = {
        "event_id": str(uuid.uuid4()),
        "bank_id": "b",
        "memory_id": str(uuid.uuid4()),
        "vote": "up",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    feedback = _events_of(letter(FEEDBACK_TASK, vote), 16384, None)
    assert not isinstance(feedback, list) and feedback.vote == "up"
    member = {
        "event_id": str(uuid.uuid4()),
        "bank_id": "b",
        "text": "t",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    (event,) = _events_of(letter(RETAIN_BATCH_TASK, member), 16384, None)  # type: ignore[misc]
    assert str(event.event_id) == member["event_id"]
    raw_line = '{"text": "t", "occurred_at": "2024-01-01T02:00:00+02:00"}'
    (from_line,) = _events_of(letter("ingest", raw_line), 16384, "b")  # type: ignore[misc]
    assert from_line.event_id == derive_event_id("b", "t", "2024-01-01T00:00:00+00:00")


def test_ingest_counts_duplicates_and_one_instant_is_one_event(tmp_path: Path) -> None:
    same = {"bank_id": "u", "text": "Tove sails on Sundays."}
    rows = [
        {**same, "occurred_at": "2024-05-01T09:00:00Z"},
        {**same, "occurred_at": "2024-05-01T09:00:00+00:00"},
        {**same, "occurred_at": "2024-05-01T11:00:00+02:00"},
        {**same, "text": "Tove sails on Saturdays too.", "occurred_at": "2024-05-02T09:00:00Z"},
    ]
    path = write_lines(tmp_path / "in.jsonl", rows)
    first = sediment(tmp_path, "ingest", str(path)).stdout
    assert "consolidated 2 events, dead-lettered 0, skipped 2 duplicates" in first
    again = sediment(tmp_path, "ingest", str(path)).stdout
    assert "consolidated 0 events, dead-lettered 0, skipped 4 duplicates" in again


def test_inspect_without_a_bank_says_what_to_give(tmp_path: Path) -> None:
    out = sediment(tmp_path, "inspect", str(uuid.uuid4()), check=False)
    assert out.returncode == 2 and "--bank" in out.stderr and "own bank" in out.stderr


def test_demo_writes_to_the_configured_store_and_runs_twice(tmp_path: Path) -> None:
    first = " ".join(sediment(tmp_path, "demo").stdout.split())
    assert f"store: {tmp_path / 'data'}, bank 'demo'" in first
    assert "0 already stored" in first
    second = " ".join(sediment(tmp_path, "demo").stdout.split())
    assert "0 stored now" in second
    recalled = json.loads(
        sediment(tmp_path, "recall", "--bank", "demo", "--json", "Where does Maya live?").stdout
    )
    assert recalled["results"]
