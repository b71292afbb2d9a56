"""A store records the layout of derived fields its points follow; a process that
consolidates refuses one written under another layout, and `sediment rebuild --all`
brings it to this version's."""

import uuid
from pathlib import Path

import pytest

from contracts.events import RetainEvent
from contracts.forget import Tombstone
from contracts.memory import MEMORY_NAMESPACE
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from tests.e2e.cli import sediment
from tests.helpers import edge_consolidator, event, memory, mid
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.consolidation.layout import LAYOUT, StaleLayoutError, adopt_layout, check_layout
from worker.consolidation.neighbourhood import RAW_KINDS
from worker.rebuild import rebuild_bank

EMB = HashEmbedder(64)


def stored(root: Path) -> EdgeStore:
    store = EdgeStore(root)
    store.ensure_schema(64)
    return store


def test_an_empty_store_is_given_this_layout(tmp_path: Path) -> None:
    store = stored(tmp_path / "s")
    check_layout(store, "here")
    assert store.layout() == LAYOUT
    check_layout(store, "here")
    other = stored(tmp_path / "t")
    adopt_layout(other)
    assert other.layout() == LAYOUT


def test_a_runtime_marks_the_store_it_creates(tmp_path: Path) -> None:
    rt = bootstrap(Settings(_env_file=None, mode="embedded", data_dir=tmp_path, embedder="hash"))  # type: ignore[call-arg]
    try:
        assert rt.store.layout() == LAYOUT
    finally:
        rt.close()


def test_a_store_with_memories_and_no_layout_is_refused(tmp_path: Path) -> None:
    store = stored(tmp_path / "s")
    m = memory("Ana moved to Porto.")
    store.upsert([StoredPoint(m, HashEmbedder(64).embed([m.text])[0], document_vector(m.text))])
    with pytest.raises(StaleLayoutError, match=r"at here has no recorded layout.*rebuild --all"):
        check_layout(store, "here")
    store.mark_layout(LAYOUT - 1)
    with pytest.raises(StaleLayoutError, match=rf"layout {LAYOUT - 1};"):
        check_layout(store, "here")
    store.mark_layout(LAYOUT)
    check_layout(store, "here")


def test_the_cli_refuses_a_stale_store_until_rebuilt(tmp_path: Path) -> None:
    env = {"SEDIMENT_EMBEDDER": "hash"}
    events = tmp_path / "events.jsonl"
    events.write_text(event("Ana moved to Porto.", bank="b").model_dump_json() + "\n")
    sediment(tmp_path, "ingest", str(events), env=env)
    store = EdgeStore(tmp_path / "data" / "store")
    assert store.layout() == LAYOUT
    store.mark_layout(LAYOUT - 1)
    store.close()
    refused = sediment(tmp_path, "ingest", str(events), env=env, check=False)
    assert refused.returncode == 2
    said = " ".join(refused.stderr.split())
    assert said.startswith("refusing to start: the store at") and "rebuild --all" in said
    sediment(tmp_path, "rebuild", "--all", env=env)
    sediment(tmp_path, "ingest", str(events), env=env)


def old_id(e: RetainEvent) -> uuid.UUID:
    """A memory's id under layouts 1 and 2: from the event id alone."""
    return uuid.uuid5(MEMORY_NAMESPACE, str(e.event_id))


def as_layout_2(cons: Consolidator, events: list[RetainEvent], keep_new: bool = False) -> None:
    """Rewrite stored raw memories to their layout-2 ids, the way an earlier version
    stored them (with `keep_new`, a move cut short: both copies)."""
    for e in events:
        (p,) = cons.store.fetch(e.bank_id, [mid(e)], with_vectors=True)
        moved = StoredPoint(p.record.model_copy(update={"id": old_id(e)}), p.dense, p.sparse)
        cons.store.upsert([moved])
        if not keep_new:
            cons.store.delete(e.bank_id, [mid(e)])


@pytest.mark.parametrize("cut_short", [False, True])
def test_rebuild_moves_an_earlier_layouts_memories_to_bank_derived_ids(
    tmp_path: Path, cut_short: bool
) -> None:
    cons = edge_consolidator(tmp_path, EMB)
    porto = event("Ana lives in Porto.", 0, bank="b")
    lisbon = event("Ana lives in Lisbon.", 3, bank="b", supersedes=[old_id(porto)])
    secret = event("Ana's PIN is 4417.", 1, bank="b")
    consolidate([porto, lisbon], cons)
    as_layout_2(cons, [porto, lisbon], keep_new=cut_short)
    cons.tombstones.add(
        [Tombstone(bank_id="b", memory_id=old_id(secret), event_id=secret.event_id)]
    )
    rebuild_bank("b", cons)
    raw = {p.record.id: p.record for p in cons.store.scroll(Filter("b", kinds=RAW_KINDS))}
    assert set(raw) == {mid(porto), mid(lisbon)}
    assert raw[mid(porto)].superseded_by == mid(lisbon)
    assert raw[mid(lisbon)].declared_supersedes == [mid(porto)]
    assert [o.status for o in consolidate([secret], cons)] == [Status.FORGOTTEN]
    rebuild_bank("b", cons)
    assert {p.record.id for p in cons.store.scroll(Filter("b", kinds=RAW_KINDS))} == set(raw)
