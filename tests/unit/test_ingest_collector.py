"""An ingest runs the cyclic collector less often, and leaves it as it found it.

Whether an object is set aside is read from the collector itself: frozen objects are in
none of its generations (`gc.get_objects`). The freeze count alone is not a measure: it
falls whenever a frozen object is freed, which other code may do at any moment."""

import gc

from sediment.ingest import COLLECTION_THRESHOLDS, few_collections


def frozen(obj: object) -> bool:
    return gc.is_tracked(obj) and not any(o is obj for o in gc.get_objects())


def test_the_collector_is_restored_after_the_block() -> None:
    before = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    at_start = [[0]]
    with few_collections() as set_aside:
        assert gc.get_threshold() == COLLECTION_THRESHOLDS
        assert frozen(at_start)
        kept = [[i] for i in range(1000)]
        assert not frozen(kept)
        set_aside()
        assert frozen(kept) and frozen(kept[-1])
    assert gc.get_threshold() == before
    assert gc.get_freeze_count() == 0
    assert not frozen(kept) and not frozen(at_start)


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
    theirs = [[0]]
    gc.freeze()
    try:
        with few_collections() as set_aside:
            kept = [[i] for i in range(1000)]
            set_aside()
            assert not frozen(kept)
            assert frozen(theirs)
        assert frozen(theirs)
        assert not frozen(kept)
    finally:
        gc.unfreeze()
    assert not frozen(theirs)
