"""An ingest runs the cyclic collector less often, and leaves it as it found it."""

import gc

from sediment.ingest import COLLECTION_THRESHOLDS, few_collections


def test_the_collector_is_restored_after_the_block() -> None:
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    with few_collections() as set_aside:
        assert gc.get_threshold() == COLLECTION_THRESHOLDS
        frozen = gc.get_freeze_count()
        assert frozen > 0
        kept = [[i] for i in range(1000)]
        set_aside()
        assert gc.get_freeze_count() >= frozen + len(kept)
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_the_collector_is_restored_when_the_block_raises() -> None:
    before = gc.get_threshold()
    try:
        with few_collections():
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0


def test_objects_frozen_by_someone_else_stay_frozen() -> None:
    gc.freeze()
    try:
        frozen = gc.get_freeze_count()
        with few_collections() as set_aside:
            kept = [[i] for i in range(1000)]
            set_aside()
            assert gc.get_freeze_count() == frozen
        assert gc.get_freeze_count() == frozen
        assert kept
    finally:
        gc.unfreeze()
