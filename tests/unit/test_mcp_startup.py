"""`sediment mcp` answers its client's `initialize` before it loads the store, the
embedder or the recall pipeline: the server module and the command line import none
of them (they are imported by the runtime, opened on a thread while the server
starts, sediment/mcp_server.py `Warming`). Checked in a fresh interpreter, by what
importing leaves in `sys.modules`; how long `initialize` takes is measured by
bench/mcp_payloads.py, not here."""

import json
import subprocess
import sys

import pytest

HEAVY = (
    "readmodel.embedders",
    "readmodel.stores",
    "readmodel.recall.pipeline",
    "readmodel.recall.recaller",
    "qdrant_edge",
    "qdrant_client",
    "tokenizers",
    "safetensors",
    "sediment.bootstrap",
)
"""The embedder and store packages, the recall pipeline and the composition root that
builds them."""
SERVICES = ("redis", "fakeredis", "fastapi", "opentelemetry.sdk", "sediment.api.deps")
"""What the command line needs only once a command opens its runtime or a client (the
MCP SDK imports the OpenTelemetry API itself; the SDK is tracing's, when it is on)."""


def imported_by(module: str) -> list[str]:
    code = f"import json, sys, {module}; print(json.dumps(sorted(sys.modules)))"
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    return list(json.loads(run.stdout))


def loaded(modules: list[str], packages: tuple[str, ...]) -> list[str]:
    return [m for m in modules if m in packages or m.startswith(tuple(p + "." for p in packages))]


@pytest.mark.parametrize("module", ["sediment.mcp_server", "sediment.mcp_tools.tools"])
def test_the_mcp_server_imports_no_store_embedder_or_pipeline(module: str) -> None:
    modules = imported_by(module)
    assert "mcp.server.mcpserver" in modules
    assert loaded(modules, HEAVY + SERVICES) == []


def test_the_command_line_imports_them_only_when_a_command_runs() -> None:
    modules = imported_by("sediment.cli")
    assert "sediment.memory_commands" in modules
    assert loaded(modules, HEAVY + SERVICES) == []
