"""`bench.update_rules`: each gold update is counted for the readers that find it."""

import json
from pathlib import Path

from bench.update_rules import by_rule, render


def _statement(sid: str, text: str, day: int, **kw: object) -> dict[str, object]:
    return {
        "id": sid,
        "text": text,
        "occurred_at": f"2024-01-{day:02d}T09:00:00+00:00",
        "entities": kw.pop("entities", []),
        "superseded_by": kw.pop("superseded_by", None),
        "chain": kw.pop("chain", None),
        "family": kw.pop("family", None),
    }


def test_each_update_is_counted_for_the_readers_that_find_it(tmp_path: Path) -> None:
    bank = [
        _statement("a1", "Ana lives in Porto.", 1, entities=["Ana"], superseded_by="a2",
                   chain="ana:home", family="moved"),
        _statement("a2", "Ana moved to Lyon.", 2, entities=["Ana"], chain="ana:home"),
        _statement("t1", "The launch is on May 3.", 3, superseded_by="t2", chain="launch",
                   family="pushed"),
        _statement("t2", "They moved the launch to May 10.", 4, chain="launch"),
        _statement("x1", "The office is closed on December 24.", 5, family="closed"),
        _statement("x2", "The office is closed on December 26.", 6),
    ]  # fmt: skip
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"banks": [{"id": "b", "statements": bank}]}))
    counts = by_rule([path])
    assert counts["gold"] == {"moved": 1, "pushed": 1}
    assert counts["found:attribute"]["moved"] == 1
    assert counts["found:reader.thing"]["pushed"] == 1
    assert counts["only:reader.thing"]["pushed"] == 1
    assert counts["found:reader.thing"]["moved"] == 0
    assert counts["false:reader.thing"]["all"] == 0
    table = render(counts)
    assert "| moved | 1 |" in table and "| all | 2 |" in table
