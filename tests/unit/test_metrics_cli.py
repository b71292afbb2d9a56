"""`sediment stats` as a user runs it, in embedded mode."""

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from sediment.cli import app


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SEDIMENT_MODE", "embedded")
    monkeypatch.setenv("SEDIMENT_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SEDIMENT_EMBEDDER", "hash")
    monkeypatch.setenv("SEDIMENT_LOG_LEVEL", "WARNING")
    # structlog caches loggers on first use: configured here, they would keep writing
    # to CliRunner's stream after it is closed, in later tests.
    monkeypatch.setattr("sediment.startup.configure", lambda fmt, level: None)
    return tmp_path


def test_stats_json_and_table(env: Path) -> None:
    runner = CliRunner()
    stored = runner.invoke(app, ["retain", "Ana lives in Porto.", "--bank", "b1"])
    assert stored.exit_code == 0, stored.output
    result = runner.invoke(app, ["stats", "--json", "--counts", "--minutes", "5"])
    assert result.exit_code == 0, result.output
    body = json.loads(result.stdout)
    assert body["minutes"] == 5 and body["bank"] is None
    assert {g["name"] for g in body["gauges"]} == {"dead_letters", "memories", "observations"}
    table = runner.invoke(app, ["stats", "--bank", "b1"])
    assert table.exit_code == 0, table.output
    assert "last 15 min, bank b1" in table.stdout and "events received" in table.stdout


def test_stats_with_counts_refuses_a_data_directory_that_does_not_exist(env: Path) -> None:
    result = CliRunner().invoke(app, ["stats", "--counts"])
    assert result.exit_code != 0
    assert "no data directory" in str(result.exception or result.output)


def test_stats_says_when_metrics_are_off(env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMENT_METRICS_ENABLED", "false")
    result = CliRunner().invoke(app, ["stats"])
    assert result.exit_code == 1
    assert "SEDIMENT_METRICS_ENABLED=false" in result.output
