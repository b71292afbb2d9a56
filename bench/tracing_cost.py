"""What tracing costs a recall: the same run, tracing off and on (every trace sampled).

    sediment-bench tracing                      # 3 runs, medians; writes bench/results/tracing.json
    sediment-bench tracing --baseline ../old    # also: off here against off in an older checkout

Each run opens two embedded runtimes side by side in this process (static embedder,
a qdrant-edge store each, in a temporary directory), retains the same memories into
both, then recalls the same queries on both through the recall service
(`Recaller.recall`, as the API and MCP call it), alternating which side goes first,
so machine noise hits both alike. The traced side records what a served recall
records: the `search_memory` span, one span per stage and the store calls, exported
in batches by the SDK's batch processor to JSON lines written to /dev/null (the
serialisation a real exporter does, on its background thread). A run keeps each
side's p50 of wall time and of the recall thread's CPU time (`time.thread_time`, which
the machine's other load does not inflate); the report gives the medians over the
runs and on/off.

With `--baseline CHECKOUT` (a checkout of code without tracing, such as a
`git worktree` of an older commit), each run also times the untraced side alone in
two child processes, one on this code and one on that checkout (this file run with
`--sides off`, `PYTHONPATH` set to the checkout), in alternating order: what the
tracing port costs when off.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

from contracts.events import RetainEvent
from contracts.recall import RecallRequest
from sediment.bootstrap import Runtime, bootstrap
from sediment.logs import configure
from sediment.settings import Settings

PEOPLE = [f"Person{i}" for i in range(40)]
CITIES = ["Lisbon", "Oslo", "Kyoto", "Lima", "Accra", "Perth", "Quito", "Riga", "Hanoi"]
HOBBIES = ["violin", "sourdough", "chess", "running", "pottery", "sailing", "climbing"]
T0 = datetime(2024, 1, 1, tzinfo=UTC)
BANK = "bench"


def events(n: int) -> list[RetainEvent]:
    out = []
    for i in range(n):
        who = PEOPLE[i % len(PEOPLE)]
        if i % 2:
            text, key = f"{who} now lives in {CITIES[i % len(CITIES)]}.", f"{who}.city"
        else:
            text, key = f"{who} enjoys {HOBBIES[i % len(HOBBIES)]} on weekends.", None
        out.append(
            RetainEvent(
                event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"{BANK}/{i}"),
                bank_id=BANK,
                text=text,
                occurred_at=T0 + timedelta(hours=i),
                entities=[who],
                key=key,
            )
        )
    return out


def queries(n: int) -> list[str]:
    forms = ["Where does {} live?", "What does {} enjoy?", "{} weekends", "city of {}"]
    return [forms[i % len(forms)].format(PEOPLE[i % len(PEOPLE)]) for i in range(n)]


def runtime(side: str, data_dir: Path) -> Runtime:
    settings = Settings(mode="embedded", data_dir=data_dir, embedder="static")
    if side == "off":
        return bootstrap(settings)
    from sediment.tracing import start_tracing

    environ = {"OTEL_TRACES_EXPORTER": "none"}
    traced = start_tracing("bench", environ, file=Path(os.devnull), set_global=False)
    return bootstrap(settings, traced=traced)


def timed_ms(op: Callable[[], object]) -> tuple[float, float]:
    """Wall time, and the calling thread's CPU time (what the recall itself computed,
    whatever else the machine ran meanwhile), in ms."""
    start, cpu = time.perf_counter(), time.thread_time()
    op()
    return (time.perf_counter() - start) * 1000, (time.thread_time() - cpu) * 1000


def one_run(sides: list[str], memories: int, recalls: int) -> dict[str, float]:
    """Each side's recall p50 in ms, over the same queries, alternating the order."""
    with tempfile.TemporaryDirectory(prefix="sediment-tracing-cost-") as tmp:
        rts = {side: runtime(side, Path(tmp) / side) for side in sides}
        try:
            stored = events(memories)
            for rt in rts.values():
                for at in range(0, len(stored), 64):
                    rt.publisher.publish_retain(stored[at : at + 64])
                for q in queries(20):
                    rt.recaller.recall(BANK, RecallRequest(query=q))
            samples: dict[str, list[tuple[float, float]]] = {side: [] for side in sides}
            for i, q in enumerate(queries(recalls)):
                request = RecallRequest(query=q)
                for side in sides if i % 2 == 0 else sides[::-1]:
                    samples[side].append(
                        timed_ms(partial(rts[side].recaller.recall, BANK, request))
                    )
        finally:
            for rt in rts.values():
                rt.close()
                traced = getattr(rt, "traced", None)  # absent in code without tracing
                if traced is not None:
                    traced.shutdown()
    out: dict[str, float] = {}
    for side, timings in samples.items():
        out[f"{side}_p50_ms"] = round(statistics.median(w for w, _ in timings), 3)
        out[f"{side}_cpu_p50_ms"] = round(statistics.median(c for _, c in timings), 3)
    return out


def off_in_child(checkout: Path | None, memories: int, recalls: int) -> tuple[float, float]:
    """The untraced side's p50, wall and CPU, in a child process, on this code or on
    `checkout`."""
    env = {**os.environ, "PYTHONPATH": str(checkout)} if checkout else dict(os.environ)
    argv = [sys.executable, __file__, "--sides", "off", "--runs", "1"]
    argv += ["--memories", str(memories), "--recalls", str(recalls)]
    out = subprocess.run(
        argv, cwd=checkout, env=env, capture_output=True, text=True, timeout=3600, check=True
    )
    median = json.loads(out.stdout)["median"]
    return float(median["off_p50_ms"]), float(median["off_cpu_p50_ms"])


def children(baseline: Path, memories: int, recalls: int, r: int) -> dict[str, float]:
    """Both child processes, the order alternating with the run."""
    sides = [("off_child", None), ("off_baseline_child", baseline)]
    out: dict[str, float] = {}
    for key, checkout in sides if r % 2 == 0 else sides[::-1]:
        out[f"{key}_p50_ms"], out[f"{key}_cpu_p50_ms"] = off_in_child(checkout, memories, recalls)
    return out


def run_tracing_cost(
    sides: list[str],
    memories: int,
    recalls: int,
    runs: int,
    say: Callable[[str], None],
    baseline: Path | None = None,
) -> dict[str, Any]:
    started, load_start = time.time(), [round(x, 2) for x in os.getloadavg()]
    results = []
    for r in range(runs):
        results.append(one_run(sides, memories, recalls))
        if baseline is not None:
            results[-1].update(children(baseline, memories, recalls, r))
        say(f"run {r + 1}/{runs}: " + ", ".join(f"{k} {v}" for k, v in results[-1].items()))
    medians = {k: round(statistics.median(run[k] for run in results), 3) for k in results[0]}
    report: dict[str, Any] = {
        "benchmark": "tracing_cost",
        "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": {
            "cpu_count": os.cpu_count(),
            "platform": platform.platform(),
            "python": platform.python_version(),
        },
        "settings": {"memories": memories, "recalls": recalls, "runs": runs, "sides": sides},
        "runs": results,
        "median": medians,
        "load_average": {"start": load_start, "end": [round(x, 2) for x in os.getloadavg()]},
        "wall_time_s": round(time.time() - started, 1),
    }
    if "off_p50_ms" in medians and "on_p50_ms" in medians:
        report["on_over_off"] = round(medians["on_p50_ms"] / medians["off_p50_ms"], 3)
    if "off_cpu_p50_ms" in medians and "on_cpu_p50_ms" in medians:
        report["on_over_off_cpu"] = round(medians["on_cpu_p50_ms"] / medians["off_cpu_p50_ms"], 3)
    if "off_baseline_child_p50_ms" in medians:
        ratio = medians["off_child_p50_ms"] / medians["off_baseline_child_p50_ms"]
        report["off_over_baseline"] = round(ratio, 3)
        cpu = medians["off_child_cpu_p50_ms"] / medians["off_baseline_child_cpu_p50_ms"]
        report["off_over_baseline_cpu"] = round(cpu, 3)
    return report


def tracing_section(report: dict[str, Any], source: str) -> list[str]:
    """The `tracing` section of docs/benchmarks.md."""
    m, la, st = report["machine"], report["load_average"], report["settings"]
    med = report["median"]
    rows = [
        ("tracing off", "off"),
        ("tracing on, every trace sampled", "on"),
        ("off, this code (child process)", "off_child"),
        ("off, code without tracing (child process)", "off_baseline_child"),
    ]
    table = [
        f"| {name} | {med[key + '_p50_ms']} | {med[key + '_cpu_p50_ms']} |"
        for name, key in rows
        if key + "_p50_ms" in med
    ]
    lines = [
        "## Tracing cost (`tracing`)",
        "",
        f"Source `{source}`, run {report['date']}, {m['cpu_count']} CPUs, {m['platform']}, "
        f"Python {m['python']}. Load average at start {la['start']}, at end {la['end']}; "
        f"wall time {report['wall_time_s']} s.",
        "",
        f"Recall p50 through the recall service, {st['memories']} memories, {st['recalls']} "
        f"recalls per side and run, median of {st['runs']} runs; the traced side exports "
        "every span (batch processor, JSON lines to /dev/null).",
        "",
        "| recall p50 (ms, median of runs) | wall | CPU of the recall's thread |",
        "| --- | ---: | ---: |",
        *table,
        "",
    ]
    if "on_over_off" in report:
        lines.append(
            f"- on / off, same process: {report['on_over_off']} wall, "
            f"{report.get('on_over_off_cpu')} CPU"
        )
    if "off_over_baseline" in report:
        lines.append(
            f"- off / code without tracing: {report['off_over_baseline']} wall, "
            f"{report['off_over_baseline_cpu']} CPU (separate processes, one after the "
            "other: wall time there carries the machine's load of the moment)"
        )
    return [*lines, ""]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--sides", default="off,on")
    parser.add_argument("--memories", type=int, default=2000)
    parser.add_argument("--recalls", type=int, default=400)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    configure("console", "WARNING")
    sides = [s for s in args.sides.split(",") if s]
    report = run_tracing_cost(
        sides, args.memories, args.recalls, args.runs, lambda line: print(line, file=sys.stderr)
    )
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
