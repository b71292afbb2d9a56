"""Recall and API settings refused at start: the CLI names the variable, the value and
what the variable accepts, and exits 2 before building anything."""

import os
import subprocess
import sys
from pathlib import Path

import pydantic
import pytest

from sediment.settings import Settings
from sediment.settings_errors import accepted, problems


@pytest.mark.parametrize(
    ("env", "value", "words"),
    [
        (
            "SEDIMENT_RECALL_TEMPORAL_WEIGHT",
            "0.2oops",
            ["valid number", "'0.2oops'", "accepted: a number >= 0 and <= 1"],
        ),
        (
            "SEDIMENT_RECALL_DECAY_HALF_LIFE_DAYS",
            "-3",
            ["greater than 0", "'-3'", "accepted: a number > 0"],
        ),
        (
            "SEDIMENT_RECALL_RECENCY_BIAS",
            "sometimes",
            ["'sometimes'", "accepted: one of off, on, auto"],
        ),
        ("SEDIMENT_API_TOKEN", "", ["set but empty", "unset it"]),
        ("SEDIMENT_RECALL_RERANKER", "cross", ["accepted: one of off, minilm"]),
    ],
)
def test_cli_stops_at_start_naming_variable_and_accepted_values(
    tmp_path: Path, env: str, value: str, words: list[str]
) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "sediment.cli", "recall", "anything", "--bank", "b1"],
        env={**os.environ, env: value, "SEDIMENT_DATA_DIR": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2, run.stderr
    [line] = [x for x in run.stderr.splitlines() if x.strip()]
    assert line.startswith(f"invalid setting {env}: ")
    for w in words:
        assert w in line, line


@pytest.mark.parametrize(
    ("field", "words"),
    [
        ("recall_temporal_weight", "a number >= 0 and <= 1"),
        ("recall_decay_half_life_days", "a number > 0"),
        ("recall_recency_bias", "one of off, on, auto"),
        ("recall_expansion_max_queries", "an integer >= 1 and <= 16"),
        ("recall_query_expansion", "true or false"),
        ("api_token", "a non-empty secret"),
        ("qdrant_url", "text"),
    ],
)
def test_accepted_values_follow_the_declared_type(field: str, words: str) -> None:
    assert accepted(field) == words


@pytest.mark.parametrize("token", ["", "   "])
def test_empty_api_token_is_refused(monkeypatch: pytest.MonkeyPatch, token: str) -> None:
    monkeypatch.setenv("SEDIMENT_API_TOKEN", token)
    with pytest.raises(pydantic.ValidationError) as caught:
        Settings()
    [line] = problems(caught.value)
    assert line.startswith("SEDIMENT_API_TOKEN: SEDIMENT_API_TOKEN is set but empty")


def test_unset_token_and_real_token_are_accepted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("SEDIMENT_API_TOKEN", raising=False)
    assert Settings().api_token is None
    monkeypatch.setenv("SEDIMENT_API_TOKEN", "t0ken")
    token = Settings().api_token
    assert token is not None and token.get_secret_value() == "t0ken"
