"""The memory browser's routes: the banks a caller may read (a key sees only the banks
it opens; no `read` scope, 403), and a memory's reading (the `sediment inspect` lines),
bank-scoped like every `/v1/banks/...` route. The page itself holds no data."""

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from sediment.api.app import create_app
from sediment.api.deps import ApiDeps
from sediment.api.keys import ApiKey, digest
from sediment.bootstrap import Runtime
from sediment.render import reading_lines
from tests.unit.api_support import BOSTON, LISBON, RecordingPublisher, mid, seeded_runtime

KEYS = (
    ApiKey(name="reader", sha256=digest("r-secret"), banks=("b1",), scopes=("read",)),
    ApiKey(name="writer", sha256=digest("w-secret"), banks=("*",), scopes=("write",)),
)
ADMIN = {"Authorization": "Bearer admin-token"}
READER = {"Authorization": "Bearer r-secret"}
WRITER = {"Authorization": "Bearer w-secret"}


@pytest.fixture
def runtime(tmp_path: Path) -> Iterator[Runtime]:
    rt = seeded_runtime(tmp_path)
    yield rt
    rt.close()


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    rt = runtime
    deps = ApiDeps(
        service=rt.recaller,
        store=rt.store,
        publisher=RecordingPublisher(),
        max_text_bytes=rt.settings.max_text_bytes,
        max_body_bytes=rt.settings.api_max_body_bytes,
        api_token=SecretStr("admin-token"),
        api_keys=KEYS,
    )
    with TestClient(create_app(deps)) as c:
        yield c


def test_banks_are_those_the_caller_may_read(client: TestClient) -> None:
    assert client.get("/v1/browse/banks").status_code == 401
    assert client.get("/v1/browse/banks", headers=ADMIN).json() == {"banks": ["b1", "b2"]}
    assert client.get("/v1/browse/banks", headers=READER).json() == {"banks": ["b1"]}
    refused = client.get("/v1/browse/banks", headers=WRITER)
    assert refused.status_code == 403 and "lacks the 'read' scope" in refused.json()["message"]


def test_a_memorys_reading_is_inspects_within_its_bank(
    client: TestClient, runtime: Runtime
) -> None:
    boston = mid(BOSTON)
    r = client.get(f"/v1/banks/b1/memories/{boston}/reading", headers=READER)
    assert r.status_code == 200, r.text
    record = runtime.store.fetch("b1", [boston])[0].record
    assert r.json() == {"id": str(boston), "lines": reading_lines(record)}
    assert r.json()["lines"][0].startswith("read as: ")
    short = str(boston)[:6]
    assert client.get(f"/v1/banks/b1/memories/{short}/reading", headers=READER).status_code == 200
    assert client.get(f"/v1/banks/b1/memories/{boston}/reading").status_code == 401
    other = client.get(f"/v1/banks/b2/memories/{mid(LISBON)}/reading", headers=READER)
    assert other.status_code == 403
    assert client.get(f"/v1/banks/b2/memories/{boston}/reading", headers=ADMIN).status_code == 404


def test_the_page_and_its_assets_hold_no_data_and_need_no_token(client: TestClient) -> None:
    page = client.get("/browse")
    assert page.status_code == 200 and 'src="browse/assets/browser.js"' in page.text
    assert "frame-ancestors 'none'" in page.headers["content-security-policy"]
    for asset in ("browser.js", "browser.css", "dashboard.css"):
        assert client.get(f"/browse/assets/{asset}").status_code == 200, asset
