"""Where the Edge shard keeps dense vectors: mapped from disk (`Cold`), not copied into
memory when a segment opens, for new stores and for stores made before the change."""

import json
from pathlib import Path

import pytest
import qdrant_edge as qe

from readmodel.store import Filter
from readmodel.stores import edge
from readmodel.stores.edge import EdgeStore
from tests.contract.test_store_contract import BANK, DIM, memory, point, unit

IN_MEMORY = {"InRamMmap", "InRamChunkedMmap"}


def dense_placement(root: Path) -> object:
    config = json.loads((root / "shard" / "edge_config.json").read_text())
    return config["vectors"]["dense"].get("memory")


def segment_storages(root: Path) -> set[str]:
    found = set()
    for seg in (root / "shard" / "segments").glob("*/segment.json"):
        config = json.loads(seg.read_text())["config"]
        found.add(config["vector_data"]["dense"]["storage_type"])
    return found


def test_a_new_store_maps_its_dense_vectors_from_disk(tmp_path: Path) -> None:
    store = EdgeStore(tmp_path)
    store.ensure_schema(DIM)
    store.upsert([point(memory(BANK, i), i) for i in range(20)])
    store.close()
    assert dense_placement(tmp_path) == "cold"
    assert segment_storages(tmp_path) and not segment_storages(tmp_path) & IN_MEMORY


def test_an_older_store_opens_keeps_its_points_and_compacts_to_mapped_segments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with monkeypatch.context() as m:
        m.setattr(edge, "DENSE_MEMORY", None)  # the engine's default placement
        old = EdgeStore(tmp_path)
        old.ensure_schema(DIM)
        old.upsert([point(memory(BANK, i), i) for i in range(20)])
        old.close()
    assert dense_placement(tmp_path) is None
    assert segment_storages(tmp_path) <= IN_MEMORY

    store = EdgeStore(tmp_path)
    store.ensure_schema(DIM)
    assert dense_placement(tmp_path) == "cold"
    assert store.count(Filter(BANK)) == 20
    [top] = store.search_dense(unit(3), Filter(BANK), limit=1)
    assert top.record.id == memory(BANK, 3).id
    store.purge(BANK)
    store.close()
    assert not segment_storages(tmp_path) & IN_MEMORY

    again = EdgeStore(tmp_path)
    again.ensure_schema(DIM)
    try:
        assert again.count(Filter(BANK)) == 20
    finally:
        again.close()


def test_the_placement_is_the_engines_cold_one() -> None:
    assert edge.DENSE_MEMORY is qe.Memory.Cold
