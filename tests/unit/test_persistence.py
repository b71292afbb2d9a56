"""Redis persistence at start: AOF or refuse (unless waived); unknown is a warning."""

import pytest
import redis

from sediment.persistence import redacted, refusal

URL = "redis://:hunter2@cache.internal:6379/0"


class FakeConfig:
    """Answers CONFIG GET like a Redis server, or refuses it like a managed one."""

    def __init__(self, appendonly: str | None, save: str = "") -> None:
        self.values = {"appendonly": appendonly, "save": save}

    def config_get(self, name: str) -> dict[str, str]:
        value = self.values[name]
        if value is None:
            raise redis.exceptions.ResponseError("NOPERM this user has no permissions")
        return {name: value}


def check(client: FakeConfig, allow: bool = False) -> str | None:
    return refusal(client, URL, allow)  # type: ignore[arg-type]


def test_aof_is_enough() -> None:
    assert check(FakeConfig("yes")) is None


@pytest.mark.parametrize(
    ("save", "says"), [("", "no persistence at all"), ("3600 1", "since the last one")]
)
def test_without_aof_it_refuses_saying_why_and_how(save: str, says: str) -> None:
    problem = check(FakeConfig("no", save))
    assert problem is not None
    assert says in problem and "a restart would lose queued events" in problem
    assert "appendonly yes" in problem and "SEDIMENT_ALLOW_VOLATILE_REDIS=true" in problem
    assert "hunter2" not in problem and "cache.internal" in problem


def test_the_flag_waives_it() -> None:
    assert check(FakeConfig("no"), allow=True) is None


def test_a_redis_that_refuses_config_is_a_warning_not_a_refusal() -> None:
    assert check(FakeConfig(None)) is None


def test_passwords_never_reach_a_message() -> None:
    assert redacted(URL) == "redis://:***@cache.internal:6379/0"
    assert redacted("redis://u:p@h/1") == "redis://u:***@h/1"
    assert redacted("redis://h:6379/0") == "redis://h:6379/0"
