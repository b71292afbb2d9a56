"""A short run of the fault suite (`make reliability` runs the long one): real processes
on a Redis of its own with AOF; one kill -9 of a worker under a few hundred events, a
few fuzzed poison events with a 20 MB batch, a small schemathesis run, a kill -9 of a
worker right after a forget, a forget under a running serve, a rebuild killed part
way, serve killed -9 with retains in flight after a bank forget (the `--quick` case);
Redis restarted under a worker holding a batch (last: it restarts the module's Redis)."""

from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path

import pytest

from bench.reliability.api_checks import schemathesis_run
from bench.reliability.cluster import Node, Proc, RedisServer, running
from bench.reliability.faults import redis_restart, worker_kills
from bench.reliability.forget_kill import forget_kill_verdicts
from bench.reliability.forgetting import forget_crash, forget_verdicts
from bench.reliability.live_purge import live_purge, live_purge_verdicts
from bench.reliability.poison import poison_run
from bench.reliability.rebuild_kill import rebuild_kill, rebuild_verdicts
from bench.reliability.suite import ALONE, QUICK

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    redis = RedisServer(tmp_path_factory.mktemp("reliability"))
    redis.start()
    yield redis
    redis.stop()


def test_a_killed_worker_loses_nothing_and_is_recovered_from_within_30_s(
    server: RedisServer, tmp_path: Path
) -> None:
    result = worker_kills(server, tmp_path, n_events=300, kills=1, interval_s=8).summary()
    assert result["sent"] == 300
    assert (result["lost"], result["duplicated"]) == (0, 0)
    assert result["stored"] == 300
    held = [k for k in result["kills"] if k["held"]]
    assert all(k["recovery_s"] <= 30 for k in held), result["kills"]
    assert result["notes"] == {"unacked_left": 0, "ledger_left": 0}


def test_poison_is_dead_lettered_within_the_cap_and_good_events_stored(
    server: RedisServer, tmp_path: Path
) -> None:
    result = poison_run(server, tmp_path, n_poison=15)
    assert result.failures == 0, result
    assert result.largest_letter_bytes <= result.cap_bytes < result.largest_poison_bytes
    assert result.good_stored == result.good_sent and result.poison_stored == 0


def test_schemathesis_finds_nothing(server: RedisServer, tmp_path: Path) -> None:
    node = Node(server.url, tmp_path, "schema")
    with running(Proc.serve(node)) as proc:
        result = schemathesis_run(proc.base_url, max_examples=3, out_dir=tmp_path)
    assert result.cases > 0
    assert result.failures == 0, (result, (tmp_path / "schemathesis.log").read_text()[-3000:])


def test_a_worker_killed_after_a_forget_leaves_no_forgotten_text_on_disk(
    server: RedisServer, tmp_path: Path
) -> None:
    result = asdict(forget_crash(server, tmp_path, rounds=1, per_round=4))
    assert result["files_after_kill"][0] > 0, "the kill should leave the texts in the files"
    assert all(met for *_, met in forget_verdicts(result)), result
    assert result["kept_stored"] == result["kept_sent"] == 2


def test_a_forget_under_a_running_serve_leaves_the_store_files_within_the_bound(
    server: RedisServer, tmp_path: Path
) -> None:
    result = asdict(live_purge(server, tmp_path, rounds=1, per_round=4, purge_s=3))
    assert result["files_after_forget"][0] > 0, "the texts should be in the files at first"
    assert all(met for *_, met in live_purge_verdicts(result)), result


def test_a_rebuild_killed_part_way_is_refused_until_finished(
    server: RedisServer, tmp_path: Path
) -> None:
    result = asdict(rebuild_kill(server, tmp_path, events=400))
    assert all(met for *_, met in rebuild_verdicts(result)), result


def test_serve_killed_after_a_bank_forget_with_retains_in_flight_stores_none_of_them(
    server: RedisServer, tmp_path: Path
) -> None:
    """The case as `python -m bench.reliability --quick --only forget_kill` runs it."""
    result = ALONE["forget_kill"].run(server, tmp_path, QUICK)
    assert sum(result["owed_at_kill"]) > 0, "the kill should find the bank's retains owed"
    assert all(met for *_, met in forget_kill_verdicts(result)), result


def test_a_redis_restart_under_a_live_worker_is_recovered_from_within_30_s(
    server: RedisServer, tmp_path: Path
) -> None:
    result = redis_restart(server, tmp_path, n_events=500, down_s=2.0).summary()
    notes = result["notes"]
    assert (result["sent"], result["stored"], result["lost"]) == (500, 500, 0), notes
    assert notes["held_at_stop"] > 0, "Redis stopped while the worker held no batch"
    assert notes["caught_up_s"] is not None and notes["caught_up_s"] <= 30, notes
    assert notes["settled_after_stream_s"] is not None, notes
    assert notes["settled_after_stream_s"] <= 30, notes
    assert (notes["unacked_left"], notes["ledger_left"]) == (0, 0)
