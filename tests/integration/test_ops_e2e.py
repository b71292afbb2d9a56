"""Done when: Redis-backed `sediment serve` (standalone: the API and in-process workers
consuming from real Redis) as a real process, retain and recall traffic over HTTP,
and the same counts and latency buckets read back from the Redis keys under
`sediment:metrics:`, from /v1/stats, from /metrics and from the dashboard drawn by
headless Chromium. Also: its log holds ids and never memory or query text, and
`sediment ping` and the worker's gauge sampler against a real `celery worker`.

Nothing here waits a fixed time: every wait polls for the state it needs, and
metrics are compared once the traffic is over and every write has landed."""

import json
import os
import subprocess
import sys
import uuid
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import redis
from celery import Celery
from prometheus_client.parser import text_string_to_metric_families

from telemetry.redis_series import PREFIX
from tests.e2e.chromium import chromium, require_chromium
from tests.e2e.test_http import AUTH, TOKEN, Server, eventually, running
from tests.helpers import redis_url
from tests.integration.conftest import WorkerEnv, wait_until

pytestmark = pytest.mark.integration

REDIS_URL = redis_url(9)
MEMORIES = {
    "ops-a": [
        "Ines keeps a sourdough starter named Bubbles.",
        "Ines bakes rye loaves every Sunday morning.",
        "Tomas repairs fishing boats in Bergen harbour.",
        "Tomas learned welding from his aunt.",
        "The lighthouse on Skarvoy was automated in 1989.",
        "Mira studies lichens on coastal granite.",
    ],
    "ops-b": ["Oskar collects Soviet-era radios.", "Oskar's workshop smells of solder."],
}
QUERIES = {
    "ops-a": ["sourdough starter", "rye bread", "fishing boats", "welding", "lichens"],
    "ops-b": ["radios", "workshop"],
}
POISON = "The vault code is 4417, says the malformed event"
UNKNOWN = "An unregistered task carries the passphrase heliotrope"
MINUTES = 15


@dataclass
class Traffic:
    srv: Server
    db: redis.Redis
    recalls: dict[str, int]

    def stats(self, **params: object) -> dict[str, Any]:
        r = self.srv.get("/v1/stats", params={"minutes": MINUTES, **params}, headers=AUTH)
        assert r.status_code == 200, r.text
        return r.json()  # type: ignore[no-any-return]


def counter(stats: dict[str, Any], name: str, **labels: str) -> int:
    return sum(
        c["total"]
        for c in stats["counters"]
        if c["name"] == name and labels.items() <= c["labels"].items()
    )


def latency(stats: dict[str, Any], name: str) -> dict[str, Any]:
    [h] = [h for h in stats["latencies"] if h["name"] == name and not h["labels"]]
    return h


def gauge(stats: dict[str, Any], name: str) -> float | None:
    found = [g["value"] for g in stats["gauges"] if g["name"] == name]
    return sum(found) if found else None


def redis_total(db: redis.Redis, series: str) -> int:
    return sum(int(db.get(k) or 0) for k in db.scan_iter(f"{PREFIX}c:{series}:*"))


def redis_buckets(db: redis.Redis, series: str) -> Counter[float]:
    buckets: Counter[float] = Counter()
    for key in db.scan_iter(f"{PREFIX}h:{series}:*"):
        for field, n in db.hgetall(key).items():
            if field != b"sum":
                buckets[float(field)] += int(n)
    return buckets


def publish_bad_messages(queue: str) -> None:
    """A retain payload that fails validation (dead-lettered) and a task no worker
    knows; both carry text that must never reach a log line."""
    producer = Celery(broker=REDIS_URL, set_as_current=False)
    try:
        producer.send_task(
            "sediment.retain.v1", args=[{"bank_id": "ops-a", "text": POISON}], queue=queue
        )
        producer.send_task("sediment.no_such_task.v1", args=[{"text": UNKNOWN}], queue=queue)
    finally:
        producer.close()


@pytest.fixture(scope="module")
def traffic(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Traffic]:
    db = redis.Redis.from_url(REDIS_URL)
    try:
        db.ping()
    except redis.ConnectionError:
        pytest.fail("needs Redis on 127.0.0.1 (.ci/run starts it)")
    db.flushdb()
    queue = f"sediment-ops-{uuid.uuid4().hex[:8]}"
    env = {
        **os.environ,
        "SEDIMENT_MODE": "standalone",
        "SEDIMENT_ALLOW_VOLATILE_REDIS": "true",  # the test Redis is volatile
        "SEDIMENT_REDIS_URL": REDIS_URL,
        "SEDIMENT_QUEUE": queue,
        "SEDIMENT_API_TOKEN": TOKEN,
        "SEDIMENT_METRICS_SAMPLE_S": "1",
        "SEDIMENT_RECALL_SLOW_MS": "0.001",
        "SEDIMENT_LOG_LEVEL": "INFO",
    }
    with running(env, tmp_path_factory.mktemp("ops")) as srv:
        for bank, texts in MEMORIES.items():
            items = [
                {"text": t, "occurred_at": f"2024-05-{i + 1:02d}T08:00:00Z"}
                for i, t in enumerate(texts)
            ]
            r = srv.post(f"/v1/banks/{bank}/memories", {"items": items}, headers=AUTH)
            assert r.status_code == 202, r.text
        publish_bad_messages(queue)
        stored = sum(len(t) for t in MEMORIES.values())
        eventually(
            lambda: redis_total(db, "events:bank=ops-*,outcome=stored") == stored, "consolidation"
        )
        eventually(lambda: db.xlen("sediment:dlq") >= 1, "the poison event to be dead-lettered")
        recalls = {bank: 0 for bank in QUERIES}
        for bank, queries in QUERIES.items():
            for query in queries:
                srv.recall(bank, query)
                recalls[bank] += 1
        t = Traffic(srv, db, recalls)

        def settled() -> bool:
            """Every recall counted, and a gauge sample taken with no message waiting or
            in flight, so after the last dead letter was written."""
            stats = t.stats()
            dead = db.xlen("sediment:dlq")
            return (
                counter(stats, "recalls") == sum(recalls.values())
                and gauge(stats, "queue_ready") == 0
                and gauge(stats, "queue_unacked") == 0
                and gauge(stats, "dead_letters") == dead
                and counter(stats, "events", outcome="dead_lettered") == dead
                and gauge(t.stats(bank="ops-a"), "memories") == len(MEMORIES["ops-a"])
            )

        eventually(settled, "metrics and gauges to settle")
        yield t
    db.flushdb()


def test_redis_holds_the_counts_and_buckets(traffic: Traffic) -> None:
    db = traffic.db
    for bank, n in traffic.recalls.items():
        assert redis_total(db, f"recalls:bank={bank}") == n
        assert sum(redis_buckets(db, f"recall_ms:bank={bank}").values()) == n
        assert redis_total(db, f"events:bank={bank},outcome=stored") == len(MEMORIES[bank])
    assert redis_total(db, "events:bank=ops-a,outcome=received") == len(MEMORIES["ops-a"]) + 1
    assert redis_total(db, "events:bank=ops-a,outcome=dead_lettered") == 1
    assert redis_total(db, "recall_errors:*") == 0
    keys = list(db.scan_iter(f"{PREFIX}*"))
    ttls_ms = [db.pttl(k) for k in keys]  # -1: no expiry; -2: expired since the scan
    assert keys and all(t != -1 and t <= 86_400_000 for t in ttls_ms), "every metrics key expires"


def test_v1_stats_says_what_redis_holds(traffic: Traffic) -> None:
    stats = traffic.stats()
    assert counter(stats, "recalls") == sum(traffic.recalls.values())
    recall = latency(stats, "recall_ms")
    buckets = {float(b): n for b, n in recall["buckets"]}
    assert buckets == dict(redis_buckets(traffic.db, "recall_ms:*"))
    assert recall["count"] == sum(traffic.recalls.values()) == sum(recall["series"])
    assert counter(stats, "events", outcome="stored") == 8
    dead = traffic.db.xlen("sediment:dlq")
    assert counter(stats, "events", outcome="dead_lettered") == dead >= 1
    assert latency(stats, "consolidation_ms")["count"] == 8
    one = traffic.stats(bank="ops-a")
    assert counter(one, "recalls") == traffic.recalls["ops-a"]
    assert gauge(one, "memories") == len(MEMORIES["ops-a"])
    assert stats["slow_calls"] > 0 and stats["recent_slow_calls"]


def test_metrics_says_what_redis_holds(traffic: Traffic) -> None:
    anonymous = traffic.srv.get("/metrics", params={"minutes": MINUTES})
    assert anonymous.status_code == 401, "behind the token the API takes"
    r = traffic.srv.get("/metrics", params={"minutes": MINUTES}, headers=AUTH)
    assert r.status_code == 200, r.text
    found = {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(r.text)
        for s in family.samples
    }
    total = sum(traffic.recalls.values())
    assert found[("sediment_recalls_in_window", ())] == total
    assert found[("sediment_recall_ms_count_in_window", ())] == total
    seen = 0
    for bound, n in sorted(redis_buckets(traffic.db, "recall_ms:*").items()):
        seen += n
        assert found[("sediment_recall_ms_window_bucket", (("le", f"{bound:g}"),))] == seen
    assert found[("sediment_recall_ms_window_bucket", (("le", "+Inf"),))] == total
    assert found[("sediment_events_in_window", (("outcome", "stored"),))] == 8
    assert found[("sediment_dead_letters", ())] == traffic.db.xlen("sediment:dlq")
    queue = traffic.srv.env["SEDIMENT_QUEUE"]
    assert found[("sediment_queue_ready", (("queue", queue),))] == 0


def test_dashboard_draws_what_redis_holds(traffic: Traffic, tmp_path: Path) -> None:
    require_chromium()
    with chromium() as page:
        page.navigate(traffic.srv.url + "/dashboard")
        page.wait_for("document.body.dataset.state === 'unauthorized'", what="the token request")
        page.type_into("#token", TOKEN)
        page.evaluate("document.getElementById('token-form').requestSubmit()")
        page.wait_for(
            "document.body.dataset.state === 'ok' && Number(document.body.dataset.updates) >= 1",
            what="the first update",
        )
        page.wait_for("document.getElementById('chart-latency').dataset.points > 0", what="charts")
        shown: dict[str, str] = page.evaluate(
            "Object.fromEntries([...document.querySelectorAll('[data-value]')]"
            ".map(e => [e.id, e.dataset.value]))"
        )
        stats = traffic.stats()
        page.screenshot(tmp_path / "ops-dashboard.png")
    recall = latency(stats, "recall_ms")
    assert int(shown["recalls"]) == sum(traffic.recalls.values()) == recall["count"]
    for p in ("p50", "p95", "p99"):
        assert float(shown[f"recall-{p}"]) == pytest.approx(recall[f"{p}_ms"], rel=1e-12)
    assert int(shown["events-received"]) == counter(stats, "events", outcome="received")
    assert int(shown["events-stored"]) == 8
    assert int(shown["dead-letters"]) == traffic.db.xlen("sediment:dlq")
    assert int(shown["queue-ready"]) == 0
    assert int(shown["memories"]) == 8
    lag = next(h for h in stats["latencies"] if h["labels"] == {"since": "published"})
    assert float(shown["lag-p50"]) == pytest.approx(lag["p50_ms"], rel=1e-12)
    assert (tmp_path / "ops-dashboard.png").stat().st_size > 10_000


def test_logs_carry_ids_and_never_content(traffic: Traffic) -> None:
    text = traffic.srv.log.read_text(encoding="utf-8")
    secrets = [t for texts in MEMORIES.values() for t in texts]
    secrets += [q for queries in QUERIES.values() for q in queries]
    secrets += [POISON, UNKNOWN, "code 4417", "heliotrope"]  # ids may hold the digits
    leaked = [s for s in secrets if s in text]
    assert not leaked, f"content in the serve log: {leaked}"
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    requests = [x for x in lines if x["event"] == "request"]
    assert requests and all(x["request_id"] and x["status"] for x in requests)
    consolidated = [x for x in lines if x["event"] == "consolidated"]
    assert consolidated and all(
        x["task_id"] and x["event_id"] and x["bank_id"] for x in consolidated
    )
    assert any(str(x.get("logger", "")).startswith("celery") for x in lines), "Celery not routed"
    assert any(str(x.get("logger", "")).startswith("uvicorn") for x in lines), "uvicorn not routed"
    assert "INFO:     " not in text, "a line escaped the JSON format"


def sediment(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "sediment.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_ping_and_the_workers_sampler(worker_env: WorkerEnv) -> None:
    env = {**worker_env.env, "SEDIMENT_METRICS_SAMPLE_S": "1"}
    worker_env.env = env
    gauge_key = f"{PREFIX}g:queue_ready:queue={worker_env.queue}"
    proc = worker_env.start("ping-worker")
    try:
        wait_until(lambda: worker_env.redis.exists(gauge_key), 60, "the worker to sample the queue")
        local = sediment(env, "ping", "--local", "--timeout", "10")
        assert local.returncode == 0, local.stderr
        assert "pong" in local.stdout
        nobody = sediment(env, "ping", "--worker", "celery@no-such-host", "--timeout", "1")
        assert nobody.returncode == 1 and "no worker answered" in nobody.stderr
        assert worker_env.redis.hget(gauge_key, "value") == b"0.0"
    finally:
        worker_env.stop(proc)
