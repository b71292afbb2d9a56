"""The fault suite end to end: one AOF Redis of its own, then each scenario on its own
queue and data directory; the results as one JSON-able dict (`docs/reliability.md` is
rendered from it by bench/reliability/report.py)."""

import json
import os
import platform
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench.reliability.api_checks import (
    isolation_run,
    oversize_run,
    recall_load,
    schemathesis_run,
)
from bench.reliability.cluster import Broker, Proc, RedisServer, running
from bench.reliability.faults import redis_crash, redis_restart, serve_kills, worker_kills
from bench.reliability.forget_in_flight import forget_in_flight
from bench.reliability.forget_kill import forget_kill
from bench.reliability.forgetting import forget_crash
from bench.reliability.live_purge import live_purge
from bench.reliability.poison import poison_run
from bench.reliability.rebuild_kill import rebuild_kill
from sediment.settings import Settings

BEFORE = {
    "SEDIMENT_LOCK_TIMEOUT_S": "60",
    "SEDIMENT_HOLDER_TTL_S": "0",
    "SEDIMENT_LEDGER_SWEEP_S": "30",
    "SEDIMENT_LEDGER_GRACE_S": "60",
}
"""The recovery settings of main before issue 15 (no heartbeat: kombu's visibility
timeout brings back what a killed worker held)."""


@dataclass(frozen=True)
class SuiteConfig:
    events: int = 10_000
    kills: int = 10
    interval_s: float = 30.0
    redis_events: int = 2_000
    restart_events: int = 1_000
    poison: int = 1_000
    oversize: int = 50
    schema_examples: int = 50
    isolation_banks: int = 20
    per_bank: int = 5
    load_clients: int = 50
    load_seconds: float = 60.0
    forget_rounds: int = 3
    forget_per_round: int = 20
    in_flight_banks: int = 3
    rebuild_events: int = 3_000
    purge_rounds: int = 3
    purge_per_round: int = 20
    forget_kill_rounds: int = 4
    forget_kill_per_request: int = 1_000
    baseline: bool = False


QUICK = SuiteConfig(
    events=300,
    kills=1,
    interval_s=10.0,
    redis_events=0,
    restart_events=0,
    poison=20,
    oversize=3,
    schema_examples=3,
    isolation_banks=3,
    per_bank=2,
    load_clients=5,
    load_seconds=5.0,
    forget_rounds=1,
    forget_per_round=4,
    in_flight_banks=1,
    rebuild_events=400,
    purge_rounds=1,
    purge_per_round=4,
    forget_kill_rounds=1,
    forget_kill_per_request=200,
)


IN_FLIGHT_PER_BANK = 10
FORGET_KILL_REQUESTS = 2


@dataclass(frozen=True)
class Case:
    """A scenario that can run on its own (`python -m bench.reliability --only NAME`)."""

    title: str
    events: Callable[[SuiteConfig], int]
    run: Callable[[RedisServer, Path, SuiteConfig], dict[str, Any]]


ALONE = {
    "redis_crash": Case(
        "Redis kill -9 and restart on its AOF",
        lambda c: c.redis_events,
        lambda s, w, c: redis_crash(s, w, c.redis_events, 3.0).summary(),
    ),
    "redis_restart": Case(
        "Redis restart under a live `sediment worker` holding a batch",
        lambda c: c.restart_events,
        lambda s, w, c: redis_restart(s, w, c.restart_events, 3.0).summary(),
    ),
    "forget_in_flight": Case(
        "A bank forget with retains accepted before it still in flight",
        lambda c: c.in_flight_banks * IN_FLIGHT_PER_BANK * 2,
        lambda s, w, c: asdict(forget_in_flight(s, w, c.in_flight_banks, IN_FLIGHT_PER_BANK)),
    ),
    "rebuild_kill": Case(
        "kill -9 of `sediment rebuild --all` part way",
        lambda c: c.rebuild_events,
        lambda s, w, c: asdict(rebuild_kill(s, w, c.rebuild_events)),
    ),
    "live_purge": Case(
        "Forget under a running `sediment serve`: the text leaves the store's files",
        lambda c: c.purge_rounds * c.purge_per_round,
        lambda s, w, c: asdict(live_purge(s, w, c.purge_rounds, c.purge_per_round)),
    ),
    "forget_kill": Case(
        "Forget during in-flight retains, kill -9 of `sediment serve`",
        lambda c: c.forget_kill_rounds * c.forget_kill_per_request * FORGET_KILL_REQUESTS,
        lambda s, w, c: asdict(
            forget_kill(s, w, c.forget_kill_rounds, c.forget_kill_per_request, FORGET_KILL_REQUESTS)
        ),
    ),
}


def _defaults() -> dict[str, Any]:
    s = Settings.model_validate({})
    names = (
        "lock_timeout_s",
        "holder_ttl_s",
        "ledger_sweep_s",
        "ledger_grace_s",
        "visibility_timeout_s",
        "dlq_max_payload_bytes",
        "api_max_body_bytes",
    )
    return {n: getattr(s, n) for n in names}


def run_suite(
    config: SuiteConfig, workdir: Path | None = None, say: Callable[[str], None] = print
) -> dict[str, Any]:
    workdir = workdir or Path(tempfile.mkdtemp(prefix="sediment-reliability-"))
    server = RedisServer(workdir)
    server.start()
    started = time.monotonic()
    out: dict[str, Any] = {
        "generated_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "host": _host(),
        "config": asdict(config),
        "settings": _defaults(),
    }
    try:
        say(f"kill -9 of sediment worker x{config.kills}, {config.events} events")
        out["worker_kills"] = worker_kills(
            server, workdir, config.events, config.kills, config.interval_s
        ).summary()
        if config.baseline:
            say("the same, once, with the recovery settings of before (no heartbeat)")
            out["worker_kills_before"] = worker_kills(
                server, workdir, config.events // 10, 1, config.interval_s, extra=BEFORE
            ).summary()
        for name, case in ALONE.items():
            if case.events(config):
                say(f"{case.title}, {case.events(config)} events")
                out[name] = case.run(server, workdir, config)
        if config.forget_rounds:
            say(f"kill -9 of sediment worker after a forget, x{config.forget_rounds}")
            out["forget_crash"] = asdict(
                forget_crash(server, workdir, config.forget_rounds, config.forget_per_round)
            )
        say(f"{config.poison} poison events from hypothesis, and a 20 MB poison batch")
        poison = poison_run(server, workdir, config.poison)
        out["poison"] = {**asdict(poison), "failures": poison.failures}
        say(f"kill -9 of sediment serve x{config.kills}, {config.events} events over HTTP")
        result, node = serve_kills(server, workdir, config.events, config.kills, config.interval_s)
        out["serve_kills"] = result.summary()
        proc = Proc.serve(node)
        with running(proc):
            broker = Broker(server.client(), node.queue)
            say(f"bank isolation fuzz over {config.isolation_banks} banks")
            out["isolation"] = asdict(
                isolation_run(proc, broker, config.isolation_banks, config.per_bank)
            )
            limit = out["settings"]["api_max_body_bytes"]
            say(f"{config.oversize * 3} bodies over the {limit} B limit, sized and chunked")
            out["oversize"] = asdict(oversize_run(proc, limit, config.oversize))
            say(f"{config.load_clients} concurrent recall clients for {config.load_seconds} s")
            banks = [f"sk-{i}" for i in range(20)]
            load = recall_load(proc, banks, config.load_clients, config.load_seconds)
            out["load"] = {**asdict(load), "rss_growth_mb": load.rss_growth_mb}
            say(f"schemathesis over /openapi.json, {config.schema_examples} examples each")
            out["schema"] = asdict(schemathesis_run(proc.base_url, config.schema_examples, workdir))
    finally:
        server.stop()
    out["wall_time_s"] = round(time.monotonic() - started, 1)
    (workdir / "reliability.json").write_text(json.dumps(out, indent=2), encoding="utf-8")
    return out


def run_alone(
    names: list[str], config: SuiteConfig, workdir: Path | None = None
) -> dict[str, dict[str, Any]]:
    """Only the named cases, on a Redis of their own, each stamped with when and where it
    ran: `__main__` merges them into the last full run's results."""
    workdir = workdir or Path(tempfile.mkdtemp(prefix="sediment-reliability-"))
    server = RedisServer(workdir)
    server.start()
    out: dict[str, dict[str, Any]] = {}
    try:
        for name in names:
            ran_at = datetime.now(UTC).isoformat(timespec="seconds")
            host = _host()
            out[name] = {**ALONE[name].run(server, workdir, config), "ran_alone": [ran_at, host]}
    finally:
        server.stop()
    return out


def _host() -> str:
    return f"{platform.node()}, {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.1f}"
