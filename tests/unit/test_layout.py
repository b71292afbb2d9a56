"""A store records the layout of derived fields its points follow; a process that
consolidates refuses one written under another layout, and `sediment rebuild --all`
brings it to this version's."""

from pathlib import Path

import pytest

from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.text import document_vector
from sediment.bootstrap import bootstrap
from sediment.settings import Settings
from tests.e2e.cli import sediment
from tests.helpers import event, memory
from worker.consolidation.layout import LAYOUT, StaleLayoutError, adopt_layout, check_layout


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
