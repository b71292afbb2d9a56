"""`sediment worker` and `sediment serve` refuse a Redis without persistence (the
shared test Redis runs with `--appendonly no`), and say why and how."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
import redis

from tests.helpers import redis_url

URL = redis_url(14)


@pytest.mark.parametrize("command", [["worker", "--pool", "solo"], ["serve", "--port", "1"]])
def test_a_volatile_redis_is_refused(tmp_path: Path, command: list[str]) -> None:
    if redis.Redis.from_url(URL).config_get("appendonly").get("appendonly") != "no":
        pytest.skip("the test Redis has AOF on")
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": URL,
        "SEDIMENT_DATA_DIR": str(tmp_path),
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "false",
        "SEDIMENT_EMBEDDER": "hash",
    }
    out = subprocess.run(
        [sys.executable, "-m", "sediment.cli", *command],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = " ".join(out.stderr.split())
    assert out.returncode == 2, out.stdout + out.stderr
    assert "refusing to start" in said and "a restart would lose queued events" in said
    assert "appendonly yes" in said and "SEDIMENT_ALLOW_VOLATILE_REDIS=true" in said
