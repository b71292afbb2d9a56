"""`sediment worker` and `sediment serve` refuse a Redis without persistence, and say
why and how: against a `redis-server` of the test's own, started with `--appendonly no`
and no snapshots."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from bench.procs import redis_server


@pytest.mark.parametrize("command", [["worker", "--pool", "solo"], ["serve", "--port", "1"]])
def test_a_volatile_redis_is_refused(tmp_path: Path, command: list[str]) -> None:
    with redis_server(appendonly=False) as url:
        out = _run(command, url, tmp_path)
    said = " ".join(out.stderr.split())
    assert out.returncode == 2, out.stdout + out.stderr
    assert "refusing to start" in said and "a restart would lose queued events" in said
    assert "appendonly yes" in said and "SEDIMENT_ALLOW_VOLATILE_REDIS=true" in said


def _run(command: list[str], url: str, tmp_path: Path) -> "subprocess.CompletedProcess[str]":
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": url,
        "SEDIMENT_DATA_DIR": str(tmp_path),
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "false",
        "SEDIMENT_EMBEDDER": "hash",
    }
    return subprocess.run(
        [sys.executable, "-m", "sediment.cli", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
