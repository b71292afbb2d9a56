"""`sediment mcp --url`: the MCP tools over stdio, answered by a running serve's /mcp.

A desktop agent starts `sediment mcp` as a subprocess and speaks JSON-RPC on its
stdin and stdout. While `sediment serve` holds an embedded store that process cannot
open it; with --url it relays each message to the server's MCP endpoint instead
(stateless, answering in JSON: one POST per message, no session to keep), so the
agent gets the server's tools, with its key's banks and scopes. A notification is
answered with nothing, as over stdio; a request the server cannot be reached for is
answered with a JSON-RPC error naming the URL, and the bridge carries on.
"""

import json
import sys
from collections.abc import Iterable
from typing import IO, Any, Final

import httpx

UNREACHABLE: Final = -32000
ACCEPT: Final = "application/json, text/event-stream"


def _error(message_id: Any, message: str) -> str:
    body = {"jsonrpc": "2.0", "id": message_id, "error": {"code": UNREACHABLE, "message": message}}
    return json.dumps(body)


def relay(line: str, client: httpx.Client, endpoint: str) -> str | None:
    """The answer to one JSON-RPC line, as one line; None for a notification."""
    try:
        message = json.loads(line)
    except ValueError:
        return _error(None, "not a JSON-RPC message: a line must be one JSON object")
    message_id = message.get("id") if isinstance(message, dict) else None
    try:
        response = client.post(endpoint, content=line.encode("utf-8"))
    except httpx.TransportError as exc:
        if message_id is None:
            return None
        return _error(message_id, f"no answer from {endpoint}: {type(exc).__name__}: {exc}")
    text = response.text.strip()
    if response.status_code == 202 or not text:
        return None
    if not response.is_success and not text.startswith("{"):
        return _error(message_id, f"{endpoint} answered {response.status_code}: {text[:200]}")
    if text.startswith("{"):
        return json.dumps(json.loads(text))
    return None if message_id is None else _error(message_id, f"{endpoint}: unreadable answer")


def run_bridge(
    url: str, token: str | None, lines: Iterable[str] = sys.stdin, out: IO[str] = sys.stdout
) -> None:
    headers = {"Content-Type": "application/json", "Accept": ACCEPT}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    endpoint = url.rstrip("/") + "/mcp"
    with httpx.Client(headers=headers, timeout=120) as client:
        for line in lines:
            if not line.strip():
                continue
            answer = relay(line, client, endpoint)
            if answer is not None:
                out.write(answer + "\n")
                out.flush()
