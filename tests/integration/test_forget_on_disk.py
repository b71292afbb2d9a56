"""A forget is complete only when no copy of the text is left on disk: not after a crash
between the forget and a clean close (the store finishes the purge when it is opened
again), and not in Redis's append-only file (rewritten after forgets)."""

import os
import subprocess
import sys
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from bench.reliability.cluster import RedisServer
from readmodel.store import Filter
from sediment.bootstrap import bootstrap
from sediment.forgetting import forget
from sediment.retain import Publisher
from sediment.settings import Settings
from tests.helpers import mid
from tests.integration.conftest import WorkerEnv, wait_until
from tests.integration.test_forget import (
    BANK,
    files_with,
    marked,
    recalled_ids,
    redis_keys_with,
)
from worker.aof_rewrite import GATE_KEY

pytestmark = pytest.mark.integration

CRASH_AFTER_FORGET = textwrap.dedent(
    """
    import os, sys, uuid
    from sediment.bootstrap import bootstrap
    from sediment.forgetting import forget
    from sediment.settings import Settings
    from tests.helpers import mid
    from tests.integration.test_forget import marked

    data_dir, marker = sys.argv[1], sys.argv[2]
    rt = bootstrap(Settings(_env_file=None, mode="embedded", data_dir=data_dir))
    events = marked(marker)
    assert rt.publisher.publish_retain(events) == 3
    rt.store.inner.flush()  # the text in the segments' pages too, not only in the WAL
    assert forget(rt.publisher, events[0].bank_id, memory_ids=[mid(events[0])]) == 1
    os._exit(0)
    """
)


def test_a_crash_after_a_forget_leaves_no_text_once_the_store_is_opened(tmp_path: Path) -> None:
    """The process holding the embedded store is gone the instant the forget returned
    (`os._exit`: no close, no flush); the next open finishes the purge."""
    data_dir, marker = tmp_path / "data", "zq" + uuid.uuid4().hex
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    child = [sys.executable, "-c", CRASH_AFTER_FORGET, str(data_dir), marker]
    subprocess.run(child, check=True, cwd=root, env=env, timeout=300)
    assert files_with(data_dir, marker), "the crash should leave the text in the store's files"

    settings = Settings(_env_file=None, mode="embedded", data_dir=data_dir)  # type: ignore[call-arg]
    rt = bootstrap(settings)
    try:
        assert rt.store.count(Filter(BANK)) == 2
        assert files_with(data_dir, marker) == []
        events = marked(marker)
        assert mid(events[0]) not in recalled_ids(rt, f"spare key {marker} flowerpot")
        assert mid(events[1]) in recalled_ids(rt, "Alice lives in Lisbon")
        assert rt.publisher.publish_retain([events[0]]) == 0
    finally:
        rt.close()
    assert files_with(data_dir, marker) == []


LOCAL_MODE_CRASH = textwrap.dedent(
    """
    import os, sqlite3, sys
    import qdrant_client.local.persistence as persistence
    from readmodel.stores.qdrant import QdrantStore
    from tests.helpers import memory, point

    class Sqlite:
        '''A SQLite built without SECURE_DELETE: deleted rows stay in free pages.'''
        @staticmethod
        def connect(*args, **kwargs):
            connection = sqlite3.connect(*args, **kwargs)
            connection.execute("PRAGMA secure_delete = OFF")
            return connection
        Binary = sqlite3.Binary

    persistence.sqlite3 = Sqlite
    path, marker = sys.argv[1], sys.argv[2]
    store = QdrantStore(path=path)
    store.ensure_schema(2)
    doomed = memory(f"the {marker} flowerpot" + " and more words" * 20, bank="b1")
    kept = memory("Alice lives in Lisbon.", bank="b1")
    store.upsert([point(doomed, 0), point(kept, 40)])
    store.purge("b1")
    store.delete("b1", [doomed.id])
    os._exit(0)
    """
)


def test_qdrant_local_mode_vacuums_what_a_crashed_forget_left(tmp_path: Path) -> None:
    """Local mode's SQLite file, from a SQLite without SECURE_DELETE, after a forget's
    delete and a crash: the next open vacuums it."""
    from readmodel.stores.qdrant import QdrantStore

    path, marker = tmp_path / "qdrant", "zq" + uuid.uuid4().hex
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": str(root)}
    child = [sys.executable, "-c", LOCAL_MODE_CRASH, str(path), marker]
    subprocess.run(child, check=True, cwd=root, env=env, timeout=300)
    assert files_with(path, marker), "the deleted row should be left in the file's free pages"

    store = QdrantStore(path=str(path))
    try:
        store.ensure_schema(2)
        assert store.count(Filter("b1")) == 1
        assert files_with(path, marker) == []
    finally:
        store.close()


REWRITE_S = 8


@pytest.fixture
def aof_env(tmp_path: Path) -> Iterator[tuple[WorkerEnv, Path]]:
    """A Redis of the test's own, appending to an AOF in `tmp_path/redis`, and the env
    of a standalone worker on it that rewrites the AOF at most every `REWRITE_S`."""
    server = RedisServer(tmp_path)
    server.start()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": server.url,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_QUEUE": "sediment-aof",
        "SEDIMENT_EMBEDDER": os.environ.get("SEDIMENT_TEST_EMBEDDER", "static"),
        "SEDIMENT_LOG_FORMAT": "json",
        "SEDIMENT_LEDGER_SWEEP_S": "1",
        "SEDIMENT_FORGET_AOF_REWRITE_S": str(REWRITE_S),
    }
    client = server.client()
    worker_env = WorkerEnv(env, client, "sediment-aof", tmp_path / "data", tmp_path)
    try:
        yield worker_env, server.dir
    finally:
        worker_env.kill_leftovers()
        client.close()
        server.stop()


def retain_then_forget(env: WorkerEnv, publisher: Publisher, marker: str) -> None:
    events = marked(marker)
    assert publisher.publish_retain(events) == len(events)
    wait_until(env.settled, 120, "the retains")
    assert forget(publisher, BANK, memory_ids=[mid(events[0])]) == 1
    wait_until(env.settled, 120, "the forget")
    assert redis_keys_with(env.redis, marker) == []


def test_the_aof_keeps_no_forgotten_text_after_the_rewrite_interval(
    aof_env: tuple[WorkerEnv, Path],
) -> None:
    """Through the real retain and forget path: the first forget rewrites the AOF at
    once; a second one inside the interval leaves the rewrite owed, and the worker's
    sweep makes it once the interval has passed. A retain still queued when its forget
    ran is skipped when it arrives, and owes a rewrite of its own."""
    env, redis_dir = aof_env
    rt = env.runtime()
    proc = env.start("worker")
    first, second = "zq" + uuid.uuid4().hex, "zq" + uuid.uuid4().hex
    retain_then_forget(env, rt.publisher, first)
    wait_until(lambda: not files_with(redis_dir, first), 60, "the rewrite after a forget")
    retain_then_forget(env, rt.publisher, second)
    assert files_with(redis_dir, second), "the retain should be in the AOF until a rewrite"
    wait_until(lambda: not files_with(redis_dir, second), 60, "the owed rewrite")
    assert not files_with(redis_dir, first)

    # A forget's own rewrite runs at once past the interval, before its late retain.
    wait_until(lambda: not env.redis.exists(GATE_KEY), 60, "the interval to pass")
    late = marked("zq" + uuid.uuid4().hex)
    assert forget(rt.publisher, BANK, memory_ids=[mid(late[0])]) == 1
    assert rt.publisher.publish_retain(late[:1]) == 1
    wait_until(env.settled, 120, "a retain arriving after its forget")
    assert redis_keys_with(env.redis, late[0].text) == []
    wait_until(lambda: not files_with(redis_dir, late[0].text), 60, "the rewrite it owes")
    env.stop(proc)
    rt.close()
