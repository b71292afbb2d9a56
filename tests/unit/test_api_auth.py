"""Bearer token: open without one, constant-time compare with one, and an empty token
(refused by the settings, but possible in a hand-built `ApiDeps`) admits nobody."""

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from pydantic import SecretStr

from tests.unit.api_support import Api, open_api

PATH = "/v1/banks/b1/recall"
BODY = {"query": "Alice"}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from open_api(Path(tmp_path_factory.mktemp("auth")))


def with_token(api: Api, token: SecretStr | None) -> None:
    app = api.client.app
    app.state.deps = replace(app.state.deps, api_token=token)  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("token", "header", "status"),
    [
        pytest.param(None, None, 200, id="no token configured: open"),
        pytest.param("t0ken", None, 401, id="token, no header"),
        pytest.param("t0ken", "Bearer nope", 401, id="token, wrong header"),
        pytest.param("t0ken", "Bearer t0ken", 200, id="token, right header"),
        pytest.param("", None, 401, id="empty token, no header"),
        pytest.param("", "Bearer ", 401, id="empty token, empty bearer"),
    ],
)
def test_token_rules(api: Api, token: str | None, header: str | None, status: int) -> None:
    with_token(api, None if token is None else SecretStr(token))
    headers = {} if header is None else {"Authorization": header}
    r = api.client.post(PATH, json=BODY, headers=headers)
    assert r.status_code == status, r.text
    if status == 401:
        assert r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    assert api.client.get("/healthz").status_code == 200


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"{not json", id="malformed JSON"),
        pytest.param(b'{"query": 7, "limit": true}', id="invalid fields"),
        pytest.param(b"\xff\xfe{}", id="not UTF-8"),
        pytest.param(b"x" * 5000, id="over the body limit"),
    ],
)
@pytest.mark.parametrize(
    "path", [PATH, "/v1/banks/b1/memories", "/v1/banks/b1/feedback", "/v1/banks/b1/nowhere"]
)
def test_the_token_is_checked_before_the_body(api: Api, path: str, body: bytes) -> None:
    """A caller without the token learns nothing about how a route parses its body."""
    with_token(api, SecretStr("t0ken"))
    headers = {"content-type": "application/json"}
    r = api.client.post(path, content=body, headers=headers)
    assert r.status_code == 401, r.text
    assert r.json()["error"] == "unauthorized" and r.headers["www-authenticate"] == "Bearer"
    r = api.client.post(path, content=body, headers={**headers, "Authorization": "Bearer t0ken"})
    assert r.status_code != 401, r.text


def test_the_token_is_checked_before_a_streamed_body(api: Api) -> None:
    with_token(api, SecretStr("t0ken"))

    def chunks() -> Iterator[bytes]:
        yield b'{"query": '
        yield b"nonsense"

    r = api.client.post(PATH, content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 401
