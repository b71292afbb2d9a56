"""Bank locks: exclusive for as long as the work takes, lapsing when the holder dies."""

import threading
import time

import fakeredis
import pytest

from worker.errors import TransientError
from worker.locks import ProcessLocks, RedisLocks


def test_a_lock_outlives_its_expiry_while_held() -> None:
    client = fakeredis.FakeRedis()
    holder = RedisLocks(client, timeout_s=0.6, wait_s=0.1)
    rival = RedisLocks(client, timeout_s=0.6, wait_s=0.1)
    with holder.hold("bank:b"):
        time.sleep(1.5)
        with pytest.raises(TransientError), rival.hold("bank:b"):
            pass
    with rival.hold("bank:b"):
        pass


def test_an_abandoned_lock_lapses() -> None:
    client = fakeredis.FakeRedis()
    client.lock("sediment:lock:bank:b", timeout=0.5).acquire()
    with RedisLocks(client, timeout_s=5, wait_s=2).hold("bank:b"):
        pass


def test_process_locks_exclude_threads_and_give_up_after_the_wait() -> None:
    locks = ProcessLocks(wait_s=0.2)
    inside: list[int] = []
    entered = threading.Event()
    release = threading.Event()

    def holder() -> None:
        with locks.hold("bank:a"):
            inside.append(1)
            entered.set()
            release.wait(5)

    t = threading.Thread(target=holder)
    t.start()
    entered.wait(5)
    with pytest.raises(TransientError, match="bank:a"), locks.hold("bank:a"):
        inside.append(2)
    with locks.hold("bank:b"):
        inside.append(3)
    release.set()
    t.join(5)
    with locks.hold("bank:a"):
        inside.append(4)
    assert inside == [1, 3, 4]


def test_one_renewer_serves_every_hold_and_renews_each_lock() -> None:
    client = fakeredis.FakeRedis()
    holder = RedisLocks(client, timeout_s=0.6, wait_s=0.1)
    rival = RedisLocks(client, timeout_s=0.6, wait_s=0.1)
    renewers = set()
    for _ in range(20):
        with holder.hold("bank:a"):
            renewers.add(holder._renewer)
    with holder.hold("bank:a"), holder.hold("bank:b"):
        renewers.add(holder._renewer)
        time.sleep(1.5)
        assert len(renewers) == 1  # the same thread for every hold so far
        for bank in ("bank:a", "bank:b"):
            with pytest.raises(TransientError), rival.hold(bank):
                pass
    with rival.hold("bank:a"), rival.hold("bank:b"):
        pass
