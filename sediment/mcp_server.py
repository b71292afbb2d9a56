"""The MCP server (official `mcp` SDK 2.x): `sediment mcp` over stdio, and streamable
HTTP at /mcp of `sediment serve`, behind the API's token.

Both serve the same tools (sediment/mcp_tools/tools.py) over the same deps as the
HTTP API. Over HTTP the endpoint is stateless and answers in JSON: any API replica
can take any request, and no session outlives one. Over stdio in embedded mode the
process owns the store, so retains are consolidated before the call returns; in the
other modes they are published to the queue like the HTTP API's.
"""

import threading
from collections.abc import Callable
from concurrent.futures import Future
from contextlib import AbstractAsyncContextManager
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

import pydantic
import pydantic_core
import structlog
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp
from mcp.types import (
    INVALID_PARAMS,
    CallToolResult,
    InputRequiredResult,
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    Tool,
    ToolAnnotations,
    jsonrpc_message_adapter,
)
from starlette.responses import JSONResponse
from starlette.types import Message, Receive, Scope, Send

from sediment.mcp_tools.errors import NotReady, bad_fields, refused, reworded
from sediment.mcp_tools.listing import listed
from sediment.mcp_tools.tools import SedimentTools, scope_refusal

if TYPE_CHECKING:
    from sediment.api.deps import ApiDeps
    from sediment.bootstrap import Runtime
    from sediment.settings import Settings

log = structlog.get_logger("sediment.mcp")

NAME = "sediment"
INSTRUCTIONS = (
    "Sediment is long-term memory. `retain` what is worth remembering (give a `key` "
    "to a value that can change, such as where someone lives, and `occurred_at` when it "
    "did not happen just now); `recall` before answering from memory: it returns current "
    "states, and `history` shows earlier ones. `inspect` shows where a memory came from "
    "and what replaced it; `feedback` votes on a result. Banks are separate memory "
    "spaces: nothing crosses between them."
)
READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
FORGET = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=True, open_world_hint=False
)
VOTE = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)


class SedimentServer(MCPServer[Any]):
    """The SDK's server, listing each tool as an agent needs it (compact input schemas,
    no output schemas: sediment/mcp_tools/listing.py) and saying every tool error with
    one prefix (`error: `, sediment/mcp_tools/errors.py). The SDK's argument errors are
    pydantic's own text, which repeats each rejected value (`input_value=`, memory
    text included); here each bad field is named with its problem, never its value.
    Redis, the broker or the store unreachable is a tool error saying so and that the
    call may be sent again (`error: unavailable: ...`, the HTTP API's 503 message),
    where the SDK would say only "Error executing tool". A caller's API key limits what
    is listed and called: a tool outside its scopes is not listed, and a call to one
    is a tool error naming the missing scope. `hidden`: arguments not listed (`bank`,
    on a server pinned to one)."""

    def __init__(self, *args: Any, hidden: frozenset[str] = frozenset(), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._hidden = hidden

    async def list_tools(self) -> list[Tool]:
        """Only the tools the caller's API key may call."""
        tools = await super().list_tools()
        return [listed(t, self._hidden) for t in tools if scope_refusal(t.name) is None]

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        refusal = scope_refusal(name)
        if refusal is not None:
            raise refused(refusal)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            raise reworded(name, exc) from exc.__cause__


class Warming:
    """The stdio server's runtime and what its tools need from it (the store, the
    embedder, the retain path), opened on a thread of their own from the start: the
    server answers `initialize` and `tools/list` meanwhile, without importing them, and
    the first call waits. One that failed (the store held by another process, Redis
    down) is tried again by the next call; until one succeeds, each call is a tool
    error saying why (`NotReady`)."""

    def __init__(self, open_runtime: "Callable[[], Runtime]") -> None:
        self._open = open_runtime
        self._rt: Runtime | None = None
        self._ready: ApiDeps | None = None
        self._lock = threading.Lock()
        self._first: Future[ApiDeps] = Future()
        self._thread = threading.Thread(target=self._warm, name="mcp-warm-up", daemon=True)
        self._thread.start()

    def _build(self) -> "ApiDeps":
        if self._rt is None:
            self._rt = self._open()
        return self._rt.api_deps

    def _warm(self) -> None:
        try:
            with self._lock:
                self._first.set_result(self._build())
        except Exception as exc:
            log.warning("mcp_not_ready", error_class=type(exc).__name__, reason=str(exc))
            self._first.set_exception(exc)

    def __call__(self) -> "ApiDeps":
        if self._ready is not None:
            return self._ready
        try:
            deps = self._first.result()
        except Exception:
            with self._lock:
                try:
                    deps = self._build()
                except Exception as exc:
                    raise NotReady(str(exc)) from exc
        self._ready = deps
        return deps

    def close(self) -> None:
        """Wait for the first opening to end, then close what it opened."""
        self._thread.join()
        if self._rt is not None:
            self._rt.close()


def note(tools: SedimentTools) -> str:
    default = tools.default_bank
    if tools.pinned:
        return f" This server serves bank {default!r} only."
    return f" The default bank is {default!r}." if default else " Every call names its bank."


def build_server(tools: SedimentTools) -> MCPServer[Any]:
    """`forget` publishes a `ForgetEvent` the worker applies (so replicas and replays
    agree), annotated `destructive_hint=True`. `recall` waits for its `wait_for`
    events and then for a recall slot (the deps' gate, in a serve that hosts the
    worker) as POST .../recall does."""
    server: MCPServer[Any] = SedimentServer(
        NAME,
        title="Sediment",
        version=version("sediment-memory"),
        instructions=INSTRUCTIONS + note(tools),
        hidden=frozenset({"bank"}) if tools.pinned else frozenset(),
    )
    server.add_tool(tools.retain, title="Retain memories", annotations=WRITE)
    server.add_tool(tools.recall, title="Recall memories", annotations=READ)
    server.add_tool(tools.inspect, title="Inspect a memory", annotations=READ)
    server.add_tool(tools.feedback, title="Vote on a memory", annotations=VOTE)
    server.add_tool(tools.forget, title="Forget memories", annotations=FORGET)
    server.add_tool(tools.stats, title="Bank statistics", annotations=READ)
    server.add_tool(tools.banks, title="List banks", annotations=READ)
    return server


class HttpEndpoint:
    """The streamable HTTP transport as an ASGI app for the API's /mcp route. `host` is
    the interface `sediment serve` binds: on loopback the SDK's DNS-rebinding check is
    on (only localhost Host and Origin headers)."""

    def __init__(self, tools: SedimentTools, host: str) -> None:
        server = build_server(tools)
        server.streamable_http_app(stateless_http=True, json_response=True, host=host)
        self._manager = server.session_manager
        self._app = StreamableHTTPASGIApp(self._manager)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self._app(scope, receive, send)
            return
        body, replay = await buffered(receive)
        problem = envelope_problem(body)
        if problem is not None:
            refusal = JSONResponse(
                {
                    "jsonrpc": "2.0",
                    "id": None,
                    "error": {"code": INVALID_PARAMS, "message": problem},
                },
                400,
            )
            await refusal(scope, replay, send)
            return
        await self._app(scope, replay, send)

    def running(self) -> AbstractAsyncContextManager[None]:
        return self._manager.run()


async def buffered(receive: Receive) -> tuple[bytes, Receive]:
    """The request's body, and a `receive` that gives it again."""
    body = bytearray()
    while True:
        message = await receive()
        if message["type"] != "http.request":
            break
        body += message.get("body", b"")
        if not message.get("more_body", False):
            break
    delivered = False

    async def replay() -> Message:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": bytes(body), "more_body": False}
        return await receive()

    return bytes(body), replay


def envelope_problem(body: bytes) -> str | None:
    """What is wrong with a JSON-RPC message the SDK would refuse, each field named with
    its problem and never its value; None for a message it takes, and for a body that
    is not JSON (the SDK's parse error names only the position). The SDK's own message
    is pydantic's text, which repeats each rejected value (`input_value=`)."""
    try:
        raw = pydantic_core.from_json(body)
    except ValueError:
        return None
    try:
        jsonrpc_message_adapter.validate_python(raw, by_name=False)
        return None
    except pydantic.ValidationError:
        pass
    if not isinstance(raw, dict):
        return (
            "invalid JSON-RPC message: the body must be one JSON-RPC 2.0 message, a JSON "
            f"object, not {json_type(raw)}"
        )
    model: type[pydantic.BaseModel] = (
        JSONRPCRequest
        if "method" in raw and "id" in raw
        else JSONRPCNotification
        if "method" in raw
        else JSONRPCError
        if "error" in raw
        else JSONRPCResponse
    )
    try:
        model.model_validate(raw, by_name=False)
    except pydantic.ValidationError as exc:
        return "invalid JSON-RPC message: " + "; ".join(bad_fields(exc))
    return "invalid JSON-RPC message: not a request, notification or response"


def json_type(value: object) -> str:
    """JSON's name for the type of a parsed value."""
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, int | float):
        return "a number"
    return "null" if value is None else "an object"


def http_endpoint(rt: "Runtime", host: str, deps: "ApiDeps | None" = None) -> HttpEndpoint:
    """Retains go to the queue, as the HTTP API's do; `deps` are the API's (with its
    recall gate and waiters), the runtime's by default."""
    tools = SedimentTools(deps or rt.api_deps, rt.settings.mcp_bank, immediate=False)
    return HttpEndpoint(tools, host)


def stdio_tools(
    settings: "Settings",
    deps: "ApiDeps | Callable[[], ApiDeps]",
    bank: str | None,
    all_banks: bool = False,
) -> SedimentTools:
    """Through the process's one retain path: in embedded mode the process owns the
    store and no worker runs, so the bootstrap's publisher consolidates before the call
    returns; where Redis is shared, events are queued, as the HTTP API's are (a stdio
    server hosts no worker). A bank given (--bank, else SEDIMENT_MCP_BANK) pins the
    server to it unless `all_banks`: an agent handed one bank cannot name another."""
    from sediment.topology import Topology

    default = bank or settings.mcp_bank
    pinned = default is not None and not all_banks
    queued = Topology.of(settings).shared_redis
    return SedimentTools(deps, default, immediate=not queued, pinned=pinned)


def run_stdio(
    settings: "Settings",
    open_runtime: "Callable[[], Runtime]",
    bank: str | None,
    all_banks: bool = False,
) -> None:
    """Serve on stdin/stdout until the client closes them; stdout carries only
    protocol messages (logs go to stderr). The runtime is opened while the server
    starts (`Warming`) and closed when it stops."""
    warming = Warming(open_runtime)
    server = build_server(stdio_tools(settings, warming, bank, all_banks))
    try:
        server.run("stdio")
    finally:
        warming.close()
