"""The CLI next to a running `sediment serve`: the embedded store admits one process,
so each data command takes `--url` (or SEDIMENT_URL) and goes through the HTTP API,
printing what the embedded command prints. A real serve on a free port, embedded
mode, with a token and a scoped API key."""

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import httpx

from sediment.api.keys import ApiKey, digest
from tests.e2e.cli import sediment
from tests.e2e.test_http import running

TOKEN = "client-mode-token"
EVE_SECRET = "eve-only-secret"
LINES = [
    {
        "text": "Alice lives in Boston.",
        "occurred_at": "2024-01-10T09:00:00Z",
        "entities": ["Alice"],
    },
    {
        "text": "Alice moved to Seattle.",
        "occurred_at": "2024-06-01T09:00:00Z",
        "entities": ["Alice"],
    },
    {"text": "Alice drinks her coffee black.", "occurred_at": "2024-06-02T09:00:00Z"},
]
COLUMNS = {"COLUMNS": "120"}


UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")


def without_ids(text: str) -> str:
    """What a command printed, its event ids aside (a forget's is new each time)."""
    return UUID.sub("<id>", text)


def both(
    tmp: Path, url: str | None, *args: str, check: bool = True
) -> subprocess.CompletedProcess[str]:
    env = {**COLUMNS, **({"SEDIMENT_URL": url, "SEDIMENT_API_TOKEN": TOKEN} if url else {})}
    return sediment(tmp, *args, env=env, check=check)


def test_every_data_command_goes_through_a_running_serve(tmp_path: Path) -> None:
    notes = tmp_path / "notes.jsonl"
    notes.write_text("".join(json.dumps(x) + "\n" for x in LINES))
    ingested_first = sediment(tmp_path, "ingest", str(notes), "--bank", "notes").stdout
    ingested_again = sediment(tmp_path, "ingest", str(notes), "--bank", "notes").stdout
    assert "skipped 3 duplicates" in ingested_again
    sediment(tmp_path, "retain", "Eve paints.", "--bank", "eve")
    knits = sediment(tmp_path, "retain", "Carol knits.", "--bank", "notes").stdout.split()[1]
    forgot_here = sediment(tmp_path, "forget", "--bank", "notes", "--id", knits).stdout
    assert forgot_here.startswith("forgot 1 memory in bank notes (event ")
    reads = [
        ("recall", "--bank", "notes", "Where does Alice live?", "--limit", "1"),
        ("recall", "--bank", "notes", "Where does Alice live?", "--history"),
        ("banks",),
        ("banks", "--json"),
    ]
    embedded = {args: both(tmp_path, None, *args).stdout for args in reads}
    first = json.loads(both(tmp_path, None, "recall", "--bank", "notes", "Alice", "--json").stdout)
    shown = next(r["id"][:6] for r in first["results"] if r["text"] == "Alice moved to Seattle.")
    inspected = both(tmp_path, None, "inspect", "--bank", "notes", shown).stdout

    keys = tmp_path / "keys.json"
    eve = ApiKey(name="eve-reader", sha256=digest(EVE_SECRET), banks=("eve*",), scopes=("read",))
    keys.write_text(json.dumps([eve.model_dump(mode="json")]))
    env = {
        **os.environ,
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_API_KEYS_FILE": str(keys),
    }
    with running(env, tmp_path) as srv:
        refused = both(tmp_path, None, "recall", "--bank", "notes", "Alice", check=False)
        assert refused.returncode == 1
        assert f"add --url {srv.url} to this command (or set SEDIMENT_URL)" in refused.stderr
        alone = both(tmp_path, None, "stats", check=False)
        assert alone.returncode == 1 and f"--url {srv.url}" in alone.stderr

        for args in reads:
            assert both(tmp_path, srv.url, *args).stdout == embedded[args], args
        assert both(tmp_path, srv.url, "inspect", "--bank", "notes", shown).stdout == inspected
        raw = json.loads(
            both(tmp_path, srv.url, "inspect", "--bank", "notes", shown, "--raw").stdout
        )
        assert raw["text"] == "Alice moved to Seattle."

        cased = both(tmp_path, srv.url, "recall", "--bank", "Eve", "paints", check=False)
        assert cased.returncode == 1 and "did you mean 'eve'" in cased.stderr

        retained = both(
            tmp_path,
            srv.url,
            "retain",
            "Alice moved to Denver.",
            "--bank",
            "notes",
            "--occurred-at",
            "2024-09-01T09:00:00Z",
            "--entity",
            "Alice",
        )
        assert retained.stdout.startswith("stored "), retained.stdout
        assert "superseded" in retained.stdout and "(bank notes)" in retained.stdout

        again = both(tmp_path, srv.url, "ingest", str(notes), "--bank", "notes")
        assert again.stdout == ingested_again
        copied = both(tmp_path, srv.url, "ingest", str(notes), "--bank", "copy")
        assert copied.stdout == ingested_first
        more = tmp_path / "more.jsonl"
        more.write_text(
            json.dumps({"text": "Bob rides a bike.", "occurred_at": "2024-01-01T00:00:00Z"})
            + "\nnot json\n"
        )
        ingested = both(tmp_path, srv.url, "ingest", str(more), "--bank", "notes", check=False)
        assert ingested.returncode == 1
        # Rejected, not dead-lettered: the line was never sent, so serve's dead letters lack it.
        assert ingested.stdout == "consolidated 1 event, rejected 1, skipped 0 duplicates\n"
        assert "line 2 rejected (not sent): not valid JSON" in ingested.stderr
        more_again = both(tmp_path, srv.url, "ingest", str(more), "--bank", "notes", check=False)
        assert more_again.stdout == "consolidated 0 events, rejected 1, skipped 1 duplicate\n"

        stats = json.loads(both(tmp_path, srv.url, "stats", "--json").stdout)
        assert any(c["name"] == "events" and c["total"] >= 2 for c in stats["counters"])
        assert "throughput" in both(tmp_path, srv.url, "stats").stdout

        audit = json.loads(both(tmp_path, srv.url, "audit", "--bank", "notes", "--json").stdout)
        assert audit and audit[0]["action"] == "retain"
        exported = both(tmp_path, srv.url, "export", "--bank", "notes").stdout.splitlines()
        assert json.loads(exported[-1])["counts"]["retain"] >= 4

        forgot = both(tmp_path, srv.url, "forget", "--bank", "notes", "--id", shown)
        assert without_ids(forgot.stdout) == without_ids(forgot_here)

        wrong = sediment(
            tmp_path,
            "banks",
            env={"SEDIMENT_URL": srv.url, "SEDIMENT_API_TOKEN": "nope"},
            check=False,
        )
        assert wrong.returncode == 1 and f"{srv.url}: 401 " in wrong.stderr
        down = sediment(tmp_path, "banks", "--url", "http://127.0.0.1:9", check=False)
        assert down.returncode == 1 and "is `sediment serve` running there?" in down.stderr

        listed_by_mcp = mcp_over_url(tmp_path, srv.url)
        assert "eve" in listed_by_mcp and "notes" in listed_by_mcp

        listed = srv.get("/v1/banks", headers={"Authorization": f"Bearer {TOKEN}"}).json()
        assert [b["bank_id"] for b in listed["banks"]] == ["copy", "eve", "notes"]
        scoped = srv.get("/v1/banks", headers={"Authorization": f"Bearer {EVE_SECRET}"})
        assert scoped.json() == {"banks": [{"bank_id": "eve", "memories": 1, "observations": 0}]}
        assert srv.get("/v1/banks").status_code == 401
        recall = httpx.post(
            f"{srv.url}/v1/banks/notes/recall",
            json={"query": "Alice"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        ).json()
        assert "timings_ms" not in recall and None not in recall.values()
    assert "No hostname was supplied" not in srv.log.read_text()


def mcp_over_url(tmp: Path, url: str) -> str:
    """`sediment mcp --url` as an agent starts it: JSON-RPC lines on stdin, each relayed
    to serve's /mcp; what its `banks` tool answers."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sediment.cli", "mcp", "--url", url, "--token", TOKEN],
        cwd=tmp,
        env={**os.environ, "SEDIMENT_DATA_DIR": str(tmp / "data"), "SEDIMENT_MODE": "embedded"},
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None

    def send(message: dict[str, object]) -> None:
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
        proc.stdin.flush()

    try:
        hello = {"protocolVersion": "2025-06-18", "capabilities": {}}
        send(
            {
                "id": 1,
                "method": "initialize",
                "params": {**hello, "clientInfo": {"name": "t", "version": "1"}},
            }
        )
        assert json.loads(proc.stdout.readline())["result"]["serverInfo"]
        send({"method": "notifications/initialized"})
        send({"id": 2, "method": "tools/call", "params": {"name": "banks", "arguments": {}}})
        answer = json.loads(proc.stdout.readline())
        assert answer["id"] == 2 and not answer["result"].get("isError"), answer
        return json.dumps(answer["result"])
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
