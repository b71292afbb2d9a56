"""Redis unreachable is a tool error saying what is unavailable and that the call may
be sent again, as the HTTP API's 503 says it, never the SDK's bare "Error executing
tool": the tools' metrics and recall logs are on a Redis at a closed port, and the
publisher refuses like a dead broker. The store is down as Qdrant at a closed port."""

import asyncio
import socket
from collections.abc import Iterator
from typing import Any

import pytest
import redis
from mcp import Client

from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.recaller import Recaller
from readmodel.stores.qdrant import QdrantStore
from sediment.api.deps import ApiDeps
from sediment.bootstrap import Runtime
from sediment.mcp_server import build_server
from sediment.mcp_tools.tools import SedimentTools
from telemetry.recall_logs import RedisRecallLog
from telemetry.redis_series import RedisMetrics
from tests.helpers import mid
from tests.unit.api_support import BOSTON, RecordingPublisher, seeded_runtime

pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version")
CLOSED_PORT = "redis://127.0.0.1:1/0"
ITEM = {"text": "Dana moved to Porto.", "occurred_at": "2024-05-01T09:00:00Z"}
CALLS = [
    ("stats", {}),
    ("retain", {"items": [ITEM]}),
    ("feedback", {"memory_id": str(mid(BOSTON)), "vote": "up"}),
    ("forget", {"tags": ["x"]}),
]


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    rt = seeded_runtime(tmp_path_factory.mktemp("mcp-down"))
    yield rt
    rt.close()


@pytest.fixture(scope="module")
def redis_down(runtime: Runtime) -> SedimentTools:
    down = redis.Redis.from_url(CLOSED_PORT, socket_connect_timeout=1, socket_timeout=1)
    log = RedisRecallLog(down, 100, 100, 60)
    deps = ApiDeps(
        service=Recaller(runtime.recall_pipeline, runtime.store, log, 1000),
        store=runtime.store,
        publisher=RecordingPublisher(failing=True),
        max_text_bytes=runtime.settings.max_text_bytes,
        max_body_bytes=runtime.settings.api_max_body_bytes,
        metrics=RedisMetrics(down, 3600),
        recall_log=log,
    )
    return SedimentTools(deps, "b1", immediate=False)


@pytest.fixture(scope="module")
def store_down(runtime: Runtime) -> SedimentTools:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    store = QdrantStore(url=f"http://127.0.0.1:{port}")
    pipeline = RecallPipeline(store, runtime.embedder, runtime.settings.recall_config(), None)
    deps = ApiDeps(
        service=Recaller(pipeline, store, runtime.recall_log, 1000),
        store=store,
        publisher=RecordingPublisher(),
        max_text_bytes=runtime.settings.max_text_bytes,
        max_body_bytes=runtime.settings.api_max_body_bytes,
    )
    return SedimentTools(deps, "b1", immediate=False)


def call(tools: SedimentTools, name: str, arguments: dict[str, Any]) -> Any:
    async def run() -> Any:
        async with Client(build_server(tools)) as client:
            return await client.call_tool(name, arguments)

    return asyncio.run(run())


@pytest.mark.parametrize(("name", "arguments"), CALLS)
def test_a_tool_that_needs_redis_says_it_is_unavailable(
    redis_down: SedimentTools, name: str, arguments: dict[str, Any]
) -> None:
    result = call(redis_down, name, arguments)
    assert result.is_error
    [content] = result.content
    assert content.text.startswith("error: unavailable: "), content.text
    assert "Redis is unreachable" in content.text or "the broker did not take" in content.text
    assert "retry" in content.text and "Porto" not in content.text


@pytest.mark.parametrize(
    ("name", "arguments"),
    [("recall", {"query": "Alice"}), ("inspect", {"memory_id": str(mid(BOSTON))}), ("banks", {})],
)
def test_a_tool_whose_store_is_down_says_it_is_unavailable(
    store_down: SedimentTools, name: str, arguments: dict[str, Any]
) -> None:
    result = call(store_down, name, arguments)
    assert result.is_error
    text = result.content[0].text
    assert text.startswith("error: unavailable: the store (Qdrant) is unavailable"), text
    assert "retry" in text
