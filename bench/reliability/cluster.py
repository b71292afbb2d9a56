"""Real processes for the fault suite: a `redis-server` with AOF in a temporary
directory, `sediment worker` and `sediment serve` in standalone mode, each on free
ports; kill -9 and restart them; read what Redis says about the queue and the ledger.
"""

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import redis
from celery import Celery

from readmodel.store import Filter
from sediment.bootstrap import Runtime, bootstrap
from sediment.settings import Settings
from worker.holders import HOLDERS_KEY, read_claims
from worker.ledger import LEDGER_KEY
from worker.sweeper import carried

TOKEN = "reliability-token"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(predicate: Callable[[], bool], timeout: float, what: str, every: float = 0.2) -> float:
    """Seconds it took; raises TimeoutError naming `what`."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        with contextlib.suppress(Exception):
            if predicate():
                return time.monotonic() - start
        time.sleep(every)
    raise TimeoutError(f"timed out after {timeout:.0f} s waiting for {what}")


def rss_mb(pid: int) -> float | None:
    """Resident memory of a process (Linux /proc), in MiB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


class RedisServer:
    """Our own redis-server with append-only persistence, restartable on the same port
    and directory (what a crash and a restart of the broker look like)."""

    def __init__(self, workdir: Path) -> None:
        if shutil.which("redis-server") is None:
            raise RuntimeError("redis-server is not installed (apt-get install redis-server)")
        self.dir = workdir / "redis"
        self.dir.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        log = (self.dir / "redis.log").open("ab")
        self.proc = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--dir",
                str(self.dir),
                "--appendonly",
                "yes",
                "--appendfsync",
                "everysec",
                "--save",
                "",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        wait_for(lambda: bool(self.client().ping()), 30, "redis-server to answer")

    def client(self) -> redis.Redis:
        return redis.Redis.from_url(self.url, socket_timeout=10, socket_connect_timeout=2)

    def kill(self) -> None:
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(30)

    def stop(self) -> None:
        """SIGTERM: Redis writes its AOF and closes its clients' connections."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(30)


@dataclass
class Node:
    """One deployment on the suite's Redis: its queue, data directory and settings."""

    redis_url: str
    workdir: Path
    name: str
    extra: dict[str, str] = field(default_factory=dict)
    queue: str = field(default_factory=lambda: f"rel-{uuid.uuid4().hex[:8]}")

    @property
    def data_dir(self) -> Path:
        return self.workdir / self.name / "data"

    @property
    def env(self) -> dict[str, str]:
        return {
            **{k: v for k, v in os.environ.items() if not k.startswith("SEDIMENT_")},
            "SEDIMENT_MODE": "standalone",
            "SEDIMENT_REDIS_URL": self.redis_url,
            "SEDIMENT_DATA_DIR": str(self.data_dir),
            "SEDIMENT_QUEUE": self.queue,
            "SEDIMENT_API_TOKEN": TOKEN,
            "SEDIMENT_LOG_FORMAT": "json",
            "SEDIMENT_LOG_LEVEL": "WARNING",
            **self.extra,
        }

    def settings(self) -> Settings:
        ours = {k: v for k, v in self.env.items() if k.startswith("SEDIMENT_")}
        values = {k.removeprefix("SEDIMENT_").lower(): v for k, v in ours.items()}
        return Settings.model_validate(values)

    def runtime(self) -> Runtime:
        """Open the store only once no process of this node runs."""
        return bootstrap(self.settings())


class Proc:
    """A `sediment worker` or `sediment serve` of a node, restartable."""

    def __init__(self, node: Node, command: list[str], port: int | None = None) -> None:
        self.node = node
        self.command = command
        self.port = port
        self.proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    @classmethod
    def worker(cls, node: Node) -> "Proc":
        return cls(node, ["worker", "--pool", "solo", "--loglevel", "WARNING"])

    @classmethod
    def serve(cls, node: Node) -> "Proc":
        port = free_port()
        return cls(node, ["serve", "--port", str(port)], port)

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        self.starts += 1
        log_path = self.node.workdir / self.node.name / f"{self.command[0]}-{self.starts}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        with log_path.open("wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "sediment.cli", *self.command],
                env=self.node.env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(30)

    def stop(self, timeout: float = 120) -> None:
        if self.alive():
            assert self.proc is not None
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(30)

    def healthy(self) -> bool:
        if not self.alive():
            raise RuntimeError(
                f"sediment {self.command[0]} exited with {self.proc and self.proc.returncode}"
            )
        if self.port is None:
            return True
        return httpx.get(f"{self.base_url}/healthz", timeout=2).status_code == 200


class Broker:
    """What Redis says about a node's queue, the unacknowledged messages and the ledger;
    with `url`, which Celery workers answer a ping (for settings without heartbeats)."""

    def __init__(self, client: redis.Redis, queue: str, url: str | None = None) -> None:
        self.client = client
        self.queue = queue
        self.url = url

    def queued(self) -> int:
        return int(self.client.llen(self.queue))

    def unacked(self) -> int:
        return int(self.client.hlen("unacked"))

    def owed(self) -> int:
        return int(self.client.hlen(LEDGER_KEY))

    def settled(self) -> bool:
        return self.queued() == 0 and self.unacked() == 0 and self.owed() == 0

    def owed_members(self) -> set[str]:
        """Ledger members of the events published and not yet handled."""
        return {
            m.decode() if isinstance(m, bytes) else str(m) for m in self.client.hkeys(LEDGER_KEY)
        }

    def in_flight(self) -> set[str]:
        """Ledger members of the events in unacknowledged messages."""
        return {m for raw in self.client.hvals("unacked") for m in carried(raw)}

    def still_owed(self, members: set[str]) -> set[str]:
        if not members:
            return set()
        names = sorted(members)
        present = self.client.hmget(LEDGER_KEY, names)
        return {n for n, v in zip(names, present, strict=True) if v is not None}

    def consumers(self) -> int:
        return int(self.client.zcard(HOLDERS_KEY))

    def live(self) -> frozenset[str]:
        """Names of the consuming processes whose heartbeat has not lapsed."""
        return read_claims(self.client).live

    def pinged(self, timeout: float = 1.0) -> frozenset[str]:
        """Node names of the Celery workers on this Redis that answer a ping (remote
        control), whatever their heartbeat settings."""
        assert self.url is not None, "a Broker made without the Redis URL cannot ping"
        app = Celery(broker=self.url, set_as_current=False)
        try:
            replies = app.control.ping(timeout=timeout) or []
        finally:
            app.close()
        return frozenset(name for reply in replies for name in reply)


@dataclass(frozen=True)
class StoreCount:
    stored: int
    distinct_events: int
    ids: frozenset[uuid.UUID]

    @property
    def duplicated(self) -> int:
        return self.stored - self.distinct_events


def stored_raw(rt: Runtime, banks: list[str]) -> StoreCount:
    """Raw memories in the store of these banks: how many, and of how many events."""
    ids: set[uuid.UUID] = set()
    events: set[uuid.UUID] = set()
    total = 0
    for bank in banks:
        for point in rt.store.scroll(Filter(bank, kinds=("world", "experience"))):
            total += 1
            ids.add(point.record.id)
            if point.record.event_id is not None:
                events.add(point.record.event_id)
    return StoreCount(total, len(events), frozenset(ids))


@contextlib.contextmanager
def running(proc: Proc, timeout: float = 120) -> Iterator[Proc]:
    proc.start()
    try:
        wait_for(proc.healthy, timeout, f"sediment {proc.command[0]} to start")
        yield proc
    finally:
        proc.stop()
