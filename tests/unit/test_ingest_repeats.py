"""`sediment ingest` keeps the first line of each event id: a later line that repeats it
word for word is a skipped duplicate, one that reuses its id for other content is
dead-lettered with the line it clashes with, and the rest of the file goes on."""

import io
import json
from pathlib import Path

from rich.console import Console

from sediment.ingest import IngestDeps, run_ingest
from tests.helpers import event, mid
from tests.unit.api_support import seeded_runtime

GIVEN = "0b6f1c2e-7d4a-5c39-8e21-f0a6e3b9d417"
BOSTON = {
    "event_id": GIVEN,
    "text": "Alice lives in Boston.",
    "occurred_at": "2024-05-01T09:00:00Z",
}
PARIS = {**BOSTON, "text": "Alice lives in Paris."}
BEES = {"text": "Bo keeps bees.", "occurred_at": "2024-05-02T09:00:00Z", "ttl_s": 86_400_000}


def test_the_first_line_of_an_id_wins_and_a_clash_is_dead_lettered(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    rows = [BOSTON, PARIS, BOSTON, BEES, BEES, {"text": "Cy swims.", "occurred_at": "x"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    rt = seeded_runtime(tmp_path)
    out = io.StringIO()
    try:
        deps = IngestDeps(rt.publisher, rt.dead_letters, rt.metrics, rt.settings.max_text_bytes)
        summary = run_ingest(deps, path, "rep", 64, Console(file=out, width=400))
        assert (summary.done, summary.duplicates, summary.dead_lettered) == (2, 2, 2)
        first = event("Alice lives in Boston.", bank="rep", event_id=GIVEN)
        [kept] = rt.store.fetch("rep", [mid(first)])
        assert kept.record.text == "Alice lives in Boston."
        reasons = {json.loads(d.payload).get("text"): d.message for d in rt.dead_letters.list()}
        assert reasons["Alice lives in Paris."].startswith(
            f"line 2: event_id {GIVEN} is line 1's too"
        )
        assert "line 6:" in reasons["Cy swims."]
        assert (
            f"line 2 rejected (dead-lettered): event_id {GIVEN} is line 1's too" in out.getvalue()
        )
    finally:
        rt.close()
