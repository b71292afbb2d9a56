"""The CLI as a user runs it: embedded mode, one data directory, separate processes."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.e2e.cli import sediment
from tests.helpers import cli_commands

LINES = [
    {
        "bank_id": "u1",
        "text": "Priya lives in Lisbon.",
        "occurred_at": "2024-01-01T10:00:00Z",
        "entities": ["Priya"],
        "key": "priya.city",
    },
    {
        "bank_id": "u1",
        "text": "Priya moved to Oslo for a research job.",
        "occurred_at": "2024-06-01T10:00:00Z",
        "entities": ["Priya"],
        "key": "priya.city",
    },
    {
        "bank_id": "u1",
        "text": "Priya plays the cello in an orchestra.",
        "occurred_at": "2024-02-01T10:00:00Z",
        "entities": ["Priya"],
    },
    {
        "bank_id": "u1",
        "text": "Priya plays the cello in an orchestra.",
        "occurred_at": "2024-03-01T10:00:00Z",
        "entities": ["Priya"],
    },
    {"bank_id": "u2", "text": "Tomas lives in Lisbon.", "occurred_at": "2024-01-01T10:00:00Z"},
]


@pytest.fixture
def ingested(tmp_path: Path) -> Path:
    path = tmp_path / "events.jsonl"
    rows = [json.dumps(x) for x in LINES] + ['{"bank_id": "u1", "text": "no time"}', "[1, 2]"]
    path.write_text("\n".join(rows) + "\n")
    out = sediment(tmp_path, "ingest", "--allow-partial", str(path))
    assert "consolidated 5 events, dead-lettered 2" in out.stdout
    return tmp_path


def test_ingest_names_each_rejected_line_and_fails_unless_partial_is_allowed(
    tmp_path: Path,
) -> None:
    path = tmp_path / "events.jsonl"
    rows = [
        json.dumps(LINES[0]),
        json.dumps({"bank_id": "u1", "text": "no zone", "occurred_at": "2024-01-01T10:00:00"}),
        "not json",
    ]
    path.write_text("\n".join(rows) + "\n")
    out = sediment(tmp_path, "ingest", str(path), check=False)
    assert out.returncode == 1
    assert "consolidated 1 event, dead-lettered 2" in out.stdout
    assert "line 2 rejected (dead-lettered): occurred_at: timestamp has no timezone" in (
        " ".join(out.stderr.split())
    )
    assert "line 3 rejected (dead-lettered): not valid JSON" in out.stderr
    assert "no zone" not in out.stderr
    assert "--allow-partial" in out.stderr
    again = sediment(tmp_path, "ingest", "--allow-partial", str(path))
    assert "skipped 1 duplicate" in again.stdout


def test_ingest_keeps_one_event_id_per_bank(tmp_path: Path) -> None:
    """Event ids are per bank: one id in two banks of one file is two events."""
    given = "5e0c7a1b-2f3d-4a6b-9c8d-7e1f2a3b4c5d"
    rows = [
        {
            "bank_id": "ba",
            "event_id": given,
            "text": "Ana lives in Porto.",
            "occurred_at": "2024-01-01T10:00:00Z",
        },
        {
            "bank_id": "bb",
            "event_id": given,
            "text": "Ben keeps goats.",
            "occurred_at": "2024-01-01T10:00:00Z",
        },
        {
            "bank_id": "bb",
            "event_id": given,
            "text": "Ben keeps sheep.",
            "occurred_at": "2024-01-01T10:00:00Z",
        },
    ]
    path = tmp_path / "events.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = sediment(tmp_path, "ingest", "--allow-partial", str(path))
    assert "consolidated 2 events, dead-lettered 1" in out.stdout
    assert f"line 3 rejected (dead-lettered): event_id {given} is line 2's too in bank 'bb'" in (
        " ".join(out.stderr.split())
    )
    for bank, text in (("ba", "Ana lives in Porto."), ("bb", "Ben keeps goats.")):
        found = sediment(tmp_path, "recall", "--bank", bank, "--json", text).stdout
        assert [r["text"] for r in json.loads(found)["results"]] == [text]


def recall_json(tmp: Path, query: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = sediment(tmp, "recall", "--bank", "u1", "--json", *extra, query)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_recall_json_shows_current_state_with_provenance(ingested: Path) -> None:
    response = recall_json(ingested, "Where does Priya live?")
    top = response["results"][0]
    assert set(top) >= {
        "id",
        "kind",
        "text",
        "occurred_at",
        "score",
        "state",
        "state_replaces",
        "source_memory_ids",
    }
    assert "Oslo" in top["text"] and top["state"] == "current"
    assert all("Lisbon" not in r["text"] for r in response["results"])
    history = recall_json(ingested, "Where does Priya live?", "--history")
    assert any("Lisbon" in r["text"] and r["state"] == "superseded" for r in history["results"])


def test_recall_leaves_out_unrelated_results_unless_asked_for(ingested: Path) -> None:
    """Nothing in u1 is about Paris: the table is empty and a line says how many were
    left out; --all or --min-score shows them."""
    ruled = recall_json(ingested, "Paris")
    assert ruled["results"] == [] and ruled["without_evidence"] > 0
    every = recall_json(ingested, "Paris", "--all")["results"]
    assert len(every) == ruled["without_evidence"]
    assert all("Priya" in r["text"] for r in every)
    assert recall_json(ingested, "Paris", "--min-score", "0.000001")["results"] == every
    table = sediment(ingested, "recall", "--bank", "u1", "Paris").stdout
    said = " ".join(table.split())
    assert f"{len(every)} results without topical evidence left out (--all shows them)" in said
    shown = " ".join(sediment(ingested, "recall", "--bank", "u1", "Paris", "--all").stdout.split())
    assert "low confidence: no result is close to the query in meaning" in shown


def test_restatements_become_one_observation(ingested: Path) -> None:
    response = recall_json(ingested, "cello orchestra")
    top = response["results"][0]
    assert top["kind"] == "observation" and len(top["source_memory_ids"]) == 2
    assert response["dropped_by_prefer_observations"] == 2
    raw = recall_json(ingested, "cello orchestra", "--no-prefer-observations")
    assert sum(1 for r in raw["results"] if "cello" in r["text"]) == 3


def test_inspect_takes_the_short_id_recall_prints(ingested: Path) -> None:
    query = "Priya lives in Lisbon"
    table = sediment(ingested, "recall", "--bank", "u1", query).stdout
    current = recall_json(ingested, query)
    replaced = next(r["state_replaces"] for r in current["results"] if r.get("state_replaces"))
    prefix = replaced[:6]
    assert prefix in table
    out = sediment(ingested, "inspect", "--bank", "u1", prefix).stdout
    assert prefix in out and "Priya" in out
    bad = sediment(ingested, "inspect", "--bank", "u1", "zz", check=False)
    assert bad.returncode == 1 and "is not a memory id" in bad.stderr
    none = sediment(ingested, "inspect", "--bank", "u2", prefix, check=False)
    assert none.returncode == 1 and "has an id starting with" in " ".join(none.stderr.split())


def test_recall_takes_as_of_tags_and_explain(ingested: Path) -> None:
    then = recall_json(ingested, "Where does Priya live?", "--as-of", "2024-03-01T00:00:00Z")
    assert "Lisbon" in then["results"][0]["text"]
    now = recall_json(ingested, "Where does Priya live?")
    assert "Oslo" in now["results"][0]["text"]
    explained = recall_json(ingested, "Where does Priya live?", "--explain")
    assert explained["explain"] and "components" in explained["results"][0]
    assert "components" not in now["results"][0] and "explain" not in now
    table = sediment(ingested, "recall", "--bank", "u1", "--explain", "Priya").stdout
    assert "explain: stages" in table
    assert recall_json(ingested, "Priya", "--tag", "nothing-has-it")["results"] == []


def test_retain_stores_one_fact_and_says_what_it_superseded(tmp_path: Path) -> None:
    first = sediment(
        tmp_path,
        "retain",
        "Ana lives in Porto.",
        "--bank",
        "r1",
        "--key",
        "ana.city",
        "--occurred-at",
        "2024-01-01T00:00:00Z",
        "--tag",
        "people",
    ).stdout
    assert first.startswith("stored ") and "(bank r1)" in first
    old_short = first.split()[1]
    second = sediment(
        tmp_path,
        "retain",
        "Ana moved to Braga.",
        "--bank",
        "r1",
        "--key",
        "ana.city",
        "--occurred-at",
        "2024-06-01T00:00:00Z",
        "--tag",
        "people",
    ).stdout
    assert f"superseded {old_short}" in second
    found = recall_json_bank(tmp_path, "r1", "Where does Ana live?")
    assert "Braga" in found["results"][0]["text"]
    tagged = recall_json_bank(tmp_path, "r1", "Ana", "--tag", "people", "--history")
    assert {r["text"] for r in tagged["results"]} == {"Ana lives in Porto.", "Ana moved to Braga."}
    assert recall_json_bank(tmp_path, "r1", "Ana", "--tag", "pets")["results"] == []
    bad = sediment(
        tmp_path,
        "retain",
        "x",
        "--bank",
        "r1",
        "--occurred-at",
        "2024-01-01T00:00:00",
        check=False,
    )
    assert bad.returncode == 2 and "occurred_at" in bad.stderr and "Traceback" not in bad.stderr
    short_lived = sediment(tmp_path, "retain", "Temp code 1234.", "--bank", "r1", "--ttl", "60")
    assert short_lived.stdout.startswith("stored ")


def recall_json_bank(tmp: Path, bank: str, query: str, *extra: str) -> dict:  # type: ignore[type-arg]
    out = sediment(tmp, "recall", "--bank", bank, "--json", *extra, query)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_bank_isolation(ingested: Path) -> None:
    response = recall_json(ingested, "Tomas lives in Lisbon")
    assert all("Tomas" not in r["text"] for r in response["results"])


def test_inspect_shows_edges(ingested: Path) -> None:
    history = recall_json(ingested, "Priya lives in Lisbon", "--history")
    old = next(r for r in history["results"] if "Lisbon" in r["text"] and r["kind"] == "world")
    out = sediment(ingested, "inspect", "--bank", "u1", old["id"]).stdout
    assert "superseded" in out and "evolved into (replaced by a newer state)" in out
    assert "why: same key 'priya.city', another value" in out
    assert "slot_keys" not in out and "features" not in out
    raw = json.loads(sediment(ingested, "inspect", "--bank", "u1", "--raw", old["id"]).stdout)
    assert raw["id"] == old["id"] and "slot_keys" in raw
    missing = sediment(ingested, "inspect", "--bank", "u2", old["id"], check=False)
    assert missing.returncode == 1 and "no memory" in missing.stdout + missing.stderr


def test_dead_letters_listed_with_reasons_and_replay_keeps_failures(ingested: Path) -> None:
    letters = json.loads(sediment(ingested, "dlq", "list", "--json").stdout)
    assert len(letters) == 2
    assert any("occurred_at" in le["message"] for le in letters)
    assert any("JSON object" in le["message"] for le in letters)
    out = sediment(ingested, "dlq", "replay").stdout
    assert "replayed 0, still failing 2" in out
    again = json.loads(sediment(ingested, "dlq", "list", "--json").stdout)
    assert sorted(le["attempts"] for le in again) == [2, 2]


def test_rebuild_gives_the_same_read_model(ingested: Path) -> None:
    before = recall_json(ingested, "Priya", "--history", "--limit", "20")
    sediment(ingested, "rebuild", "--bank", "u1")
    after = recall_json(ingested, "Priya", "--history", "--limit", "20")

    def strip(resp: dict) -> list[tuple[object, ...]]:  # type: ignore[type-arg]
        rows = resp["results"]
        return sorted((r["id"], r["state"], r["text"], tuple(r["source_memory_ids"])) for r in rows)

    assert strip(before) == strip(after)
    sediment(ingested, "rebuild", "--all")


def test_invalid_setting_stops_with_the_variable_named(tmp_path: Path) -> None:
    out = sediment(
        tmp_path,
        "recall",
        "--bank",
        "b",
        "q",
        env={"SEDIMENT_MERGE_THRESHOLD": "0.2oops"},
        check=False,
    )
    assert out.returncode == 2 and "SEDIMENT_MERGE_THRESHOLD" in out.stderr
    out = sediment(
        tmp_path, "recall", "--bank", "b", "q", env={"SEDIMENT_MODE": "cluster"}, check=False
    )
    assert out.returncode == 2 and "SEDIMENT_MODE" in out.stderr and "embedded" in out.stderr


def test_demo_runs_and_explains(tmp_path: Path) -> None:
    out = sediment(tmp_path, "demo").stdout
    assert "proof_count=2" in out
    assert "INVALIDATED_BY" in out and "EVOLVED_INTO" in out
    assert "dropped by prefer-observations" in out


def test_recall_of_an_invisible_query_is_refused_naming_it(tmp_path: Path) -> None:
    run = sediment(tmp_path, "recall", "\u200b\u2060", "--bank", "b", check=False)
    assert run.returncode == 2
    assert "invalid recall: query: query is blank" in " ".join(run.stderr.split())
    assert "Traceback" not in run.stderr


def test_recall_of_a_bank_that_holds_nothing_names_the_nearest_banks(ingested: Path) -> None:
    """`--bank U1` for data in `u1`, or a bank no one wrote to, is not an empty answer
    with exit 0: the nearest names are given on stderr and the command exits 1."""
    cased = sediment(ingested, "recall", "--bank", "U1", "Where does Priya live?", check=False)
    assert cased.returncode == 1
    assert "bank 'U1' holds no memories; did you mean 'u1'" in cased.stderr
    assert "recall:" not in cased.stdout
    unknown = sediment(ingested, "recall", "--bank", "nope", "Priya", check=False)
    assert unknown.returncode == 1
    assert "bank 'nope' holds no memories; the banks are: u1, u2" in unknown.stderr
    as_json = sediment(ingested, "recall", "--bank", "u-1", "Priya", "--json", check=False)
    assert as_json.returncode == 1 and json.loads(as_json.stdout)["results"] == []
    assert "did you mean 'u1'" in as_json.stderr
    held = sediment(ingested, "recall", "--bank", "u1", "Priya", "--tag", "none-has-it")
    assert held.returncode == 0, "a bank that holds memories answers empty, as before"


def test_banks_lists_each_bank_with_its_counts(ingested: Path) -> None:
    listed = json.loads(sediment(ingested, "banks", "--json").stdout)
    counts = {b["bank_id"]: (b["memories"], b["observations"]) for b in listed["banks"]}
    assert counts == {"u1": (4, 1), "u2": (1, 0)}
    table = sediment(ingested, "banks").stdout
    assert "2 banks" in table and "u1" in table and "u2" in table


def test_stats_counts_what_an_earlier_process_ingested(ingested: Path) -> None:
    """Embedded mode has no Redis server: the ingest's counts reach a later `stats`
    through the data directory, and `stats` counts the store it can open."""
    snap = json.loads(sediment(ingested, "stats", "--json").stdout)
    stored = sum(
        c["total"]
        for c in snap["counters"]
        if c["name"] == "events" and c["labels"].get("outcome") == "stored"
    )
    assert stored == 5
    memories = sum(g["value"] for g in snap["gauges"] if g["name"] == "memories")
    assert memories == 5
    table = sediment(ingested, "stats").stdout
    assert "never" not in table.split("memories")[1].splitlines()[0]


def test_as_of_needs_an_offset_in_recall_as_in_retain(ingested: Path) -> None:
    naive = "2024-03-01T00:00:00"
    recalled = sediment(ingested, "recall", "--bank", "u1", "Priya", "--as-of", naive, check=False)
    retained = sediment(
        ingested, "retain", "--bank", "u1", "Priya sings.", "--occurred-at", naive, check=False
    )
    assert recalled.returncode == retained.returncode == 2
    assert "as_of: timestamp has no timezone" in recalled.stderr
    assert "occurred_at: timestamp has no timezone" in retained.stderr


def test_ingesting_a_file_again_dead_letters_each_bad_line_once(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    rows = [
        json.dumps(LINES[0]),
        json.dumps({"bank_id": "u1", "text": "no zone", "occurred_at": "2024-01-01T10:00:00"}),
        "not json",
    ]
    path.write_text("\n".join(rows) + "\n")
    first = sediment(tmp_path, "ingest", str(path), check=False)
    assert first.returncode == 1 and "2 lines rejected: fix them" in first.stderr
    again = sediment(tmp_path, "ingest", str(path), check=False)
    assert again.returncode == 1
    assert "line 2 rejected (dead-lettered by an earlier run)" in again.stderr
    assert "consolidated 0 events, dead-lettered 2, skipped 1 duplicate" in again.stdout
    letters = json.loads(sediment(tmp_path, "dlq", "list", "--json").stdout)
    assert len(letters) == 2
    for le in letters:
        assert "\n" not in le["message"] and "pydantic" not in le["message"], le["message"]
    assert letters[0]["message"].startswith("line 2: occurred_at: timestamp has no timezone")


def test_ctrl_c_during_ingest_says_how_far_it_got_and_a_rerun_resumes(tmp_path: Path) -> None:
    path = tmp_path / "many.jsonl"
    rows = [
        {
            "bank_id": "b",
            "text": f"Fact number {i} about item {i}.",
            "occurred_at": "2024-01-01T00:00:00Z",
        }
        for i in range(3000)
    ]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = {
        **os.environ,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_LOG_FORMAT": "json",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "sediment.cli", "ingest", str(path), "--batch", "8"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    audit = tmp_path / "data" / "audit.jsonl"  # written with the first batch taken
    deadline = time.monotonic() + 120
    while not audit.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)
    out, errs = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, errs)
    said = " ".join(errs.split())
    match = re.search(r"interrupted: (\d+) events? of 3000 taken; run the same command again", said)
    assert match, said
    taken = int(match.group(1))
    assert 0 < taken < 3000
    rerun = sediment(tmp_path, "ingest", str(path))
    done = re.search(r"consolidated (\d+) events?, dead-lettered 0, skipped (\d+)", rerun.stdout)
    assert done, rerun.stdout
    assert (int(done.group(1)), int(done.group(2))) == (3000 - taken, taken), (said, rerun.stdout)


def test_help_names_no_source_file_and_every_option_says_what_it_does() -> None:
    for name, cmd in cli_commands():
        assert ".py" not in (cmd.help or ""), f"`sediment {name} --help` names a source file"
        for param in cmd.params:
            if param.param_type_name == "option" and param.name != "help":
                assert param.help, f"`sediment {name}` option {param.opts[0]} has no help"
