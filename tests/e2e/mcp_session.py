"""The SDK's own MCP client, held open for a test module: its session lives in one task
of an event loop on a background thread, and tests call tools synchronously."""

import asyncio
import os
import re
import sys
import threading
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, NamedTuple, TypeVar

import httpx2
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.types import CallToolResult, Tool

T = TypeVar("T")
CALL_TIMEOUT_S = 120.0


def stdio(tmp: Path, *args: str, env: dict[str, str] | None = None) -> Client:
    """`sediment mcp` in embedded mode with its store under `tmp`, spawned by the SDK."""
    full_env = {
        **os.environ,
        "SEDIMENT_DATA_DIR": str(tmp / "data"),
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_LOG_FORMAT": "json",
        **(env or {}),
    }
    command = [sys.executable, "-m", "sediment.cli", "mcp", *args]
    return Client(
        StdioServerParameters(command=command[0], args=command[1:], env=full_env, cwd=tmp)
    )


@asynccontextmanager
async def http(url: str, token: str | None) -> AsyncIterator[Client]:
    """The streamable HTTP transport, with the bearer token on every request."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        Client(streamable_http_client(url, http_client=client)) as session,
    ):
        yield session


class McpSession:
    def __init__(self, connect: Callable[[], AbstractAsyncContextManager[Client]]) -> None:
        self._connect = connect
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True)
        self._stop: asyncio.Event | None = None
        self._client: Client | None = None
        self._session: asyncio.Future[None] | None = None

    def __enter__(self) -> "McpSession":
        self._thread.start()
        ready = threading.Event()
        self._session = asyncio.run_coroutine_threadsafe(self._hold(ready), self._loop)
        if not ready.wait(CALL_TIMEOUT_S):
            raise TimeoutError("the MCP session did not open")
        if self._session.done():
            try:
                self._session.result()
            finally:
                self._stop_loop()
        return self

    async def _hold(self, ready: threading.Event) -> None:
        self._stop = asyncio.Event()
        try:
            async with self._connect() as client:
                self._client = client
                ready.set()
                await self._stop.wait()
        finally:
            ready.set()

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._stop is not None:
            self._loop.call_soon_threadsafe(self._stop.set)
        try:
            if self._session is not None:
                self._session.result(CALL_TIMEOUT_S)
        finally:
            self._stop_loop()

    def _stop_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CALL_TIMEOUT_S)
        self._loop.close()

    def _run(self, make: Callable[[Client], Coroutine[Any, Any, T]]) -> T:
        assert self._client is not None, "the session is not open"
        future = asyncio.run_coroutine_threadsafe(make(self._client), self._loop)
        return future.result(CALL_TIMEOUT_S)

    def tools(self) -> list[Tool]:
        return self._run(lambda c: c.list_tools()).tools

    def call(self, name: str, **arguments: object) -> CallToolResult:
        result = self._run(lambda c: c.call_tool(name, arguments))
        assert isinstance(result, CallToolResult)
        return result

    def ok(self, name: str, **arguments: object) -> dict[str, Any]:
        """A call that must succeed: its structured content."""
        result = self.call(name, **arguments)
        assert not result.is_error, error_text(result)
        assert result.structured_content is not None
        return result.structured_content

    def error(self, name: str, **arguments: object) -> str:
        """A call that must be refused as a tool error: its message."""
        result = self.call(name, **arguments)
        assert result.is_error, result.structured_content
        return error_text(result)


def error_text(result: CallToolResult) -> str:
    return " ".join(getattr(block, "text", "") for block in result.content)


ROW = re.compile(r"^([0-9a-f]{6}) (\d{4}-\d{2}-\d{2}) (-?\d*\.\d{2}) (exp: )?(.*)$")


class Row(NamedTuple):
    """One result of recall's text answer (sediment/api/compact.py, `line`)."""

    id: str
    date: str
    score: float
    kind: str
    text: str


def rows(result: CallToolResult) -> list[Row]:
    """The results a recall's text answer lists, in order; its notes are not rows."""
    found = []
    for line in answer_text(result).splitlines():
        m = ROW.match(line)
        if m:
            kind = "experience" if m[4] else "world"
            found.append(Row(m[1], m[2], float(m[3]), kind, m[5]))
    return found


def notes(result: CallToolResult) -> list[str]:
    """The lines of a recall's text answer that are not results."""
    return [line for line in answer_text(result).splitlines() if not ROW.match(line)]


def answer_text(result: CallToolResult) -> str:
    return "\n".join(getattr(block, "text", "") for block in result.content)
