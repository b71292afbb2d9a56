"""The pure parts of the CLI's client mode, bank finding and the small print rules:
nearest bank names, counts in words, one-line dead-letter reasons and their table, the
recall row's label, embedded metrics carried between processes, a snapshot read back
from JSON."""

import json
import logging
import uuid
from datetime import UTC, datetime
from pathlib import Path

import fakeredis
import httpx
import pydantic
import pytest
from kombu import Connection
from rich.console import Console

from contracts.deadletter import DeadLetter
from contracts.events import RetainEvent
from contracts.memory import State
from contracts.recall import RecallResponse, RecallResult
from sediment import store_owner
from sediment.api.banks import empty_bank_note, nearest
from sediment.ingest import IngestSummary, Interrupted
from sediment.maintenance import letters_table
from sediment.mcp_bridge import relay
from sediment.render import recall_table
from sediment.serve import served_url
from sediment.settings import Settings
from sediment.store_owner import StoreOwnedError
from sediment.topology import Topology
from sediment.words import counted
from telemetry import series_file
from telemetry.metrics import EVENTS, snapshot_from_json
from telemetry.redis_series import ProcessMetrics
from tests.helpers import cli_commands
from worker.errors import invalid


def test_nearest_names_the_same_name_in_another_case_first() -> None:
    assert nearest("Eve", ["alice", "eve", "evelyn"]) == ["eve", "evelyn"]
    assert nearest("notes", ["notes-2", "nodes", "zzz"]) == ["notes-2", "nodes"]
    assert nearest("nope", ["alice", "bob"]) == []


def test_empty_bank_note_says_what_there_is() -> None:
    assert empty_bank_note("Eve", ["eve"]) == "bank 'Eve' holds no memories; did you mean 'eve'?"
    assert "the banks are: alice, bob (sediment banks)" in empty_bank_note("x", ["bob", "alice"])
    assert "no bank does yet" in empty_bank_note("x", [])


def test_counts_agree_with_their_nouns() -> None:
    assert counted(1, "event") == "1 event" and counted(2, "event") == "2 events"
    assert counted(1, "memory", "memories") == "1 memory"
    assert counted(0, "memory", "memories") == "0 memories"
    line = IngestSummary(1, 1, 0, published=False).line()
    assert line == "consolidated 1 event, dead-lettered 0, skipped 1 duplicate"
    said = Interrupted(64, 3000).said()
    assert said.startswith("interrupted: 64 events of 3000 taken; run the same command again")


def test_a_validation_reason_is_one_line_without_pydantic_s_link() -> None:
    with pytest.raises(pydantic.ValidationError) as caught:
        RetainEvent.model_validate({"bank_id": "b", "text": "t", "occurred_at": "2024-01-01"})
    assert "errors.pydantic.dev" in str(caught.value) and "\n" in str(caught.value)
    reason = str(invalid(caught.value))
    assert "\n" not in reason and "pydantic" not in reason
    assert "occurred_at: timestamp is not RFC 3339" in reason and "2024-01-01" not in reason
    assert "; event_id: Field required" in reason


def _result(**fields: object) -> RecallResult:
    base = {
        "id": uuid.UUID("d1978c57-d77d-545c-aef0-fbf54f294025"),
        "kind": "world",
        "text": "Alice moved to Seattle.",
        "score": 0.8,
        "state": State.CURRENT,
        "occurred_at": datetime(2024, 1, 10, 9, tzinfo=UTC),
    }
    return RecallResult.model_validate({**base, **fields})


def test_the_recall_row_says_which_older_state_it_is_shown_for_and_keeps_its_time() -> None:
    older = uuid.UUID("05e1135a-0000-5000-8000-000000000000")
    response = RecallResponse(bank_id="notes", query="q", results=[_result(state_replaces=older)])
    wide = Console(width=200, record=True)
    wide.print(recall_table(response))
    assert "Alice moved to Seattle. (shown for older state 05e113)" in wide.export_text()
    assert "replaces" not in wide.export_text()
    long = RecallResponse(bank_id="n", query="q", results=[_result(text="word " * 40)])
    narrow = Console(width=96, record=True)
    narrow.print(recall_table(long))
    assert "2024-01-10T09:00:00+00:00" in narrow.export_text()


def test_a_dead_letter_s_id_and_time_stay_on_one_line_at_96_columns() -> None:
    seen = datetime(2026, 12, 7, 14, 8, 7, 258225, tzinfo=UTC)
    le = DeadLetter(
        id="1796652487258-0",
        task="ingest",
        payload='{"text": "Alice lives in Boston.", "occurred_at": "2024-01-10"}',
        error_class="PoisonEvent",
        message="line 2: occurred_at: timestamp has no timezone: give an offset, such as "
        "2024-01-10T09:00:00Z or 2024-01-10T09:00:00+02:00",
        attempts=1,
        first_seen=seen,
        last_seen=seen,
        payload_bytes=58,
    )
    narrow = Console(width=96, record=True)
    narrow.print(letters_table([le], 1))
    shown = narrow.export_text()
    assert "1796652487258-0" in shown and "2026-12-07T14:08:07+00:00" in shown


def test_the_http_form_of_a_recall_has_no_nulls_and_one_timings() -> None:
    response = RecallResponse(bank_id="b", query="q", results=[_result()], timings={"fetch": 1.0})
    wire = pydantic.TypeAdapter(dict).validate_json(response.wire())
    assert wire["timings"] == {"fetch": 1.0} and "timings_ms" not in wire
    assert None not in wire.values() and None not in wire["results"][0].values()
    assert RecallResponse.model_validate(wire).timings_ms == {"fetch": 1.0}


def test_embedded_metrics_outlive_the_process_that_counted_them() -> None:
    now = [1_700_000_000.0]
    first = fakeredis.FakeRedis()
    metrics = ProcessMetrics(first, 900, clock=lambda: now[0])
    metrics.incr(EVENTS, 3, {"outcome": "stored", "bank": "b"})
    saved = series_file.dump(first, now=lambda: now[0])
    second = fakeredis.FakeRedis()
    assert series_file.load(second, saved, now=lambda: now[0] + 60) > 0
    later = ProcessMetrics(second, 900, clock=lambda: now[0] + 60)
    assert later.snapshot(15, None).total(EVENTS, outcome="stored") == 3
    gone = fakeredis.FakeRedis()
    assert series_file.load(gone, saved, now=lambda: now[0] + 10_000) == 0


def test_a_snapshot_read_back_from_json_is_the_same() -> None:
    client = fakeredis.FakeRedis()
    metrics = ProcessMetrics(client, 900)
    metrics.incr(EVENTS, 2, {"outcome": "stored", "bank": "b"})
    metrics.observe("recall_ms", 12.5, {"bank": "b"})
    metrics.gauge("memories", 7, {"bank": "b"})
    snapshot = metrics.snapshot(15, None)
    assert snapshot_from_json(pydantic.TypeAdapter(dict).validate_json(snapshot.to_json())) == (
        snapshot
    )


def test_the_in_memory_broker_names_its_host(caplog: pytest.LogCaptureFixture) -> None:
    url = Topology.of(Settings(mode="embedded")).broker_url
    with caplog.at_level(logging.WARNING, logger="kombu.connection"):
        Connection(url).info()
    assert "No hostname was supplied" not in caplog.text


def test_a_refused_command_is_told_the_url_serve_listens_on(tmp_path: Path) -> None:
    assert served_url("0.0.0.0", 8000) == "http://127.0.0.1:8000"
    assert served_url("::1", 8001) == "http://[::1]:8001"
    store_owner.acquire(tmp_path)
    try:
        store_owner.announce(tmp_path, "http://127.0.0.1:8123")
        owner = store_owner.read_owner(tmp_path)
        assert owner is not None and owner.url == "http://127.0.0.1:8123"
        said = str(StoreOwnedError(tmp_path, owner, "sediment recall"))
        assert "add --url http://127.0.0.1:8123 to this command (or set SEDIMENT_URL)" in said
    finally:
        store_owner.release(tmp_path)


def test_a_refused_command_without_url_is_told_to_stop_the_owner(tmp_path: Path) -> None:
    owner = store_owner.Owner(4242, "sediment serve", url="http://127.0.0.1:8123")
    said = str(StoreOwnedError(tmp_path, owner, "sediment import"))
    assert "in use by `sediment serve` (pid 4242)" in said
    assert "`sediment import` has no --url to go through it" in said
    assert "Stop it and run this again" in said and "add --url" not in said
    told = str(StoreOwnedError(tmp_path, owner, "sediment recall"))
    assert "add --url http://127.0.0.1:8123 to this command" in told


def test_the_commands_told_to_add_url_are_those_that_take_it() -> None:
    taking = {
        f"sediment {name}"
        for name, cmd in cli_commands()
        if any("--url" in param.opts for param in cmd.params)
    }
    assert taking == store_owner.CLIENT_MODE


def test_the_mcp_bridge_relays_requests_and_answers_errors_in_json_rpc() -> None:
    def answer(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        assert request.headers["authorization"] == "Bearer t"
        if "id" not in body:
            return httpx.Response(202)
        return httpx.Response(200, json={"jsonrpc": "2.0", "id": body["id"], "result": {}})

    lines = [
        '{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}\n',
        '{"jsonrpc": "2.0", "method": "notifications/initialized"}\n',
        "not json\n",
    ]
    with httpx.Client(
        transport=httpx.MockTransport(answer), headers={"Authorization": "Bearer t"}
    ) as client:
        said = [relay(line, client, "http://s/mcp") for line in lines]
    assert json.loads(said[0] or "") == {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert said[1] is None
    assert "not a JSON-RPC message" in (said[2] or "")

    def down(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("refused", request=request)

    with httpx.Client(transport=httpx.MockTransport(down)) as client:
        failed = json.loads(relay(lines[0], client, "http://s/mcp") or "")
    assert failed["id"] == 1 and "no answer from http://s/mcp" in failed["error"]["message"]
