"""One vocabulary for recall: every option the MCP tool, the Python client and the CLI
take is a `RecallRequest` field of the same name (what HTTP takes), with the same
default as the surfaces apply it (`surface_default`: `all` is false there, unset in
process)."""

import inspect
from typing import Any

import typer.main

from contracts.recall import RecallRequest
from sediment.cli import app
from sediment.client.aio import AsyncSedimentClient
from sediment.client.sync import SedimentClient
from sediment.mcp_tools.tools import SedimentTools
from sediment.recall_defaults import surface_default

NOT_OPTIONS = {"self", "query", "bank", "options", "as_json", "full", "url", "token"}
"""The query, the bank (a URL segment, a tool argument, a flag), extra options passed
through, the answer's form (the CLI's JSON, the client's full response), and where the
CLI sends it (a running service's URL and token)."""


def request_default(name: str) -> Any:
    """The field's default in a request as the CLI, HTTP and MCP recall it."""
    return getattr(surface_default(RecallRequest(query="q")), name)


def test_the_mcp_recall_tool_speaks_the_request_vocabulary() -> None:
    params = inspect.signature(SedimentTools.recall).parameters
    for name, p in params.items():
        if name in NOT_OPTIONS:
            continue
        assert name in RecallRequest.model_fields, name
        default = p.default if not isinstance(p.default, tuple) else list(p.default)
        assert default == request_default(name), name


def test_the_clients_speak_the_request_vocabulary() -> None:
    for client in (SedimentClient, AsyncSedimentClient):
        params = inspect.signature(client.recall).parameters
        for name in params:
            if name not in NOT_OPTIONS:
                assert name in RecallRequest.model_fields, (client.__name__, name)


def test_the_cli_recall_speaks_the_request_vocabulary() -> None:
    command = typer.main.get_command(app).commands["recall"]  # type: ignore[attr-defined]
    fields = {"tag": "tags", "kind": "kinds", "all_": "all"}
    for param in command.params:
        name = fields.get(param.name, param.name)
        if name in NOT_OPTIONS:
            continue
        assert name in RecallRequest.model_fields, param.name
        wanted = request_default(name)
        default = [] if param.default is None and wanted == [] else param.default
        assert default == wanted, param.name
