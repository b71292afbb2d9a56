"""Checks of a running `sediment serve`: schemathesis over its OpenAPI document, a bank
isolation fuzz, and concurrent recall clients with the server's memory watched."""

import random
import re
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from bench.reliability.cluster import TOKEN, Broker, Proc, rss_mb, wait_for
from contracts.base import BANK_ID_PATTERN

AUTH = {"Authorization": f"Bearer {TOKEN}"}


@dataclass
class SchemaResult:
    cases: int
    failures: int
    exit_code: int
    failing_checks: list[str]
    seconds: float
    allowances: list[str] = field(default_factory=list)


ALLOWANCES = {
    "DELETE /v1/banks/{bank_id}/memories": (
        "422 for a request without any condition (`tag`, `entity`, `start`, `end`, "
        "`source_id`): every one is optional, and OpenAPI cannot say that one of several "
        "query parameters is required; the 422 is documented on the operation"
    ),
    "POST /v1/banks/{bank_id}/memories": (
        "422 for two items with one event id (given, or derived from the same `text` and "
        "`occurred_at`): a request may not name one event twice, and JSON Schema cannot "
        "say that a field is unique across the items of a list; the 422 names both items"
    ),
}
"""Where positive data may be refused, and why: written to schemathesis.toml, and shown
in docs/reliability.md. Nothing else is relaxed but `STATEFUL_ALLOWANCES`."""
STATEFUL_ALLOWANCES = {
    "use_after_free": (
        "off: a forget (DELETE of a memory, of a tag's memories or of a bank) is an event "
        "answered 202 and applied by the worker moments later, and a bank is not a "
        "resource that goes: after a forget of every memory its export (the tombstones) "
        "and status still answer 200"
    ),
}
"""Checks switched off for the whole API (`--exclude-checks`), and why (shown like
`ALLOWANCES`)."""
_ACCEPTED = ["2xx", "3xx", "401", "403", "404", "409", "429", "5xx"]


def _config() -> str:
    lines = []
    for operation in ALLOWANCES:
        method, path = operation.split(" ", 1)
        statuses = ", ".join(f'"{s}"' for s in [*_ACCEPTED, "422"])
        lines += [
            "[[operations]]",
            f'include-method = "{method}"',
            f'include-path = "{path}"',
            f"checks.positive_data_acceptance.expected-statuses = [{statuses}]",
            "",
        ]
    return "\n".join(lines)


def schemathesis_run(base_url: str, max_examples: int, out_dir: Path) -> SchemaResult:
    """`schemathesis run --checks all` over /openapi.json, as an outside tester runs it."""
    cli = Path(sys.executable).with_name("schemathesis")
    if not cli.exists():
        raise RuntimeError("schemathesis is not installed: pip install -e '.[reliability]'")
    config = out_dir / "schemathesis.toml"
    config.write_text(_config(), encoding="utf-8")
    start = time.monotonic()
    out = subprocess.run(
        [
            str(cli),
            "--config-file",
            str(config),
            "run",
            f"{base_url}/openapi.json",
            "--header",
            f"Authorization: Bearer {TOKEN}",
            "--checks",
            "all",
            "--exclude-checks",
            ",".join(STATEFUL_ALLOWANCES),
            "--max-examples",
            str(max_examples),
            "--workers",
            "1",
            "--seed",
            "15",
            "--request-timeout",
            "60",
        ],
        capture_output=True,
        text=True,
        timeout=3600,
        cwd=out_dir,
    )
    (out_dir / "schemathesis.log").write_text(out.stdout + out.stderr, encoding="utf-8")
    text = out.stdout
    generated = re.search(r"(\d+) generated", text)
    failing = re.findall(r"❌ (ST\d+ [^:\n]+): (\d+)", text)
    return SchemaResult(
        cases=int(generated.group(1)) if generated else 0,
        failures=sum(int(n) for _, n in failing) + (0 if out.returncode == 0 or failing else 1),
        exit_code=out.returncode,
        failing_checks=[f"{name}: {n}" for name, n in failing],
        seconds=round(time.monotonic() - start, 1),
        allowances=[
            *(f"{op}: {why}" for op, why in ALLOWANCES.items()),
            *(f"{check}: {why}" for check, why in STATEFUL_ALLOWANCES.items()),
        ],
    )


@dataclass
class IsolationResult:
    banks: int
    memories: int
    recalls: int
    cross_bank_reads: int
    leaks: int
    leak_examples: list[str] = field(default_factory=list)


def isolation_banks(n: int) -> list[str]:
    """Bank ids from hypothesis, plus look-alikes a prefix or case bug would mix up."""
    found: list[str] = []

    @settings(
        max_examples=n * 3,
        database=None,
        phases=[Phase.generate],
        deadline=None,
        suppress_health_check=list(HealthCheck),
        derandomize=True,
    )
    @given(st.from_regex(BANK_ID_PATTERN, fullmatch=True).filter(lambda b: len(b) <= 40))
    def collect(bank: str) -> None:
        name = f"iso.{bank}"[:128]
        if len(found) < n and name.lower() not in {f.lower() for f in found}:
            found.append(name)

    collect()
    return [*found, "iso.Twin", "iso.twin", "iso.twin:", "iso.twin.1"]


def _marker(i: int) -> str:
    return f"zq{i:04d}x"


def isolation_run(proc: Proc, broker: Broker, n_banks: int, per_bank: int) -> IsolationResult:
    """Each bank gets memories naming its own marker beside words every bank shares;
    every recall, read and vote through bank B must only ever touch bank B."""
    banks = isolation_banks(n_banks)
    markers = {b: _marker(i) for i, b in enumerate(banks)}
    client = httpx.Client(base_url=proc.base_url, headers=AUTH, timeout=60)
    for bank in banks:
        items = [
            {
                "text": f"Project {markers[bank]} moved the launch review to Friday, note {j}.",
                "occurred_at": f"2024-06-{j % 28 + 1:02d}T09:00:00Z",
            }
            for j in range(per_bank)
        ]
        client.post(f"/v1/banks/{bank}/memories", json={"items": items}).raise_for_status()
    wait_for(broker.settled, 600, "the isolation memories to be consolidated")
    leaks: list[str] = []
    recalls = cross = 0
    owned: dict[str, list[str]] = {}
    rng = random.Random(15)
    for bank in banks:
        queries = [markers[bank], "launch review Friday", *rng.sample(list(markers.values()), 5)]
        for query in queries:
            body = {
                "query": query,
                "limit": 20,
                "session_key": f"s-{bank}",
                "history": True,
            }
            r = client.post(f"/v1/banks/{bank}/recall", json=body)
            r.raise_for_status()
            recalls += 1
            for result in r.json()["results"]:
                owned.setdefault(bank, []).append(result["id"])
                if markers[bank] not in result["text"]:
                    leaks.append(f"{bank}: {result['text'][:60]}")
    for bank, other in zip(banks, banks[1:] + banks[:1], strict=True):
        for memory_id in owned.get(other, [])[:3]:
            cross += 3
            reads = [
                client.get(f"/v1/banks/{bank}/memories/{memory_id}"),
                client.post(
                    f"/v1/banks/{bank}/feedback", json={"memory_id": memory_id, "vote": "up"}
                ),
                client.get(f"/v1/banks/{bank}/last-recall", params={"session_key": f"s-{other}"}),
            ]
            leaks += [
                f"{bank} reached {other}: {r.status_code}" for r in reads if r.status_code != 404
            ]
    return IsolationResult(len(banks), len(banks) * per_bank, recalls, cross, len(leaks), leaks[:5])


@dataclass
class LoadResult:
    clients: int
    seconds: float
    requests: int
    errors: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    rss_start_mb: float
    rss_peak_mb: float
    rss_end_mb: float
    rss_mid_mb: float = 0.0
    """At half time: growth from here to the end is what is left once caches and pools
    have warmed up; flat means it stays within `RSS_FLAT_MB`."""

    @property
    def rss_growth_mb(self) -> float:
        return round(self.rss_end_mb - self.rss_mid_mb, 1)


def recall_load(proc: Proc, banks: list[str], clients: int, seconds: float) -> LoadResult:
    """`clients` threads recalling as fast as the server answers for `seconds`."""
    stop = threading.Event()
    latencies: list[float] = []
    errors: list[int] = []
    lock = threading.Lock()
    words = ["Lisbon", "sourdough", "marathon", "chess", "Ada", "launch review", "sailing"]

    def client(seed: int) -> None:
        rng = random.Random(seed)
        with httpx.Client(base_url=proc.base_url, headers=AUTH, timeout=60) as http:
            while not stop.is_set():
                bank = rng.choice(banks)
                start = time.perf_counter()
                try:
                    r = http.post(f"/v1/banks/{bank}/recall", json={"query": rng.choice(words)})
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                with lock:
                    latencies.append((time.perf_counter() - start) * 1000)
                    if not ok:
                        errors.append(1)

    rss = [rss_mb(proc.pid) or 0.0]
    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        time.sleep(1)
        rss.append(rss_mb(proc.pid) or 0.0)
    stop.set()
    for t in threads:
        t.join(120)
    cuts = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    return LoadResult(
        clients=clients,
        seconds=seconds,
        requests=len(latencies),
        errors=len(errors),
        p50_ms=round(cuts[49], 1),
        p95_ms=round(cuts[94], 1),
        p99_ms=round(cuts[98], 1),
        rss_start_mb=round(rss[0], 1),
        rss_peak_mb=round(max(rss), 1),
        rss_end_mb=round(rss[-1], 1),
        rss_mid_mb=round(rss[len(rss) // 2], 1),
    )


@dataclass
class OversizeResult:
    """Bodies over SEDIMENT_API_MAX_BODY_BYTES sent to a running server: each must be
    refused with 413 before it is parsed (declared or chunked), and 401 comes first
    for a request without the token, whatever its body."""

    limit_bytes: int
    sent: int
    refused_413: int
    refused_401: int
    failures: int
    failure_examples: list[str] = field(default_factory=list)


def oversize_run(proc: Proc, limit_bytes: int, n: int) -> OversizeResult:
    """`n` rounds of: a body one byte to 8 MiB over the limit with a Content-Length, the
    same streamed in chunks (no Content-Length), and one of them without the token."""
    rng = random.Random(15)
    failures: list[str] = []
    got_413 = got_401 = sent = 0
    url = f"{proc.base_url}/v1/banks/oversize/memories"

    def body(size: int) -> bytes:
        item = b'{"text": "' + b"x" * size + b'", "occurred_at": "2024-01-01T00:00:00Z"}'
        return b'{"items": [' + item + b"]}"

    def chunks(data: bytes, step: int) -> Iterator[bytes]:
        for i in range(0, len(data), step):
            yield data[i : i + step]

    with httpx.Client(timeout=60) as client:
        for i in range(n):
            size = limit_bytes + rng.choice([1, 1024, 65_536, 8 * 1024 * 1024])
            data = body(size)
            for streamed, token in ((False, True), (True, True), (i % 2 == 0, False)):
                headers = AUTH if token else {}
                content = chunks(data, 65_536) if streamed else data
                try:
                    status = client.post(url, content=content, headers=headers).status_code
                except httpx.HTTPError as exc:
                    status = -1
                    failures.append(f"{type(exc).__name__} ({'chunked' if streamed else 'sized'})")
                sent += 1
                want = 413 if token else 401
                got_413 += status == 413
                got_401 += status == 401
                if status != want and status != -1:
                    how = "chunked" if streamed else "with Content-Length"
                    failures.append(f"{status} for {len(data)} B {how}, token {token}")
    return OversizeResult(limit_bytes, sent, got_413, got_401, len(failures), failures[:5])
