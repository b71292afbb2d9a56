"""`sediment ingest` as a user runs it: a JSON-lines file of short generated events
(bench/workload.py: facts about people, updates of them, episodes) into a fresh data
directory, embedded mode, timed from the command's start to its exit.

Run with `python -m bench.ingest_cli --events 20000 --runs 3 [--code DIR ...]`: each
`--code` is a checkout whose code the command runs (put first on PYTHONPATH), so two
versions are measured interleaved in one session, each run in a fresh process and a
fresh data directory; the median events/s of each, and each run's ratio to the first
checkout's run of the same round.
"""

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Final

from bench.record import machine, now_iso
from bench.workload import events as workload_events

DEFAULT_EVENTS = 20_000
BENCHMARK: Final = "ingest_cli"


def write_jsonl(path: Path, count: int, banks: int = 1, seed: int = 7) -> int:
    """`count` events (in `banks` banks) as JSON lines; the same arguments write the
    same bytes."""
    per_bank = max(1, count // banks)
    n = 0
    with path.open("w", encoding="utf-8") as out:
        for event in workload_events(banks, per_bank, seed=seed):
            line = {
                "event_id": str(event.event_id),
                "bank_id": event.bank_id,
                "text": event.text,
                "occurred_at": event.occurred_at.isoformat(),
                "entities": event.entities,
            }
            out.write(json.dumps(line) + "\n")
            n += 1
    return n


def ingest_seconds(code: Path, jsonl: Path, data_dir: Path, embedder: str) -> float:
    """Wall time of one `sediment ingest` process running `code`, fresh `data_dir`."""
    return ingest_times(code, jsonl, data_dir, embedder)[0]


def ingest_times(code: Path, jsonl: Path, data_dir: Path, embedder: str) -> tuple[float, float]:
    """Wall time and CPU time (user and system) of one `sediment ingest` process running
    `code`, fresh `data_dir`. On a machine others share, the CPU time moves less with
    their load than the wall time does."""
    env = {
        **os.environ,
        "PYTHONPATH": str(code),
        "SEDIMENT_MODE": "embedded",
        "SEDIMENT_DATA_DIR": str(data_dir),
        "SEDIMENT_EMBEDDER": embedder,
        "SEDIMENT_LOG_LEVEL": "WARNING",
    }
    command = [sys.executable, "-c", "from sediment.cli import main; main()", "ingest"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(
        [*command, str(jsonl)], env=env, cwd=code, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"sediment ingest ({code}) exited {done.returncode}:\n{done.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu


STATES = """
import json, sys
from pathlib import Path
from readmodel.store import Filter
from readmodel.stores.edge import EdgeStore
store = EdgeStore(Path(sys.argv[1]))
try:
    raw = {}
    for bank in store.banks():
        for p in store.scroll(Filter(bank)):
            if p.record.kind in ("world", "experience"):
                raw[p.record.id] = p.record
finally:
    store.close()
by = [(r, raw.get(r.superseded_by)) for r in raw.values() if r.superseded_by is not None]
crossed = sum(1 for r, n in by if n is not None and not set(r.entities) & set(n.entities))
print(json.dumps({"raw": len(raw), "superseded": len(by), "by_another_person": crossed}))
"""
"""Run with a checkout's code on the data directory an ingest left: its raw memories,
those superseded, and those superseded by a memory of another person (no entity in
common). Every event of the workload names one person and says nothing of anyone else,
so the last must be 0."""


def states(code: Path, data_dir: Path) -> dict[str, int]:
    """What `STATES` counts in `data_dir`, read with `code`."""
    env = {**os.environ, "PYTHONPATH": str(code), "SEDIMENT_LOG_LEVEL": "WARNING"}
    done = subprocess.run(
        [sys.executable, "-c", STATES, str(data_dir / "store")],
        env=env,
        cwd=code,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"reading the states ({code}) exited {done.returncode}:\n{done.stderr}")
    found: dict[str, int] = json.loads(done.stdout.strip().splitlines()[-1])
    return found


def _commit(code: Path) -> str:
    done = subprocess.run(
        ["git", "-C", str(code), "rev-parse", "--short", "HEAD"],
        capture_output=True,
        text=True,
        check=False,
    )
    return done.stdout.strip() or "unknown"


def section(report: dict[str, Any], source: str) -> list[str]:
    """The page's section (`sediment-bench report`): each checkout's runs and medians,
    and each run's ratio to the first checkout's run of the same round."""
    codes = list(report["eps"])
    m = report["machine"]
    lines = [
        "## Ingest through the CLI, checkouts compared (`ingest_cli`)",
        "",
        f"Source `{source}`, run {report['date']}, {m['cpu_count']} CPUs, {m['platform']}, "
        f"Python {m['python']}. Load average (1, 5, 15 min) at start "
        f"{_load(report['load_start'])}, at end {_load(report['load_end'])} (the machine is "
        "shared: read the same-round ratios, and the CPU time, which the load moves less than "
        "the wall time).",
        "",
        f"`python -m bench.ingest_cli`: {report['events']:,} short events (bench/workload.py, "
        f"one bank) in a JSON-lines file through `sediment ingest` (embedded, "
        f"{report['embedder']} embedder, default batch), a fresh data directory and process "
        f"per run; {report['runs']} rounds, the checkouts interleaved in each. events/s: "
        "events over the command's wall time; per CPU second: over its user and system time.",
        "",
        "| checkout | commit | events/s, each round | median events/s | ratio to first, "
        "each round | median events per CPU second | CPU ratio to first, each round |",
        "| --- | --- | --- | ---: | --- | ---: | --- |",
    ]
    for i, code in enumerate(codes):
        cells = [
            "before" if i == 0 and len(codes) == 2 else ("after" if len(codes) == 2 else code),
            report["commits"].get(code, ""),
            ", ".join(f"{x:.1f}" for x in report["eps"][code]),
            f"{report['median_eps'][code]:.1f}",
            ", ".join(f"{x:.2f}" for x in report["ratio_to_first"][code]),
            f"{report['median_eps_per_cpu_s'][code]:.1f}",
            ", ".join(f"{x:.2f}" for x in report["cpu_ratio_to_first"][code]),
        ]
        lines.append("| " + " | ".join(cells) + " |")
    counted = report.get("states") or {}
    if counted:
        lines += [
            "",
            "What each checkout stores from the file: raw memories, those superseded, and those "
            "superseded by a memory of another person (no entity in common; every event names "
            "one person and says nothing of anyone else, so this must be 0).",
            "",
            "| checkout | commit | raw memories | superseded | by another person |",
            "| --- | --- | ---: | ---: | ---: |",
        ]
        for i, code in enumerate(codes):
            if code in counted:
                c = counted[code]
                name = "before" if i == 0 and len(codes) == 2 else code
                lines.append(
                    f"| {name} | {report['commits'].get(code, '')} | {c['raw']:,} | "
                    f"{c['superseded']:,} | {c['by_another_person']:,} |"
                )
    return [*lines, ""]


def _load(figures: list[float]) -> str:
    return "[" + ", ".join(f"{x:.2f}" for x in figures) + "]"


def _ratios(runs: dict[str, list[float]], first: str) -> dict[str, list[float]]:
    """Each run's figure over the first checkout's in the same round."""
    return {
        c: [round(x / f, 3) for x, f in zip(v, runs[first], strict=True)] for c, v in runs.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=DEFAULT_EVENTS)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--embedder", default="static")
    parser.add_argument("--code", type=Path, action="append", default=[])
    parser.add_argument("--out", type=Path, default=None, help="JSON with every run's figures")
    args = parser.parse_args(argv)
    codes: list[Path] = [c.resolve() for c in args.code] or [Path.cwd()]
    with tempfile.TemporaryDirectory(prefix="sediment-ingest-cli-") as tmp:
        root = Path(tmp)
        jsonl = root / "events.jsonl"
        count = write_jsonl(jsonl, args.events)
        runs: dict[str, list[float]] = {str(c): [] for c in codes}
        cpu_runs: dict[str, list[float]] = {str(c): [] for c in codes}
        counted: dict[str, dict[str, int]] = {}
        load_start = os.getloadavg()
        for r in range(args.runs):
            for i, code in enumerate(codes):
                data = root / f"data-{r}-{i}"
                seconds, cpu = ingest_times(code, jsonl, data, args.embedder)
                if r == 0:
                    counted[str(code)] = states(code, data)
                shutil.rmtree(data, ignore_errors=True)
                runs[str(code)].append(round(count / seconds, 1))
                cpu_runs[str(code)].append(round(count / cpu, 1))
                print(
                    f"round {r + 1} {code}: {count / seconds:.1f} events/s ({seconds:.1f} s wall, "
                    f"{cpu:.1f} s CPU: {count / cpu:.1f} events per CPU second)",
                    flush=True,
                )
        report = {
            "benchmark": BENCHMARK,
            "date": now_iso(),
            "machine": machine(),
            "commits": {str(c): _commit(c) for c in codes},
            "runs": args.runs,
            "events": count,
            "embedder": args.embedder,
            "load_start": load_start,
            "load_end": os.getloadavg(),
            "eps": runs,
            "median_eps": {c: statistics.median(v) for c, v in runs.items()},
            "ratio_to_first": _ratios(runs, str(codes[0])),
            "eps_per_cpu_s": cpu_runs,
            "median_eps_per_cpu_s": {c: statistics.median(v) for c, v in cpu_runs.items()},
            "cpu_ratio_to_first": _ratios(cpu_runs, str(codes[0])),
            "states": counted,
        }
        print(json.dumps(report, indent=2))
        if args.out is not None:
            args.out.write_text(json.dumps(report, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
