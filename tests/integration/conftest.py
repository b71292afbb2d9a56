"""Real Redis on 127.0.0.1 and real `celery worker` processes."""

import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import redis
from celery import Celery

from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from tests.helpers import redis_url
from worker.ledger import LEDGER_KEY

REDIS_DB = 13


@dataclass
class WorkerEnv:
    env: dict[str, str]
    redis: redis.Redis
    queue: str
    data_dir: Path
    log_dir: Path
    started: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def start(self, name: str) -> subprocess.Popen[bytes]:
        log = (self.log_dir / f"{name}.log").open("wb")
        proc = subprocess.Popen(
            [sys.executable, "-m", "sediment.cli", "worker", "--pool", "solo"],
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        self.started.append(proc)
        return proc

    def kill_leftovers(self) -> None:
        """A failed test leaves no worker behind."""
        for proc in self.started:
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)

    def stop(self, proc: subprocess.Popen[bytes], timeout: float = 60) -> None:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=timeout)

    def pending(self) -> int:
        """Messages waiting in the queue plus messages delivered but not yet acknowledged."""
        return int(self.redis.llen(self.queue)) + int(self.redis.hlen("unacked"))

    def owed(self) -> int:
        """Events the redelivery ledger still holds (published, not yet handled)."""
        return int(self.redis.hlen(LEDGER_KEY))

    def settled(self) -> bool:
        return self.pending() == 0 and self.owed() == 0

    def producer(self) -> Celery:
        return Celery(broker=self.env["SEDIMENT_REDIS_URL"], set_as_current=False)

    def runtime(self) -> Runtime:
        """The settings the workers ran with; open the store only once they have stopped."""
        prefix = "SEDIMENT_"
        values = {
            k[len(prefix) :].lower(): v
            for k, v in self.env.items()
            if k.startswith(prefix) and not k.startswith("SEDIMENT_TEST_")
        }
        return bootstrap(Settings(_env_file=None, **values))  # type: ignore[call-arg]


@pytest.fixture
def worker_env(tmp_path: Path) -> Iterator[WorkerEnv]:
    url = redis_url(REDIS_DB)
    client = redis.Redis.from_url(url)
    try:
        client.ping()
    except redis.ConnectionError:
        pytest.fail(f"integration tests need Redis at {url} (.ci/run starts it)")
    client.flushdb()
    worker_env = make_worker_env(url, client, tmp_path)
    yield worker_env
    worker_env.kill_leftovers()
    client.flushdb()


def make_worker_env(url: str, client: redis.Redis, tmp_path: Path) -> WorkerEnv:
    """Workers on the Redis at `url`, a queue of their own and a data directory in
    `tmp_path`, with short redelivery settings (a test overrides what it needs)."""
    queue = f"sediment-test-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",  # the test Redis is volatile
        "SEDIMENT_REDIS_URL": url,
        "SEDIMENT_DATA_DIR": str(tmp_path / "data"),
        "SEDIMENT_QUEUE": queue,
        "SEDIMENT_EMBEDDER": os.environ.get("SEDIMENT_TEST_EMBEDDER", "static"),
        "SEDIMENT_TASK_SOFT_TIME_LIMIT_S": "5",
        "SEDIMENT_TASK_TIME_LIMIT_S": "8",
        "SEDIMENT_VISIBILITY_TIMEOUT_S": "10",
        "SEDIMENT_LOG_FORMAT": "json",
        "SEDIMENT_LEDGER_SWEEP_S": "1",
        "SEDIMENT_LEDGER_GRACE_S": "3",
    }
    return WorkerEnv(env, client, queue, tmp_path / "data", tmp_path)


def wait_until(predicate: "object", timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.2)
    pytest.fail(f"timed out after {timeout}s waiting for {what}")
