"""A Qdrant server that does not answer, or answers that it is failing, is 503 with
`Retry-After` naming the store, never a 500; an error that is the request's (a 4xx
other than 408/429: our bug) stays 500. The app's store is qdrant-client pointed at a
closed port, or at a small HTTP server answering every request with one status."""

import socket
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import cast

import pytest
from fastapi.testclient import TestClient

from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.recaller import Recaller
from readmodel.store import MemoryStore, Rebuilding
from readmodel.stores.qdrant import QdrantStore
from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.problems import RETRY_AFTER_S
from sediment.bootstrap import Runtime
from telemetry.recall_logs import RecallLog
from tests.helpers import mid
from tests.unit.api_support import BOSTON, RecordingPublisher, seeded_runtime
from worker.rebuild import InterruptedRebuildError

pytestmark = pytest.mark.filterwarnings("ignore:Failed to obtain server version")
SECRET = "Alice lives in Boston."
ROUTES = [
    ("POST", "/v1/banks/b1/recall", {"query": "Where does Alice live?"}),
    ("GET", f"/v1/banks/b1/memories/{mid(BOSTON)}", None),
    ("POST", "/v1/banks/b1/feedback", {"memory_id": str(mid(BOSTON)), "vote": "up"}),
    ("GET", "/v1/banks/b1/status", None),
]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class StatusServer(ThreadingHTTPServer):
    """Answers every request with `status` and a body shaped like Qdrant's errors."""

    status = 503


class Answering(BaseHTTPRequestHandler):
    server: StatusServer

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        status = self.server.status
        body = b'{"status": {"error": "failing"}, "time": 0.0}'
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = do_PUT = do_DELETE = _answer

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def runtime(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    rt = seeded_runtime(tmp_path_factory.mktemp("store-down"))
    yield rt
    rt.close()


def client_over(rt: Runtime, url: str) -> TestClient:
    store = QdrantStore(url=url)
    pipeline = RecallPipeline(store, rt.embedder, rt.settings.recall_config(), None)
    log: RecallLog = rt.recall_log
    deps = ApiDeps(
        service=Recaller(pipeline, store, log, rt.settings.recall_slow_ms),
        store=store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
    )
    return TestClient(create_app(deps), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def closed(runtime: Runtime) -> Iterator[TestClient]:
    with client_over(runtime, f"http://127.0.0.1:{free_port()}") as c:
        yield c


@pytest.fixture(scope="module")
def answering(runtime: Runtime) -> Iterator[tuple[StatusServer, TestClient]]:
    server = StatusServer(("127.0.0.1", 0), Answering)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    with client_over(runtime, f"http://127.0.0.1:{server.server_address[1]}") as c:
        yield server, c
    server.shutdown()
    server.server_close()


def assert_unavailable(client: TestClient, method: str, path: str, body: object) -> None:
    r = client.request(method, path, json=body)
    assert r.status_code == 503, r.text
    assert r.headers["retry-after"] == str(RETRY_AFTER_S)
    answer = r.json()
    assert answer["error"] == "unavailable"
    assert "the store (Qdrant) is unavailable" in answer["message"] and "retry" in answer["message"]
    assert SECRET not in r.text


@pytest.mark.parametrize(("method", "path", "body"), ROUTES)
def test_a_closed_port_is_503_naming_the_store(
    closed: TestClient, method: str, path: str, body: object
) -> None:
    assert_unavailable(closed, method, path, body)


@pytest.mark.parametrize("status", [500, 502, 503, 429])
def test_a_failing_or_overloaded_server_is_503(
    answering: tuple[StatusServer, TestClient], status: int
) -> None:
    server, client = answering
    server.status = status
    assert_unavailable(client, "POST", "/v1/banks/b1/recall", {"query": "Alice"})


def test_a_request_the_server_refuses_as_bad_stays_500(
    answering: tuple[StatusServer, TestClient],
) -> None:
    """A 400 from Qdrant means we sent something wrong: retrying would not help."""
    server, client = answering
    server.status = 400
    r = client.post("/v1/banks/b1/recall", json={"query": "Alice"})
    assert r.status_code == 500 and "retry-after" not in r.headers


class CutShortStore:
    """A store opened on a rebuild cut short: every call refuses (`Runtime.store`)."""

    def __getattr__(self, name: str) -> Callable[..., object]:
        def refuse(*_: object, **__: object) -> object:
            raise InterruptedRebuildError("./data", Rebuilding(("b1",)))

        return refuse


def test_a_rebuild_cut_short_is_503_naming_the_command_that_finishes_it(
    runtime: Runtime,
) -> None:
    store = cast(MemoryStore, CutShortStore())
    pipeline = RecallPipeline(store, runtime.embedder, runtime.settings.recall_config(), None)
    deps = ApiDeps(
        service=Recaller(pipeline, store, runtime.recall_log, runtime.settings.recall_slow_ms),
        store=store,
        publisher=RecordingPublisher(),
        max_text_bytes=runtime.settings.max_text_bytes,
        max_body_bytes=runtime.settings.api_max_body_bytes,
    )
    with TestClient(create_app(deps), raise_server_exceptions=False) as client:
        r = client.post("/v1/banks/b1/recall", json={"query": "Where does Alice live?"})
    assert r.status_code == 503, r.text
    assert "run `sediment rebuild --bank b1` to finish it" in r.json()["message"]
