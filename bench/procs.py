"""Processes the speed and scale benchmarks start and measure: a throwaway Redis on
a free port, `sediment worker` and `sediment serve` as users run them, and their
resident memory from /proc."""

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import httpx
import redis

START_WAIT_S = 120.0
STOP_WAIT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until(
    ok: Callable[[], bool],
    timeout_s: float,
    what: str,
    every_s: float = 0.05,
    watch: Sequence["Started"] = (),
) -> float:
    """Seconds it took for `ok()` to hold; TimeoutError naming `what` past the timeout,
    RuntimeError with its log's tail as soon as a process in `watch` has exited."""
    start = time.perf_counter()
    while not ok():
        for started in watch:
            if started.proc.poll() is not None:
                raise RuntimeError(
                    f"{what}: pid {started.pid} exited ({started.proc.returncode}):\n"
                    f"{started.tail()}"
                )
        if time.perf_counter() - start > timeout_s:
            raise TimeoutError(f"{what}: not done after {timeout_s:.0f} s")
        time.sleep(every_s)
    return time.perf_counter() - start


@contextlib.contextmanager
def redis_server(appendonly: bool = True) -> Iterator[str]:
    """A Redis of our own in a temporary directory; yields its URL. Append-only
    persistence (fsync every second) as production runs it, which workers require;
    `appendonly=False` gives one without any persistence."""
    port = free_port()
    aof = "yes" if appendonly else "no"
    with tempfile.TemporaryDirectory(prefix="sediment-redis-") as tmp:
        proc = subprocess.Popen(
            [
                *("redis-server", "--port", str(port), "--save", "", "--appendonly", aof),
                *("--dir", tmp, "--bind", "127.0.0.1"),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        url = f"redis://127.0.0.1:{port}/0"
        client = redis.Redis.from_url(url)
        try:
            wait_until(lambda: _pings(client), 30, "redis-server")
            yield url
        finally:
            client.close()
            stop(proc)


def _pings(client: redis.Redis) -> bool:
    try:
        return bool(client.ping())
    except redis.ConnectionError:
        return False


@dataclass
class Started:
    proc: "subprocess.Popen[bytes]"
    log: Path

    @property
    def pid(self) -> int:
        return self.proc.pid

    def tail(self, lines: int = 20) -> str:
        text = self.log.read_text(encoding="utf-8", errors="replace").splitlines()
        return "\n".join(text[-lines:])


def sediment(args: list[str], env: dict[str, str], log: Path) -> Started:
    """`sediment ARGS` in its own session, output to `log`."""
    handle = log.open("wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "sediment.cli", *args],
        env={**os.environ, **env},
        stdout=handle,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    return Started(proc, log)


def serve(env: dict[str, str], log: Path) -> tuple[Started, str]:
    """`sediment serve` on a free port; returns once /healthz answers 200."""
    port = free_port()
    started = sediment(["serve", "--port", str(port)], env, log)
    base = f"http://127.0.0.1:{port}"

    def healthy() -> bool:
        if started.proc.poll() is not None:
            raise RuntimeError(f"sediment serve exited:\n{started.tail()}")
        try:
            return httpx.get(f"{base}/healthz", timeout=2).status_code == 200
        except httpx.HTTPError:
            return False

    wait_until(healthy, START_WAIT_S, "sediment serve", every_s=0.2)
    return started, base


def stop(proc: "subprocess.Popen[bytes]") -> None:
    """SIGTERM (warm shutdown), then SIGKILL past the wait."""
    if proc.poll() is not None:
        return
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(STOP_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def rss_mb(pid: int) -> dict[str, float]:
    """Resident memory now (`rss_mb`) and at its peak (`peak_rss_mb`), from /proc; and
    what `rss_mb` is made of: `anon_mb` (the heaps, the engine's in-memory structures)
    and `file_mb` (mapped files: libraries and the store's segment and log files, which
    count while their pages are resident, twice where a file is mapped twice), and
    `pss_mb` (each resident page once, shared ones divided among their processes)."""
    fields = {
        "VmRSS": "rss_mb",
        "VmHWM": "peak_rss_mb",
        "RssAnon": "anon_mb",
        "RssFile": "file_mb",
        "RssShmem": "shmem_mb",
    }
    out: dict[str, float] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in fields:
            out[fields[name]] = round(int(value.split()[0]) / 1024, 1)
    out["file_mb"] = round(out.get("file_mb", 0.0) + out.pop("shmem_mb", 0.0), 1)
    with contextlib.suppress(OSError):
        for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
            name, _, value = line.partition(":")
            if name == "Pss":
                out["pss_mb"] = round(int(value.split()[0]) / 1024, 1)
    return out
