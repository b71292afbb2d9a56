"""`sediment serve` hosting: workers only where the store is local; the lifespan stops
them and closes the store. (Consuming in-process is checked end to end in
tests/e2e/test_http.py, in embedded and standalone mode.)"""

import uuid
from pathlib import Path

from fastapi.testclient import TestClient

from sediment.api.app import create_app
from sediment.bootstrap import bootstrap
from sediment.serve import hosted_beside_api
from sediment.settings import Settings


def test_lifespan_starts_and_stops_the_worker_then_closes(tmp_path: Path) -> None:
    queue = f"serve-{uuid.uuid4().hex[:8]}"
    rt = bootstrap(Settings(mode="embedded", data_dir=tmp_path, embedder="hash", queue=queue))
    hosted = hosted_beside_api(rt)
    assert hosted.worker is not None
    with TestClient(create_app(rt.api_deps, lifespan=hosted.lifespan)) as client:
        assert client.get("/healthz").json() == {"store": "ok", "redis": "ok", "broker": "ok"}
        assert hosted.worker.running
    assert not hosted.worker.running
    assert rt._closed


def test_distributed_serve_runs_the_api_alone() -> None:
    rt = bootstrap(Settings(mode="distributed", qdrant_url="http://127.0.0.1:9"))
    assert hosted_beside_api(rt).worker is None
    assert "store" not in rt.__dict__ and "worker_deps" not in rt.__dict__
