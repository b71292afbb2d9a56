"""One process per embedded store, as a user meets it: a second `sediment` command on
a data directory that `sediment serve` holds stops with one line naming the holder and
what to do instead (add --url, or, for a command without it, stop serve), not the
engine's traceback; a command that only reads refuses a data directory that is not
there."""

import os
import uuid
from pathlib import Path

import redis

from tests.e2e.cli import sediment
from tests.e2e.test_http import running
from tests.helpers import redis_url

REDIS_URL = redis_url(13)


def test_a_second_process_is_told_who_holds_the_store(tmp_path: Path) -> None:
    env = {**os.environ, "SEDIMENT_MODE": "embedded"}
    (tmp_path / "export.jsonl").write_text("")
    with running(env, tmp_path) as srv:
        for args in (
            ("recall", "--bank", "u1", "where"),
            ("inspect", "--bank", "u1", "00000000-0000-0000-0000-000000000000"),
        ):
            line = refused(tmp_path, *args)
            assert "HTTP API or MCP endpoint" in line
            assert f"add --url {srv.url} to this command (or set SEDIMENT_URL)" in line
            assert "stop it" in line
        for args in (
            ("import", str(tmp_path / "export.jsonl")),
            ("expire",),
            ("rebuild", "--all"),
            ("optimize",),
            ("dlq", "list"),
            ("dlq", "remove", "1-0"),
        ):
            line = refused(tmp_path, *args)
            assert f"`sediment {args[0]}` has no --url to go through it" in line
            assert "Stop it and run this again" in line and "--url http" not in line
    out = sediment(tmp_path, "banks", check=False)
    assert out.returncode == 0, out.stderr


def refused(tmp: Path, *args: str) -> str:
    """The one line a command refused for want of the store prints."""
    out = sediment(tmp, *args, check=False)
    assert out.returncode == 1, out
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert "Traceback" not in out.stderr and "WouldBlock" not in out.stderr
    assert "in use by `sediment serve` (pid " in lines[0]
    return lines[0]


def test_standalone_a_worker_next_to_serve_is_refused_and_producers_still_publish(
    tmp_path: Path,
) -> None:
    """Standalone as documented: one serve consumes the queue and serves recall; a
    `sediment worker` on the same local store is refused naming serve; a producer
    (`sediment retain`) publishes to the queue without touching the store."""
    db = redis.Redis.from_url(REDIS_URL)
    db.flushdb()
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_REDIS_URL": REDIS_URL,
        "SEDIMENT_QUEUE": f"sediment-owner-{uuid.uuid4().hex[:8]}",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",
    }
    mode = {k: env[k] for k in env if k.startswith("SEDIMENT_") and k != "SEDIMENT_DATA_DIR"}
    with running(env, tmp_path) as srv:
        worker = sediment(tmp_path, "worker", env=mode, check=False)
        assert worker.returncode == 1, worker
        assert "in use by `sediment serve` (pid " in worker.stderr
        assert "Traceback" not in worker.stderr
        produced = sediment(tmp_path, "retain", "Lea sails.", "--bank", "own", env=mode)
        event = produced.stdout.split()[2]
        assert produced.stdout.startswith("queued event ")
        body = srv.recall("own", "Lea", wait_for=[event], wait_timeout_s=30)
        assert [r["text"] for r in body["results"]] == ["Lea sails."]
    db.flushdb()


def test_a_stale_owner_file_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "owner.json").write_text(
        '{"pid": 999999, "command": "sediment serve", "host": "h", "since": "x"}\n'
    )
    out = sediment(tmp_path, "banks", check=False)
    assert out.returncode == 0, out.stderr


def test_reading_a_data_directory_that_is_not_there_says_where_it_looked(
    tmp_path: Path,
) -> None:
    for args in (
        ("recall", "--bank", "u1", "where"),
        ("inspect", "--bank", "u1", "00000000-0000-0000-0000-000000000000"),
        ("export", "--bank", "u1"),
    ):
        out = sediment(tmp_path, *args, check=False)
        assert out.returncode == 1, out
        assert f"no data directory at {tmp_path / 'data'}" in out.stderr
        assert "Traceback" not in out.stderr
    assert not (tmp_path / "data").exists()
