"""Text features are computed once at ingest and stored with the memory; consolidation
reads them back instead of computing them from the text (worker/consolidation/features.py)."""

import json
from pathlib import Path

import pytest

from contracts.memory import Memory
from readmodel.embedders.hashing import HashEmbedder
from readmodel.reading import pipeline
from readmodel.store import Filter
from tests.helpers import edge_consolidator, event, memory
from worker.consolidation import features, openframes, statements
from worker.consolidation.consolidator import consolidate
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, relate
from worker.rebuild import rebuild_bank

DEV = Path(__file__).resolve().parents[2] / "bench" / "data" / "supersession_dev.json"
POLICY = ConsolidationPolicy()
_R: list[object] = [[], [], "no words"]
"""A well-formed stored reading (of nothing), so that each case below is wrong in one way."""


def _statements() -> list[tuple[str, list[str]]]:
    data = json.loads(DEV.read_text(encoding="utf-8"))
    return [(s["text"], s["entities"]) for b in data["banks"] for s in b["statements"]]


def test_what_is_stored_reads_back_as_what_the_text_gives() -> None:
    """Every statement of the supersession dev set: slots of every mode and tier,
    change words, negations and value words survive the round trip."""
    modes, negations, valued = set(), 0, 0
    for text, entities in _statements():
        found = features.computed(text, entities)
        assert features.decode(features.encode(found)) == found, text
        modes.update(s.mode for s in found.statement.slots)
        negations += found.negation
        valued += bool(found.values)
    assert modes == {"is", "ended", "changed"}
    assert negations >= 3 and valued >= 100


def test_ingest_stores_them() -> None:
    m = memory("Ana moved to Lisbon in 2021.", entities=["Ana"])
    assert m.features is not None
    assert features.decode(m.features) == features.computed(m.text, ["Ana"])


@pytest.mark.parametrize(
    "stored",
    [
        "not json",
        "[]",
        json.dumps([features.FORMAT + 1, None, "fact", None, False, [], False, [], None, _R]),
        json.dumps([features.FORMAT, None, "opinion", None, False, [], False, [], None, _R]),
        json.dumps([features.FORMAT, None, "fact", None, "no", [], False, [], None, _R]),
        json.dumps([features.FORMAT, None, "fact", None, False, [], "no", [], None, _R]),
        json.dumps([features.FORMAT, 3, "fact", None, False, [], False, [], None, _R]),
        json.dumps([features.FORMAT, None, "fact", None, False, [], False, [["two"]], None, _R]),
        json.dumps([features.FORMAT, None, "fact", None, False, [], False, [], None, [[], [], 3]]),
        json.dumps(
            [features.FORMAT, None, "fact", None, False, [], False, [], None, [[["x"]], [], None]]
        ),
        json.dumps([features.FORMAT, None, "fact", None, False, [], False, [], None, _R, "more"]),
    ],
)
def test_a_value_of_another_format_or_shape_is_computed_from_the_text(stored: str) -> None:
    m = memory("Ana lives in Porto.", entities=["Ana"]).model_copy(update={"features": stored})
    assert features.decode(stored) is None
    assert features.of(m) == features.computed("Ana lives in Porto.", ["Ana"])


def test_a_memory_stored_without_them_gets_them_computed() -> None:
    m = memory("Ana lives in Porto.", entities=["Ana"]).model_copy(update={"features": None})
    assert features.of(m).statement.slots


def _stated(text: str, entities: list[str], features_of: str, day: int) -> Memory:
    """A memory whose stored features are those of another text."""
    stored = features.encode(features.computed(features_of, entities))
    return memory(text, day, entities=entities).model_copy(update={"features": stored})


def test_relate_decides_on_the_stored_features_and_computes_none(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Stored features that say another city than the text: the decision follows the
    stored ones, and no text is read while deciding, by no reader: neither the
    statement reader nor the attribute or frame readers."""
    older = _stated("Ana lives in Porto.", ["Ana"], "Ana lives in Porto.", 0)
    same_city = _stated("Ana lives in Lisbon.", ["Ana"], "Ana lives in Porto.", 30)
    other_city = _stated("Ana lives in Porto.", ["Ana"], "Ana lives in Lisbon.", 30)
    restated = _stated("Ana has her home in Porto.", ["Ana"], "Ana lives in Porto.", 30)

    def refuse(*args: object) -> None:
        raise AssertionError("text features computed for a stored memory")

    monkeypatch.setattr(statements, "_features", refuse)
    monkeypatch.setattr(features, "computed", refuse)
    monkeypatch.setattr(pipeline, "_read", refuse)
    monkeypatch.setattr(openframes, "read", refuse)
    alike = relate(older, same_city, 0.0, POLICY)
    assert alike is not None and alike.kind is LinkKind.MERGE  # read alike: one fact
    merged = relate(older, restated, 0.99, POLICY)
    assert merged is not None and merged.kind is LinkKind.MERGE
    link = relate(older, other_city, 0.0, POLICY)
    assert link is not None and link.kind is LinkKind.SUPERSEDE


def test_negation_and_value_words_come_from_the_stored_features() -> None:
    """A restatement merges unless one side negates or names a value the other lacks."""
    plain = memory("Ana felt calm after the walk.", entities=["Ana"])
    twin = memory("By the way, Ana felt calm after the walk.", 1, entities=["Ana"])
    link = relate(plain, twin, 0.99, POLICY)
    assert link is not None and link.kind is LinkKind.MERGE
    negated = _stated("Ana felt calm after the walk today.", ["Ana"], "Ana did not feel calm.", 1)
    assert relate(plain, negated, 0.99, POLICY) is None
    valued = _stated("Ana felt calm after the walk today.", ["Ana"], "Ana walked to Seattle.", 1)
    boston = _stated("Ana felt calm after the walk.", ["Ana"], "Ana walked to Boston.", 0)
    assert relate(boston, valued, 0.99, POLICY) is None


def test_rebuild_stores_features_a_memory_lacked(tmp_path: Path) -> None:
    embedder = HashEmbedder()
    deps = edge_consolidator(tmp_path / "store", embedder)
    retained = [
        event("Ana lives in Porto.", 0, entities=["Ana"]),
        event("Ana lives in Lisbon.", 30, entities=["Ana"]),
    ]
    consolidate(retained, deps)
    scope = Filter("b1", kinds=RAW_KINDS)
    points = list(deps.store.scroll(scope, with_vectors=True))
    deps.store.upsert(
        [type(p)(p.record.model_copy(update={"features": None}), p.dense, p.sparse) for p in points]
    )
    assert all(p.record.features is None for p in deps.store.scroll(scope))
    rebuild_bank("b1", deps)
    after = {p.record.text: p.record for p in deps.store.scroll(scope)}
    for text, record in after.items():
        assert record.features is not None
        assert features.decode(record.features) == features.computed(text, ["Ana"])
    assert after["Ana lives in Porto."].superseded_by == after["Ana lives in Lisbon."].id
