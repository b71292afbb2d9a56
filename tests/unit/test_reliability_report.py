"""The Redis restart case's verdict: both recoveries within the target, and a worker
that never settled reported as such rather than as a figure."""

from typing import Any

from bench.reliability.report import render, verdicts


def restart(caught_up_s: float | None, settled_s: float | None) -> dict[str, Any]:
    notes = {
        "held_at_stop": 27,
        "owed_at_stop": 27,
        "redis_down_s": 3.3,
        "caught_up_s": caught_up_s,
        "settled_after_stream_s": settled_s,
        "waited_at_most_s": 120.0,
        "worker_survived": True,
        "unacked_left": 0,
        "ledger_left": 57 if settled_s is None else 0,
    }
    return {
        "scenario": "Redis restart under a live `sediment worker`",
        "sent": 1000,
        "stored": 943,
        "duplicated": 0,
        "lost": 57,
        "redelivered": 0,
        "resent_by_producer": 5,
        "notes": notes,
    }


def restart_verdict(res: dict[str, Any]) -> tuple[str, str, str, bool]:
    [found] = [v for v in verdicts(res) if "Redis restart" in v[0]]
    return found


def test_a_stream_that_never_settled_fails_the_restart_check() -> None:
    _, measured, _, met = restart_verdict({"redis_restart": restart(2.9, None)})
    assert (measured, met) == ("2.9 s; not within 120 s", False)


def test_both_recoveries_within_30_s_meet_the_restart_check() -> None:
    assert restart_verdict({"redis_restart": restart(16.9, 1.3)})[3]
    assert not restart_verdict({"redis_restart": restart(31.0, 1.3)})[3]


def test_a_case_run_alone_says_when_it_ran() -> None:
    case = {**restart(2.9, 1.3), "ran_alone": ["2026-01-01T00:00:00+00:00", "vm, 2 CPUs"]}
    res = {
        "generated_at": "2025-12-31T00:00:00+00:00",
        "host": "vm",
        "wall_time_s": 1.0,
        "settings": {},
        "redis_restart": case,
    }
    assert "Run on its own (`--only redis_restart`) 2026-01-01T00:00:00+00:00" in render(res)


def test_the_in_flight_forget_case_fails_on_a_held_retain_left_or_none_held() -> None:
    from bench.reliability.forget_in_flight import in_flight_verdicts

    ok = {"banks": 3, "held_sent": 30, "held_after_forget": 20, "held_stored": 0}
    ok |= {"later_sent": 30, "later_stored": 30}
    assert all(met for *_, met in in_flight_verdicts(ok))
    assert not in_flight_verdicts(ok | {"held_stored": 1})[0][3]
    assert not in_flight_verdicts(ok | {"held_after_forget": 0})[0][3]
    assert not in_flight_verdicts(ok | {"later_stored": 29})[1][3]


def test_the_forget_kill_case_fails_on_a_retain_left_or_none_in_flight() -> None:
    from bench.reliability.forget_kill import forget_kill_section, forget_kill_verdicts

    ok = {"rounds": 2, "per_request": 1000, "requests": 2, "before_sent": 4000}
    ok |= {"before_stored": 0, "later_sent": 100, "later_stored": 100}
    ok |= {"kill_after_s": [1.8, 2.6], "owed_at_kill": [1168, 1424], "settled_s": [23.1, 20.6]}
    assert all(met for *_, met in forget_kill_verdicts(ok))
    assert not forget_kill_verdicts(ok | {"before_stored": 64})[0][3]
    assert not forget_kill_verdicts(ok | {"owed_at_kill": [0, 0]})[0][3]
    assert not forget_kill_verdicts(ok | {"later_stored": 99})[1][3]
    assert "| 2 | 2.6 s | 1424 | 20.6 s |" in forget_kill_section(ok)
