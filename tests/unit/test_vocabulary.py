"""One vocabulary for recall: every option the MCP tool, the Python client and the CLI
take is a `RecallRequest` field of the same name (what HTTP takes), with the same
default."""

import inspect
from typing import Any

import typer.main

from contracts.recall import RecallRequest
from sediment.cli import app
from sediment.client.aio import AsyncSedimentClient
from sediment.client.sync import SedimentClient
from sediment.mcp_tools.tools import SedimentTools

NOT_OPTIONS = {"self", "query", "bank", "options", "as_json", "full", "url", "token"}
"""The query, the bank (a URL segment, a tool argument, a flag), extra options passed
through, the answer's form (the CLI's JSON, the client's full response), and where the
CLI sends it (a running service's URL and token)."""


def request_default(name: str) -> Any:
    field = RecallRequest.model_fields[name]
    return field.get_default(call_default_factory=True)


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
    plural = {"tag": "tags", "kind": "kinds"}
    for param in command.params:
        name = plural.get(param.name, param.name)
        if name in NOT_OPTIONS:
            continue
        assert name in RecallRequest.model_fields, param.name
        wanted = request_default(name)
        default = [] if param.default is None and wanted == [] else param.default
        assert default == wanted, param.name
