"""The embedded store purges what forgets deleted from its files while it stays open and
in use (`EdgeStore.purge_now`), not only when it closes."""

import contextlib
import os
import threading
import uuid
from pathlib import Path

from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter, StoredPoint
from readmodel.stores.edge import EdgeStore
from readmodel.stores.pending_purge import PURGE_FILE
from readmodel.text import document_vector
from sediment.bootstrap import bootstrap
from sediment.forgetting import forget
from sediment.settings import Settings
from tests.helpers import memory, mid
from tests.integration.test_forget import marked

EMB = HashEmbedder(64)
BANK = "b1"


def files_with(root: Path, marker: str) -> list[str]:
    """Files under `root` holding `marker`; a file a copy removed while looked at holds
    nothing."""
    found = []
    for where, _, names in os.walk(root):
        for name in names:
            path = Path(where) / name
            with contextlib.suppress(FileNotFoundError, NotADirectoryError):
                if marker.encode() in path.read_bytes():
                    found.append(str(path))
    return found


def _point(text: str, bank: str = BANK) -> StoredPoint:
    m = memory(text, bank=bank)
    return StoredPoint(m, EMB.embed([m.text])[0], document_vector(m.text))


def _store(
    root: Path, texts: list[str], page_size: int = 256
) -> tuple[EdgeStore, list[StoredPoint]]:
    store = EdgeStore(root, page_size=page_size)
    store.ensure_schema(EMB.dimension)
    points = [_point(t) for t in texts]
    store.upsert(points)
    store.flush()
    return store, points


def test_a_forgotten_text_leaves_the_files_of_an_open_store(tmp_path: Path) -> None:
    marker = "zq" + uuid.uuid4().hex
    store, (doomed, kept) = _store(
        tmp_path, [f"Dana hid the {marker} note under the lamp.", "Dana lives in Oslo."]
    )
    assert not store.purge_now()
    store.purge(BANK)
    store.delete(BANK, [doomed.record.id])
    assert files_with(tmp_path, marker)
    assert (tmp_path / PURGE_FILE).exists()
    assert store.purge_now()
    assert files_with(tmp_path, marker) == []
    assert not (tmp_path / PURGE_FILE).exists()
    assert not store.purge_now()
    [top] = store.search_dense(kept.dense, Filter(BANK), limit=1)
    assert top.record.id == kept.record.id
    assert store.fetch(BANK, [doomed.record.id, kept.record.id]) != []
    assert [p.record.id for p in store.scroll(Filter(BANK))] == [kept.record.id]
    later = _point("Dana moved to Bergen.")
    store.upsert([later])
    assert store.count(Filter(BANK)) == 2
    store.close()
    again = EdgeStore(tmp_path)
    again.ensure_schema(EMB.dimension)
    assert {p.record.id for p in again.scroll(Filter(BANK))} == {kept.record.id, later.record.id}
    again.close()


def test_a_forget_between_its_purge_and_its_delete_is_purged_by_the_next_copy(
    tmp_path: Path,
) -> None:
    """A copy made after a forget asked for its purge and before it deleted cannot have
    purged it: the intent stays on disk and the next copy purges it."""
    marker = "zq" + uuid.uuid4().hex
    store, (doomed, other) = _store(tmp_path, [f"The {marker} code is 4417.", "Bo likes tea."])
    store.purge(BANK)
    store.purge("b2")
    store.upsert([_point("Bo likes coffee.", bank="b2")])
    store.delete("b2", [_point("Bo likes coffee.", bank="b2").record.id])
    assert store.purge_now()
    assert (tmp_path / PURGE_FILE).exists()
    store.delete(BANK, [doomed.record.id])
    assert files_with(tmp_path, marker)
    assert store.purge_now()
    assert files_with(tmp_path, marker) == []
    assert not (tmp_path / PURGE_FILE).exists()
    assert store.fetch(BANK, [other.record.id])
    store.close()


def test_reads_and_writes_go_on_while_the_store_copies_itself(tmp_path: Path) -> None:
    store, points = _store(tmp_path, [f"Note {i} about the garden shed." for i in range(100)], 16)
    """Pages of 16: a scroll's pages are read across copies."""
    stop = threading.Event()
    errors: list[BaseException] = []
    written: list[uuid.UUID] = []

    def reads() -> None:
        try:
            while not stop.is_set():
                hits, _ = store.search_hybrid(points[7].dense, points[7].sparse, Filter(BANK), 5)
                assert hits
                assert len(list(store.scroll(Filter(BANK)))) >= 90
        except BaseException as exc:  # the test reports what any thread raised
            errors.append(exc)

    def writes() -> None:
        try:
            for i in range(100):
                p = _point(f"Later note {i} about the roses.")
                store.upsert([p])
                written.append(p.record.id)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=reads) for _ in range(2)]
    threads.append(threading.Thread(target=writes))
    for t in threads:
        t.start()
    copies = 0
    for p in points[:3]:
        store.purge(BANK)
        store.delete(BANK, [p.record.id])
        copies += store.purge_now()
    threads[-1].join()
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert copies == 3
    assert store.count(Filter(BANK)) == 100 - 3 + 100
    assert len(store.fetch(BANK, written)) == 100
    store.close()


def test_a_runtime_forget_is_purged_by_the_serving_loop(tmp_path: Path) -> None:
    """The loop `sediment serve` runs (`Runtime.sweep_loops`), at a bound of 1 s."""
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, mode="embedded", data_dir=tmp_path / "data", forget_purge_s=1
    )
    rt = bootstrap(settings)
    marker = "zq" + uuid.uuid4().hex
    events = marked(marker)
    assert rt.publisher.publish_retain(events) == 3
    [loop] = [loop for loop in rt.sweep_loops() if loop._name == "sediment-purge"]
    loop.start()
    try:
        rt.store.inner.flush()  # type: ignore[attr-defined]
        assert files_with(tmp_path / "data", marker)
        assert forget(rt.publisher, events[0].bank_id, memory_ids=[mid(events[0])]) == 1
        done = threading.Event()
        for _ in range(100):
            if not files_with(tmp_path / "data", marker):
                done.set()
                break
            done.wait(0.1)
        assert done.is_set(), files_with(tmp_path / "data", marker)
        assert rt.store.count(Filter(events[0].bank_id)) >= 2
    finally:
        loop.stop()
        rt.close()
