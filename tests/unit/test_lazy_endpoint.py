"""`LazyEndpoint`: /mcp is built on its first request, started in the app's lifespan
task group and stopped with it; `sediment serve` imports no MCP SDK before that."""

import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from starlette.responses import JSONResponse
from starlette.types import Receive, Scope, Send

from sediment.api.app import Endpoint, LazyEndpoint, create_app
from sediment.api.deps import ApiDeps
from tests.unit.api_support import Api, open_api

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    yield from open_api(Path(tmp_path_factory.mktemp("lazy")))


def deps_of(api: Api) -> ApiDeps:
    deps: ApiDeps = api.client.app.state.deps  # type: ignore[attr-defined]
    return deps


class Recording:
    """An endpoint that answers 200 and records its life."""

    def __init__(self, log: list[str]) -> None:
        self.log = log

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        self.log.append("call")
        await JSONResponse({"ok": True})(scope, receive, send)

    @asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        self.log.append("start")
        try:
            yield
        finally:
            self.log.append("stop")


def test_built_on_the_first_request_and_stopped_with_the_app(api: Api) -> None:
    log: list[str] = []

    def build() -> Endpoint:
        log.append("build")
        return Recording(log)

    lazy = LazyEndpoint(build)
    with TestClient(create_app(deps_of(api), mcp=lazy)) as client:
        assert client.get("/healthz").status_code == 200
        assert log == [] and not lazy.built
        assert client.post("/mcp", json={}).status_code == 200
        assert client.post("/mcp", json={}).status_code == 200
        assert log == ["build", "start", "call", "call"] and lazy.built
    assert log[-1] == "stop" and not lazy.built


def test_never_asked_never_built(api: Api) -> None:
    log: list[str] = []
    with TestClient(create_app(deps_of(api), mcp=LazyEndpoint(lambda: Recording(log)))):
        pass
    assert log == []


def test_a_failed_build_answers_an_error_and_is_tried_again(api: Api) -> None:
    log: list[str] = []
    attempts: list[int] = []

    def build() -> Endpoint:
        attempts.append(1)
        if len(attempts) == 1:
            raise RuntimeError("no SDK")
        return Recording(log)

    app = create_app(deps_of(api), mcp=LazyEndpoint(build))
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/mcp", json={}).status_code == 500
        assert client.post("/mcp", json={}).status_code == 200
    assert log == ["start", "call", "stop"]


def test_a_failed_start_answers_an_error_and_leaves_the_api_up(api: Api) -> None:
    class Broken(Recording):
        @asynccontextmanager
        async def running(self) -> AsyncIterator[None]:
            raise RuntimeError("cannot start")
            yield

    app = create_app(deps_of(api), mcp=LazyEndpoint(lambda: Broken([])))
    with TestClient(app, raise_server_exceptions=False) as client:
        assert client.post("/mcp", json={}).status_code == 500
        assert client.get("/healthz").status_code == 200


def test_serve_imports_no_mcp_sdk() -> None:
    code = (
        "import sys, sediment.serve; print(sorted(m for m in sys.modules"
        " if m == 'mcp' or m.startswith(('mcp.', 'sediment.mcp'))))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "[]"
