"""One process per embedded store, as a user meets it: a second `sediment` command on
a data directory that `sediment serve` holds stops with one line naming the holder and
what to do instead, not the engine's traceback; a command that only reads refuses a
data directory that is not there."""

import os
from pathlib import Path

from tests.e2e.cli import sediment
from tests.e2e.test_http import running


def test_a_second_process_is_told_who_holds_the_store(tmp_path: Path) -> None:
    env = {**os.environ, "SEDIMENT_MODE": "embedded"}
    (tmp_path / "export.jsonl").write_text("")
    with running(env, tmp_path):
        for args in (
            ("recall", "--bank", "u1", "where"),
            ("inspect", "--bank", "u1", "00000000-0000-0000-0000-000000000000"),
            ("import", str(tmp_path / "export.jsonl")),
        ):
            out = sediment(tmp_path, *args, check=False)
            assert out.returncode == 1, out
            lines = out.stderr.strip().splitlines()
            assert len(lines) == 1, out.stderr
            assert "Traceback" not in out.stderr and "WouldBlock" not in out.stderr
            assert "in use by `sediment serve` (pid " in lines[0]
            assert "HTTP API or MCP endpoint" in lines[0]
            assert "stop it" in lines[0]
    out = sediment(tmp_path, "recall", "--bank", "u1", "where", check=False)
    assert out.returncode == 0, out.stderr


def test_a_stale_owner_file_does_not_block(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "owner.json").write_text(
        '{"pid": 999999, "command": "sediment serve", "host": "h", "since": "x"}\n'
    )
    out = sediment(tmp_path, "recall", "--bank", "u1", "where", check=False)
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
