"""`sediment rebuild --all` killed -9 part way: the next command that opens the store
refuses it, naming the command that finishes the rebuild, and once that has run every
answer is current again. The fault suite runs the same at a larger size
(bench/reliability/rebuild_kill.py)."""

import json
import os
import signal
import subprocess
import sys
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from contracts.memory import State
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
from tests.e2e.cli import sediment
from worker.consolidation.neighbourhood import RAW_KINDS

NAMES = [c + v + end for end in ("ran", "lek") for c in "BDFGHJKLMNPRSTV" for v in "aeiou"]
"""150 people, each named by one made-up word (a subject is never half of another's name)."""
ENV = {"SEDIMENT_EMBEDDER": "hash"}


def _events(path: Path) -> list[str]:
    """Two addresses per subject, the later one current; the subjects."""
    names = NAMES[:100]
    start = datetime(2024, 1, 1, tzinfo=UTC)
    with path.open("w") as fh:
        for k, name in enumerate(names):
            for j, city in enumerate(("Porto", "Lisbon")):
                e = {
                    "event_id": str(uuid.uuid5(uuid.NAMESPACE_OID, f"{name}-{j}")),
                    "bank_id": "b",
                    "text": f"{name} lives in {city}.",
                    "occurred_at": (start + timedelta(days=30 * j, minutes=k)).isoformat(),
                }
                fh.write(json.dumps(e) + "\n")
    return names


def _stale(root: Path) -> int:
    """Old addresses marked current."""
    store = EdgeStore(root)
    try:
        return sum(
            p.record.state == State.CURRENT and p.record.text.endswith("Porto.")
            for p in store.scroll(Filter("b", kinds=RAW_KINDS))
        )
    finally:
        store.close()


def _rebuilding(meta: Path) -> bool:
    try:
        return bool(json.loads(meta.read_text()).get("rebuilding"))
    except (FileNotFoundError, json.JSONDecodeError):
        return False


def test_a_rebuild_killed_part_way_is_refused_until_run_again(tmp_path: Path) -> None:
    events = tmp_path / "events.jsonl"
    _events(events)
    sediment(tmp_path, "ingest", str(events), env=ENV)
    root = tmp_path / "data" / "store"
    assert _stale(root) == 0
    env = {
        **os.environ,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_MODE": "embedded",
        **ENV,
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "sediment.cli", "rebuild", "--all"],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not _rebuilding(root / "store.json") and proc.poll() is None:
        assert time.monotonic() < deadline, "the rebuild never recorded itself"
        time.sleep(0.01)
    time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait(timeout=30) == -signal.SIGKILL
    assert _rebuilding(root / "store.json"), "the rebuild finished before the kill"

    refused = sediment(
        tmp_path, "recall", "Where does Baran live?", "--bank", "b", env=ENV, check=False
    )
    said = " ".join(refused.stderr.split())
    assert refused.returncode == 2, refused.stderr
    assert "a rebuild of every bank" in said and "run `sediment rebuild --all` to finish it" in said
    ingest = sediment(tmp_path, "ingest", str(events), env=ENV, check=False)
    assert ingest.returncode == 2 and "sediment rebuild --all" in ingest.stderr
    serve = subprocess.run(
        [sys.executable, "-m", "sediment.cli", "serve", "--port", "1"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert serve.returncode == 2 and "sediment rebuild --all" in serve.stderr

    sediment(tmp_path, "rebuild", "--all", env=ENV)
    assert _stale(root) == 0
    answer = sediment(
        tmp_path, "recall", "Where does Baran live?", "--bank", "b", "--json", env=ENV
    )
    texts = [r["text"] for r in json.loads(answer.stdout)["results"]]
    assert "Baran lives in Lisbon." in texts and "Baran lives in Porto." not in texts
