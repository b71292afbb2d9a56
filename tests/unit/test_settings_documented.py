"""Every setting is in the settings page's table, and invalid values fail at start."""

from pathlib import Path

import pydantic
import pytest

from sediment.settings import Settings

SETTINGS_PAGE = Path(__file__).resolve().parents[2] / "docs" / "settings.md"


def test_every_setting_is_documented() -> None:
    rows = [
        line.split("|")[1].strip()
        for line in SETTINGS_PAGE.read_text(encoding="utf-8").splitlines()
        if line.startswith("| `SEDIMENT_")
    ]
    assert sorted(rows) == sorted(f"`SEDIMENT_{n.upper()}`" for n in Settings.model_fields)


@pytest.mark.parametrize(
    ("env", "value"),
    [
        ("SEDIMENT_MODE", "cluster"),
        ("SEDIMENT_MERGE_THRESHOLD", "0.2oops"),
        ("SEDIMENT_EMBEDDER", "bert"),
        ("SEDIMENT_RETRY_MAX", "-1"),
        ("SEDIMENT_MCP_BANK", "no spaces"),
        ("SEDIMENT_MCP_BANK", ""),
        ("SEDIMENT_MCP_BANK", ".."),
        ("SEDIMENT_DLQ_MAX_PAYLOAD_BYTES", "100"),
        ("SEDIMENT_DLQ_MAX_PAYLOAD_BYTES", "lots"),
    ],
)
def test_invalid_values_fail(monkeypatch: pytest.MonkeyPatch, env: str, value: str) -> None:
    monkeypatch.setenv(env, value)
    with pytest.raises(pydantic.ValidationError):
        Settings()


def test_limits_must_nest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEDIMENT_TASK_TIME_LIMIT_S", "400")
    with pytest.raises(pydantic.ValidationError, match="VISIBILITY_TIMEOUT"):
        Settings()


def test_mcp_bank_is_read(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().mcp_bank is None
    monkeypatch.setenv("SEDIMENT_MCP_BANK", "team.notes")
    assert Settings().mcp_bank == "team.notes"


def test_dead_letter_payload_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    assert Settings().dlq_max_payload_bytes == 64 * 1024
    monkeypatch.setenv("SEDIMENT_DLQ_MAX_PAYLOAD_BYTES", "8192")
    assert Settings().dlq_max_payload_bytes == 8192
