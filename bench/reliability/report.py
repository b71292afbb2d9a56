"""docs/reliability.md, rendered from the suite's results (never edited by hand)."""

from typing import Any

from bench.reliability.forget_in_flight import in_flight_section, in_flight_verdicts
from bench.reliability.forget_kill import forget_kill_section, forget_kill_verdicts
from bench.reliability.forgetting import forget_section, forget_verdicts
from bench.reliability.live_purge import live_purge_section, live_purge_verdicts
from bench.reliability.rebuild_kill import rebuild_section, rebuild_verdicts

RECOVERY_TARGET_S = 30.0
RSS_FLAT_MB = 16.0
"""Serve's RSS may grow at most this much over the second half of the recall load (the
first half warms caches and thread stacks)."""
STREAMS = ("worker_kills", "serve_kills", "redis_crash", "redis_restart")
"""The event streams whose losses and duplicates are summed (the settings of before
are a comparison, not a run of ours)."""
COUNTED = ("worker_kills", "serve_kills")
"""Streams whose `events{stored}` counter must equal the distinct events stored. After
the Redis crash it may fall short: what Redis lost of its last second (AOF everysec),
and metrics sent while it was down, are dropped by design."""


def _table(headers: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(headers) + " |", "|" + " --- |" * len(headers)]
    return lines + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def _ok(good: bool) -> str:
    return "yes" if good else "**NO**"


def verdicts(res: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) for the summary table."""
    out: list[tuple[str, str, str, bool]] = []
    streams = [k for k in STREAMS if k in res]
    lost = sum(res[k]["lost"] for k in streams)
    dup = sum(res[k]["duplicated"] for k in streams)
    sent = sum(res[k]["sent"] for k in streams)
    out.append(("events lost", f"{lost} of {sent}", "0", lost == 0))
    out.append(("stored memories duplicated", f"{dup}", "0", dup == 0))
    counted = [k for k in COUNTED if k in res and "counted_stored" in res[k]]
    if counted:
        have = sum(res[k]["counted_stored"] for k in counted)
        want = sum(res[k]["stored"] for k in counted)
        again = sum(res[k]["redelivered"] for k in counted)
        out.append(
            (
                "`events{stored}` counter against distinct events stored (kill runs)",
                f"{have} of {want} ({again} redeliveries counted apart)",
                f"= {want}",
                have == want,
            )
        )
    for key, label in (("worker_kills", "worker"), ("serve_kills", "serve")):
        if key in res:
            worst = res[key]["recovery_max_s"]
            met = worst is not None and worst <= RECOVERY_TARGET_S
            out.append((f"recovery after kill -9 of {label} (worst)", f"{worst} s", "<= 30 s", met))
    if "redis_crash" in res:
        left = (
            res["redis_crash"]["notes"]["unacked_left"] + res["redis_crash"]["notes"]["ledger_left"]
        )
        out.append(
            ("unacked or ledger entries left after the Redis crash", str(left), "0", left == 0)
        )
    if "redis_restart" in res:
        out.append(_restart_verdict(res["redis_restart"]["notes"]))
    if "poison" in res:
        p = res["poison"]
        out.append(("poison fuzz failures", str(p["failures"]), "0", p["failures"] == 0))
        fits = p["largest_letter_bytes"] <= p["cap_bytes"]
        out.append(
            (
                "largest dead-letter entry",
                f"{p['largest_letter_bytes']} B",
                f"<= {p['cap_bytes']} B",
                fits,
            )
        )
    if "schema" in res:
        s = res["schema"]
        out.append(
            (
                "schemathesis failures",
                f"{s['failures']} in {s['cases']} cases",
                "0",
                s["failures"] == 0,
            )
        )
    if "oversize" in res:
        o = res["oversize"]
        out.append(
            (
                "oversized bodies not refused (413, or 401 without the token)",
                f"{o['failures']} of {o['sent']}",
                "0",
                o["failures"] == 0,
            )
        )
    if "isolation" in res:
        n = res["isolation"]["leaks"]
        out.append(("bank isolation leaks", str(n), "0", n == 0))
    if "forget_crash" in res:
        out += forget_verdicts(res["forget_crash"])
    if "forget_in_flight" in res:
        out += in_flight_verdicts(res["forget_in_flight"])
    if "live_purge" in res:
        out += live_purge_verdicts(res["live_purge"])
    if "rebuild_kill" in res:
        out += rebuild_verdicts(res["rebuild_kill"])
    if "forget_kill" in res:
        out += forget_kill_verdicts(res["forget_kill"])
    if "load" in res:
        g = res["load"]
        e = g["errors"]
        out.append(("recall errors under load", f"{e} of {g['requests']}", "0", e == 0))
        if "rss_growth_mb" in g:
            grew = g["rss_growth_mb"]
            out.append(
                (
                    "serve RSS growth over the second half of the load",
                    f"{grew} MiB",
                    f"<= {RSS_FLAT_MB:g} MiB",
                    grew <= RSS_FLAT_MB,
                )
            )
    return out


def _restart_verdict(n: dict[str, Any]) -> tuple[str, str, str, bool]:
    times = (n["caught_up_s"], n["settled_after_stream_s"])
    met = all(t is not None and t <= RECOVERY_TARGET_S for t in times)
    shown = [_seconds(t, n) for t in times]
    return (
        "recovery after a Redis restart under a live worker (owed at the stop, from Redis "
        "back; the stream, from its last event)",
        f"{shown[0]}; {shown[1]}",
        "<= 30 s each",
        met,
    )


def render(res: dict[str, Any]) -> str:
    lines = [
        "# Reliability",
        "",
        "Generated by `make reliability` (`python -m bench.reliability`); do not edit by hand.",
        f"Run {res['generated_at']} on {res['host']}, {res['wall_time_s']} s in all. Every",
        "process is real: a `redis-server` of the suite's own with AOF (`appendfsync",
        "everysec`), `sediment worker --pool solo` and `sediment serve` in standalone mode,",
        "each on free ports, with the default settings:",
        "",
        ", ".join(f"`{k}` {v}" for k, v in res["settings"].items()) + ".",
        "",
        "| check | measured | target | met |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| {c} | {m} | {t} | {_ok(ok)} |" for c, m, t, ok in verdicts(res)]
    lines += _streams(res) + _kills(res) + _others(res)
    return "\n".join(lines) + "\n"


def _streams(res: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## Events",
        "",
        "Sent: distinct events accepted by the broker (`worker.publish`) or answered 202 by",
        "the API; a producer resends what was refused while a process or Redis was down",
        "(resends: requests or chunks sent again). Stored: distinct events whose raw memory",
        "is in the read model at the end; duplicated: memories beyond one per event; lost:",
        "sent and not stored. Then the `events` counters (`sediment stats`, `/metrics`):",
        "`stored` counts each event once, whichever delivery writes (or first finds) its",
        "done-marker; `redelivered` counts the other deliveries of stored events (a kill",
        "after the work and before the acknowledgement, a producer's resend of a request",
        "whose answer it never saw), harmless: ids derive from event ids and the",
        "done-marker is checked first. Deliveries consolidated = counted stored +",
        "redelivered; `received` counts the events of messages taken on a first attempt.",
        "",
    ]
    rows = []
    for key in ("worker_kills", "worker_kills_before", "serve_kills", *STREAMS[2:]):
        if key in res:
            r = res[key]
            name = r["scenario"] + (" (settings of before)" if key.endswith("before") else "")
            rows.append([name, r["sent"], r["stored"], r["duplicated"], r["lost"]])
            counted = r.get("counted_stored", "-")
            deliveries = counted + r["redelivered"] if isinstance(counted, int) else "-"
            rows[-1] += [counted, r["redelivered"], deliveries, r.get("received", "-")]
            rows[-1] += [r["resent_by_producer"]]
    headers = ["scenario", "sent", "stored", "duplicated", "lost", "counted stored"]
    headers += ["redelivered", "deliveries", "received", "resends"]
    out += _table(headers, rows)
    if "redis_crash" in res:
        out += [
            "",
            "After the Redis crash the counters may fall short of the store: Redis keeps",
            "its last second only as far as `appendfsync everysec` wrote it, and metrics",
            "sent while it was down are dropped (metrics never fail the work they count).",
        ]
    if "redis_crash" in res:
        n = res["redis_crash"]["notes"]
        out += [
            "",
            f"Redis crash: killed -9 with {n['queued_at_crash']} messages queued and "
            f"{n['held_at_crash']} events in flight, back after {n['redis_down_s']} s; the "
            f"stream was settled {n['settled_after_restart_s']} s after that; "
            f"`unacked` entries left {n['unacked_left']}, ledger entries left "
            f"{n['ledger_left']}; the worker {'stayed up' if n['worker_survived'] else 'died'}.",
        ]
    if "redis_restart" in res:
        out += _restart(res["redis_restart"])
    return out


def _restart(r: dict[str, Any]) -> list[str]:
    n = r["notes"]
    alone = r.get("ran_alone")
    when = f" Run on its own (`--only redis_restart`) {alone[0]} on {alone[1]}." if alone else ""
    return [
        "",
        "Redis restart under a live worker: single-event messages, 100 a second (as a",
        "producer retaining one event at a time sends them); Redis stopped (SIGTERM) while",
        f"`sediment worker` held {n['held_at_stop']} events in its batch, "
        f"{n['owed_at_stop']} owed, and started again after {n['redis_down_s']} s. The events",
        f"owed at the stop were handled {_seconds(n['caught_up_s'], n)} after Redis was back;",
        f"the stream was settled {_seconds(n['settled_after_stream_s'], n)} after its last "
        f"event; `unacked` entries left {n['unacked_left']}, ledger entries left "
        f"{n['ledger_left']}; the worker {'stayed up' if n['worker_survived'] else 'died'}.",
        "A worker whose batch flush timer went with the connection ran a batch only when a",
        f"64th message filled it, and sat on the stream's tail until restarted.{when}",
    ]


def _seconds(t: float | None, notes: dict[str, Any]) -> str:
    return f"{t} s" if t is not None else f"not within {notes['waited_at_most_s']:g} s"


def _kills(res: dict[str, Any]) -> list[str]:
    out = [
        "",
        "## Recovery after kill -9",
        "",
        "Each kill is made while the process holds a message; the process is restarted at",
        "once (as a supervisor would). Recovery: from the kill until every event the",
        "killed process held is handled. Restart: until it consumes (and answers) again.",
        "",
    ]
    rows: list[list[object]] = []
    for key in ("worker_kills", "worker_kills_before", "serve_kills"):
        if key in res:
            r = res[key]
            each = ", ".join(f"{k['held']}: {k['recovery_s']}" for k in r["kills"])
            name = r["scenario"] + (" (settings of before)" if key.endswith("before") else "")
            median, worst = r["recovery_median_s"], r["recovery_max_s"]
            restart = r["restart_max_s"]
            rows.append([name, len(r["kills"]), f"{median} s", f"{worst} s", f"{restart} s", each])
    headers = ["scenario", "kills", "recovery median", "recovery worst", "restart worst"]
    return out + _table([*headers, "per kill (events held: recovery s)"], rows)


def _poison(p: dict[str, Any]) -> list[str]:
    return [
        "",
        "## Poison events",
        "",
        f"{p['poison_sent']} poison messages sent raw (`send_task`, as a third party's",
        "mistakes arrive): hypothesis-generated payloads with one field broken (numbers as",
        "booleans, Unix or naive timestamps, control characters, texts up to 1.5 MB, bad",
        "ids), unknown fields, non-objects, and one 20 MB batch that is no list; "
        f"{p['good_sent']} good events between them.",
        "",
        *_table(
            ["poison sent", "over the cap", "largest poison", "dead-lettered", "poison stored"],
            [
                [
                    p["poison_sent"],
                    p["oversized_sent"],
                    f"{p['largest_poison_bytes']} B",
                    f"{p['dead_lettered']} of {p['expected_letters']}",
                    p["poison_stored"],
                ]
            ],
        ),
        "",
        f"Good events stored: {p['good_stored']} of {p['good_sent']}. Largest dead-letter",
        f"entry: {p['largest_letter_bytes']} B (cap {p['cap_bytes']} B).",
    ]


def _isolation(i: dict[str, Any]) -> list[str]:
    leaks = f" ({'; '.join(i['leak_examples'])})" if i["leaks"] else ""
    return [
        "",
        "## Bank isolation",
        "",
        f"{i['banks']} banks (hypothesis-generated ids, and look-alikes differing in case or",
        f"a suffix), {i['memories']} memories naming each bank's own marker beside words",
        f"all banks share; {i['recalls']} recalls for markers of every bank,",
        f"{i['cross_bank_reads']} reads, votes and last-recall lookups of one bank's",
        f"memories through another bank. Leaks: {i['leaks']}{leaks}.",
    ]


def _load(g: dict[str, Any]) -> list[str]:
    mid = g.get("rss_mid_mb", "-")
    rss = f"{g['rss_start_mb']} / {mid} / {g['rss_peak_mb']} / {g['rss_end_mb']} MiB"
    row = [g["clients"], g["seconds"], g["requests"], g["errors"]]
    row += [f"{g['p50_ms']} ms", f"{g['p95_ms']} ms", f"{g['p99_ms']} ms", rss]
    headers = ["clients", "seconds", "requests", "errors", "p50", "p95", "p99"]
    return [
        "",
        "## Recall under load",
        "",
        f"{g['clients']} threads recalling over HTTP as fast as `sediment serve` answers,",
        "over the 20 banks of the serve-kill stream; serve's resident memory sampled every",
        "second. Flat: it grows at most "
        f"{RSS_FLAT_MB:g} MiB from half time to the end "
        f"(measured: {g.get('rss_growth_mb', '-')} MiB).",
        "",
        *_table([*headers, "serve RSS start / half time / peak / end"], [row]),
    ]


def _oversize(o: dict[str, Any]) -> list[str]:
    failing = f" ({'; '.join(o['failure_examples'])})" if o["failures"] else ""
    return [
        "",
        "## Oversized bodies",
        "",
        f"{o['sent']} requests with bodies 1 B to 8 MiB over `SEDIMENT_API_MAX_BODY_BYTES`",
        f"({o['limit_bytes']} B), with a Content-Length and streamed in chunks without one;",
        "every third without the token. Refused with 413 before parsing: "
        f"{o['refused_413']}; with 401 before the body is read: {o['refused_401']};",
        f"anything else: {o['failures']}{failing}.",
    ]


def _schema(s: dict[str, Any]) -> list[str]:
    failing = "; ".join(s["failing_checks"]) or "none"
    return [
        "",
        "## Schema fuzzing",
        "",
        "`schemathesis run --checks all` over `/openapi.json` of the running server, with",
        f"the token: {s['cases']} test cases in {s['seconds']} s, {s['failures']} failures",
        f"(failing checks: {failing}).",
        *(
            ["", "The allowances (bench/reliability/api_checks.py, `ALLOWANCES`):", ""]
            + [f"- {a}" for a in s["allowances"]]
            if s.get("allowances")
            else []
        ),
    ]


def _others(res: dict[str, Any]) -> list[str]:
    out: list[str] = []
    parts = (
        ("poison", _poison),
        ("oversize", _oversize),
        ("isolation", _isolation),
        ("forget_crash", forget_section),
        ("forget_in_flight", in_flight_section),
        ("live_purge", live_purge_section),
        ("rebuild_kill", rebuild_section),
        ("forget_kill", forget_kill_section),
        ("load", _load),
    )
    for key, part in parts:
        if key in res:
            out += part(res[key])
    if "schema" in res:
        out += _schema(res["schema"])
    return out
