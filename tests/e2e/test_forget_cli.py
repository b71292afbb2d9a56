"""`sediment forget` as a user runs it: embedded mode, one process per command."""

import json
import time
import uuid
from pathlib import Path

from tests.e2e.cli import sediment
from worker.consolidation.relations import memory_id


def test_forget_by_id_then_by_source_then_all(tmp_path: Path) -> None:
    ids = [uuid.UUID(int=i + 1) for i in range(3)]
    lines = [
        {
            "event_id": str(ids[0]),
            "bank_id": "cli",
            "text": "The vault code is 4417.",
            "occurred_at": "2024-01-01T00:00:00Z",
        },
        {
            "event_id": str(ids[1]),
            "bank_id": "cli",
            "text": "Dana likes sailing.",
            "occurred_at": "2024-01-02T00:00:00Z",
            "metadata": {"source_id": "crm-7"},
        },
        {
            "event_id": str(ids[2]),
            "bank_id": "cli",
            "text": "Evan plays chess.",
            "occurred_at": "2024-01-03T00:00:00Z",
        },
    ]
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    sediment(tmp_path, "ingest", str(events))
    out = sediment(
        tmp_path, "forget", "--bank", "cli", "--id", str(memory_id("cli", ids[0]))
    ).stdout
    assert "forgot 1 memory" in out
    assert "4417" not in sediment(tmp_path, "recall", "vault code", "--bank", "cli").stdout
    again = sediment(tmp_path, "ingest", str(events)).stdout
    assert "4417" not in sediment(tmp_path, "recall", "vault code", "--bank", "cli").stdout, again
    assert (
        "forgot 1" in sediment(tmp_path, "forget", "--bank", "cli", "--source-id", "crm-7").stdout
    )
    assert "forgot 1" in sediment(tmp_path, "forget", "--bank", "cli", "--all").stdout
    bad = sediment(tmp_path, "forget", "--bank", "cli", check=False)
    assert bad.returncode == 2 and "exactly one selector" in bad.stderr


def test_forget_of_an_id_the_bank_does_not_hold_is_refused(tmp_path: Path) -> None:
    """Another bank's id, or one no bank holds: refused in the words of HTTP's 404
    (sediment/forgetting.py), exit status 2, and nothing is forgotten."""
    line = {
        "event_id": str(uuid.UUID(int=9)),
        "bank_id": "cli",
        "text": "Hal keeps bees.",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps(line) + "\n")
    sediment(tmp_path, "ingest", str(events))
    held = memory_id("cli", uuid.UUID(int=9))
    for bank, memory in (("other", held), ("cli", uuid.UUID(int=10))):
        refused = sediment(tmp_path, "forget", "--bank", bank, "--id", str(memory), check=False)
        said = " ".join(refused.stderr.split())
        assert refused.returncode == 2, refused.stdout
        assert f"no memory {memory} in bank {bank}: nothing was forgotten" in said
        assert "forgot" not in refused.stdout
    assert "bees" in sediment(tmp_path, "recall", "bees", "--bank", "cli").stdout


def test_export_then_import_into_an_empty_deployment(tmp_path: Path) -> None:
    line = {
        "event_id": str(uuid.UUID(int=7)),
        "bank_id": "src",
        "text": "Fay paints murals.",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps(line) + "\n")
    sediment(tmp_path, "ingest", str(events))
    dump = tmp_path / "dump.jsonl"
    sediment(tmp_path, "export", "--bank", "src", "--out", str(dump))
    assert json.loads(dump.read_text().splitlines()[0])["format"] == "sediment-export"
    other = {"SEDIMENT_DATA_DIR": str(tmp_path / "other")}
    out = sediment(tmp_path, "import", str(dump), "--bank", "dst", env=other).stdout
    assert "imported 1 event into bank dst (1 new)" in out
    again = sediment(tmp_path, "import", str(dump), "--bank", "dst", env=other).stdout
    assert "(0 new)" in again
    assert "murals" in sediment(tmp_path, "recall", "murals", "--bank", "dst", env=other).stdout


def test_import_refuses_a_cut_export_unless_told_not_to_check(tmp_path: Path) -> None:
    line = {
        "event_id": str(uuid.UUID(int=8)),
        "bank_id": "src",
        "text": "Gus repairs clocks.",
        "occurred_at": "2024-01-01T00:00:00Z",
    }
    events = tmp_path / "events.jsonl"
    events.write_text(json.dumps(line) + "\n")
    sediment(tmp_path, "ingest", str(events))
    dump = tmp_path / "dump.jsonl"
    sediment(tmp_path, "export", "--bank", "src", "--out", str(dump))
    *records, trailer = dump.read_text().splitlines()
    assert json.loads(trailer)["counts"] == {"retain": 1, "tombstone": 0}
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(r + "\n" for r in records))
    other = {"SEDIMENT_DATA_DIR": str(tmp_path / "other")}
    refused = sediment(tmp_path, "import", str(cut), "--bank", "dst", env=other, check=False)
    assert refused.returncode == 1
    assert "has no trailer" in " ".join(refused.stderr.split())
    found = sediment(
        tmp_path, "recall", "clocks", "--bank", "dst", "--json", env=other, check=False
    )
    assert found.returncode == 1 and json.loads(found.stdout)["results"] == []
    assert "bank 'dst' holds no memories" in found.stderr
    flag = ("--bank", "dst", "--no-trailer-check")
    out = sediment(tmp_path, "import", str(cut), *flag, env=other).stdout
    assert "imported 1 event into bank dst (1 new)" in out


def test_expiry_then_expire_and_the_audit(tmp_path: Path) -> None:
    marker = "zq" + uuid.uuid4().hex
    lines = [
        {
            "bank_id": "cli",
            "text": f"The gate code is {marker}.",
            "occurred_at": "2024-01-01T00:00:00Z",
            "ttl_s": 2,
        },
        {
            "bank_id": "cli",
            "text": "The old wifi password is hunter2.",
            "occurred_at": "2024-01-02T00:00:00Z",
            "expires_at": "2024-02-01T00:00:00Z",
        },
        {"bank_id": "cli", "text": "Gus grows tomatoes.", "occurred_at": "2024-01-03T00:00:00Z"},
    ]
    events = tmp_path / "events.jsonl"
    events.write_text("".join(json.dumps(line) + "\n" for line in lines))
    assert "consolidated 3 events" in sediment(tmp_path, "ingest", str(events)).stdout
    assert "hunter2" not in sediment(tmp_path, "recall", "wifi password", "--bank", "cli").stdout
    time.sleep(2.5)
    assert marker not in sediment(tmp_path, "recall", "gate code", "--bank", "cli").stdout
    out = sediment(tmp_path, "expire", "--bank", "cli").stdout
    assert "forgot 2 expired memories in 1 bank" in out
    assert "0 expired" in sediment(tmp_path, "expire").stdout
    audit = json.loads(sediment(tmp_path, "audit", "--bank", "cli", "--json").stdout)
    assert [(e["actor"], e["action"]) for e in audit] == [("cli", "expire"), ("cli", "retain")]
    assert audit[0]["counts"] == {"memory_ids": 2, "forgotten": 2}
    assert len(audit[0]["memory_ids"]) == 2
    assert audit[1]["counts"] == {"events": 3, "stored": 3}
    assert marker not in json.dumps(audit)
    assert marker not in (tmp_path / "data" / "audit.jsonl").read_text()
    table = sediment(tmp_path, "audit", "--bank", "cli").stdout
    assert "expire" in table and "retain" in table


def test_export_with_redis_unreachable_says_so_and_writes_no_file(tmp_path: Path) -> None:
    down = {
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",
        "SEDIMENT_REDIS_URL": "redis://127.0.0.1:1/0",
    }
    dump = tmp_path / "dump.jsonl"
    (tmp_path / "data").mkdir()
    run = sediment(tmp_path, "export", "--bank", "b", "--out", str(dump), env=down, check=False)
    assert run.returncode == 1
    assert "Redis is unreachable" in run.stderr and "Traceback" not in run.stderr
    assert not dump.exists()
