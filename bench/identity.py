"""Whether two versions of the code decide alike: the same JSON-lines file through
`sediment ingest` with each (a fresh data directory each, embedded, static embedder),
then every stored record of every bank compared field by field (states, superseders,
relations, reasons, observations and their members, slot keys, features, vectors).

For a change meant to make ingest faster and decide nothing differently:
`python -m bench.identity --code /path/to/old --code /path/to/new`. The events are
varied on purpose: the speed workload's facts, updates and episodes (bench/workload.py),
the hand-written update and supersession sets of bench/data (updates said many ways,
restatements, changes said of others), long passages made of their statements, the
same facts restated later, and lines in shuffled order. Exit status 1 when the read
models differ (the first differences are printed).
"""

import argparse
import hashlib
import json
import os
import random
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from bench.ingest_cli import ingest_seconds
from bench.workload import events as workload_events

DATA = Path(__file__).parent / "data"
SETS = ("supersession_dev", "supersession_test", "updates_corpus_dev", "updates_corpus_test")
PASSAGE_SENTENCES = 14
"""Statements joined into one long passage (a text of several passages reads no slot)."""

DUMP = """
import hashlib, json, sys
from pathlib import Path
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
store = EdgeStore(Path(sys.argv[1]))
out = {}
for bank in sorted(store.banks()):
    for p in store.scroll(Filter(bank_id=bank), with_vectors=True):
        row = p.record.model_dump(mode="json", exclude={"created_at"})
        row["dense"] = hashlib.sha256(p.dense.tobytes()).hexdigest()[:16]
        out[str(p.record.id)] = row
store.close()
Path(sys.argv[2]).write_text(json.dumps(out, sort_keys=True, indent=0))
"""


def _line(bank: str, text: str, at: str, entities: list[str]) -> dict[str, Any]:
    return {"bank_id": bank, "text": text, "occurred_at": at, "entities": entities}


def _later(at: str) -> str:
    """An instant 200 days after `at`: the same fact said again, later."""
    return (datetime.fromisoformat(at) + timedelta(days=200)).isoformat()


def _statements() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    for name in SETS:
        for bank in json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))["banks"]:
            yield f"{name}-{bank['id']}", bank["statements"]
    scenarios = json.loads((DATA / "updates_dev.json").read_text(encoding="utf-8"))["scenarios"]
    for s in scenarios:
        yield f"updates_dev-{s['id']}", s["events"]


def lines(workload: int, seed: int = 5) -> list[dict[str, Any]]:
    """The events, deterministic: each bank's lines shuffled, banks one after another."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for bank, statements in _statements():
        own = [
            _line(bank, s["text"], s["occurred_at"], list(s.get("entities") or []))
            for s in statements
        ]
        for i in range(0, len(statements) - PASSAGE_SENTENCES, 3 * PASSAGE_SENTENCES):
            chunk = statements[i : i + PASSAGE_SENTENCES]
            text = " ".join(s["text"].removeprefix("User: ") for s in chunk)
            people = sorted({e for s in chunk for e in s.get("entities") or []})
            own.append(_line(bank, text, chunk[-1]["occurred_at"], people))
        for s in rng.sample(statements, len(statements) // 8):
            own.append(
                _line(bank, s["text"], _later(s["occurred_at"]), list(s.get("entities") or []))
            )
        rng.shuffle(own)
        out.extend(own)
    speed = [
        _line(e.bank_id, e.text, e.occurred_at.isoformat(), list(e.entities))
        for e in workload_events(1, workload, seed=11)
    ]
    restated = [
        dict(x, occurred_at=_later(x["occurred_at"])) for x in rng.sample(speed, len(speed) // 10)
    ]
    out.extend(speed + restated)
    return out


def ingest_and_dump(code: Path, jsonl: Path, root: Path) -> dict[str, Any]:
    data = root / "data"
    ingest_seconds(code, jsonl, data, "static")
    dump = root / "dump.json"
    env = {**os.environ, "PYTHONPATH": str(code)}
    subprocess.run(
        [sys.executable, "-c", DUMP, str(data / "store"), str(dump)], env=env, cwd=code, check=True
    )
    loaded: dict[str, Any] = json.loads(dump.read_text(encoding="utf-8"))
    return loaded


def differences(a: dict[str, Any], b: dict[str, Any]) -> list[str]:
    out = [f"only in the first: {k}" for k in sorted(a.keys() - b.keys())]
    out += [f"only in the second: {k}" for k in sorted(b.keys() - a.keys())]
    for k in sorted(a.keys() & b.keys()):
        for field in sorted(a[k].keys() | b[k].keys()):
            if a[k].get(field) != b[k].get(field):
                said = a[k].get("text", "")[:60]
                out.append(f"{k} ({said!r}) {field}: {a[k].get(field)!r} != {b[k].get(field)!r}")
    return out


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--code", type=Path, action="append", required=True)
    parser.add_argument("--workload", type=int, default=2000)
    args = parser.parse_args(argv)
    if len(args.code) != 2:
        parser.error("give --code twice: the old checkout, then the new one")
    with tempfile.TemporaryDirectory(prefix="sediment-identity-") as tmp:
        root = Path(tmp)
        jsonl = root / "events.jsonl"
        events = lines(args.workload)
        jsonl.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
        dumps = []
        for i, code in enumerate(args.code):
            (root / str(i)).mkdir()
            dumps.append(ingest_and_dump(code.resolve(), jsonl, root / str(i)))
        found = differences(dumps[0], dumps[1])
        states: dict[str, int] = {}
        for row in dumps[1].values():
            key = f"{row['kind']}/{row['state']}"
            states[key] = states.get(key, 0) + 1
        digest = hashlib.sha256(json.dumps(dumps[1], sort_keys=True).encode()).hexdigest()[:16]
        print(f"{len(events)} lines, {len(dumps[1])} records ({states}), read model {digest}")
        if found:
            print(f"{len(found)} differences:")
            print("\n".join(found[:40]))
            raise SystemExit(1)
        print("identical read models")


if __name__ == "__main__":
    main()
