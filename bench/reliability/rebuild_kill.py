"""A rebuild killed part way: `sediment rebuild --all` over a bank of people who moved
house, timed once in full, then run again and killed -9 part way through its replay. A
rebuild resets every derived field before it replays the raw memories, so the store it
leaves answers old addresses as current; it records itself before it starts
(worker/rebuild.py), and every process that opens the store after the kill refuses it,
naming the command that finishes it, until that has run. Measured: sampled "Where does
X live?" answered with an old address (as the store stood after the kill, read past the
refusal; and once the rebuild is finished), and what `sediment recall` and `sediment
worker` do on the store the kill left. The same check, small, runs with the tests:
tests/integration/test_rebuild_killed.py.
"""

import json
import random
import subprocess
import sys
import time
import uuid
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.reliability.cluster import Broker, Node, Proc, RedisServer, running, wait_for
from contracts.events import RetainEvent
from contracts.memory import State
from contracts.recall import RecallRequest
from readmodel.store import Filter
from sediment.bootstrap import Runtime, bootstrap

BANK = "rebuild-kill"
SETTLE_S = 900.0
MOVES = 4
"""Addresses per person, the last one current."""
SAMPLE = 150
KILL_AT = 0.4
"""How far through the timed rebuild's replay the second one is killed."""
SYLLABLES = [c + v for c in "BDFGHJKLMNPRSTV" for v in "aeiou"]
ENDINGS = "ran lek mor vin dal sen tor bik nas lun gar pel sim dov zan rik mel fos tam wen".split()
"""People are named by one made-up word each: a subject is never half of another's name."""
CITIES = (
    "Porto Lisbon Bergen Tromso Lyon Nantes Graz Linz Ghent Leuven Aarhus Odense Turku "
    "Tampere Cork Galway Brno Kosice Split Zadar"
).split()


@dataclass
class RebuildKill:
    """`wrong_*`: of `sampled` people, those whose top current answer to "Where does X
    live?" is not their last address: before any rebuild, as the store stood after the
    kill (read past the refusal), and after the rebuild was run again. `refused_*`: the
    exit code and message of `sediment recall` and `sediment worker` on the store the
    kill left."""

    events: int
    people: int
    sampled: int
    rebuild_s: float
    killed_at_s: float
    marker_left: bool
    old_current_after_kill: int
    wrong_before: int
    wrong_after_kill: int
    wrong_after_finish: int
    old_current_after_finish: int
    recall_exit: int
    recall_said: str
    worker_exit: int
    finish_command_named: bool


def _people(events: int) -> list[str]:
    names = [a + b for b in ENDINGS for a in SYLLABLES]
    return names[: max(1, events // MOVES)]


def _events(people: list[str]) -> tuple[list[RetainEvent], dict[str, list[str]]]:
    start = datetime(2023, 1, 1, tzinfo=UTC)
    rng = random.Random(7)
    out, homes = [], {}
    for k, name in enumerate(people):
        homes[name] = rng.sample(CITIES, MOVES)
        for j, city in enumerate(homes[name]):
            out.append(
                RetainEvent(
                    event_id=uuid.uuid5(uuid.NAMESPACE_OID, f"rebuild-kill-{name}-{j}"),
                    bank_id=BANK,
                    text=f"{name} lives in {city}.",
                    occurred_at=start + timedelta(days=40 * j, minutes=k),
                )
            )
    return out, homes


def _wrong(rt: Runtime, homes: dict[str, list[str]], sample: list[str]) -> int:
    wrong = 0
    for name in sample:
        request = RecallRequest(query=f"Where does {name} live?", limit=5)
        results = rt.recall_pipeline.recall(BANK, request).results
        top = next((r.text for r in results if r.text.startswith(f"{name} lives in")), "")
        wrong += not top.endswith(f"in {homes[name][-1]}.")
    return wrong


def _old_current(rt: Runtime, homes: dict[str, list[str]]) -> int:
    """Raw memories of an address that is not the person's last, marked current."""
    old = 0
    for p in rt.store.scroll(Filter(BANK, kinds=("world", "experience"))):
        name, _, city = p.record.text.removesuffix(".").partition(" lives in ")
        old += p.record.state == State.CURRENT and city != homes[name][-1]
    return old


def _measured(node: Node, homes: dict[str, list[str]], sample: list[str]) -> tuple[int, int]:
    """(wrong sampled answers, old addresses marked current), read past any refusal."""
    rt = bootstrap(node.settings(), finishes_rebuild=True)
    try:
        return _wrong(rt, homes, sample), _old_current(rt, homes)
    finally:
        rt.close()


def _marker(node: Node) -> bool:
    try:
        meta = json.loads((node.data_dir / "store" / "store.json").read_text())
    except (FileNotFoundError, json.JSONDecodeError):
        return False
    return bool(meta.get("rebuilding"))


def _rebuild(node: Node, kill_after: float | None) -> tuple[float, float]:
    """`sediment rebuild --all`: (seconds from start until it recorded itself, seconds
    until it finished or was killed); killed -9 `kill_after` seconds after it recorded
    itself."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "sediment.cli", "rebuild", "--all"],
        env=node.env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    start = time.monotonic()
    wait_for(lambda: _marker(node) or proc.poll() is not None, SETTLE_S, "the rebuild", 0.01)
    marked = time.monotonic() - start
    if kill_after is None:
        proc.wait(SETTLE_S)
        return marked, time.monotonic() - start
    time.sleep(kill_after)
    proc.kill()
    proc.wait(30)
    return marked, time.monotonic() - start


def _cli(node: Node, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """The command's exit code and output; one still running after `timeout` (a worker
    that did not refuse) is stopped and reported as exit -1."""
    try:
        return subprocess.run(
            [sys.executable, "-m", "sediment.cli", *args],
            env=node.env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        return subprocess.CompletedProcess(exc.cmd, -1, "", str(exc.stderr or ""))


def rebuild_kill(server: RedisServer, workdir: Path, events: int) -> RebuildKill:
    node = Node(server.url, workdir, "rebuild-kill")
    broker = Broker(server.client(), node.queue)
    people = _people(events)
    stream, homes = _events(people)
    sample = random.Random(11).sample(people, min(SAMPLE, len(people)))
    with running(Proc.worker(node)):
        node.runtime().publisher.publish_retain(stream)
        wait_for(broker.settled, SETTLE_S, "the retains")
    wrong_before, _ = _measured(node, homes, sample)
    marked, total = _rebuild(node, None)
    replay = total - marked
    _, killed = _rebuild(node, KILL_AT * replay)
    marker_left = _marker(node)
    wrong_after_kill, old_after_kill = _measured(node, homes, sample)
    recall = _cli(node, "recall", f"Where does {sample[0]} live?", "--bank", BANK)
    said = " ".join(recall.stderr.split())
    worker = _cli(node, "worker", "--pool", "solo", timeout=60)
    finish = _cli(node, "rebuild", "--all")
    if finish.returncode != 0:
        raise RuntimeError(f"sediment rebuild --all failed: {finish.stderr}")
    wrong_after, old_after = _measured(node, homes, sample)
    return RebuildKill(
        events=len(stream),
        people=len(people),
        sampled=len(sample),
        rebuild_s=round(total, 1),
        killed_at_s=round(killed, 1),
        marker_left=marker_left,
        old_current_after_kill=old_after_kill,
        wrong_before=wrong_before,
        wrong_after_kill=wrong_after_kill,
        wrong_after_finish=wrong_after,
        old_current_after_finish=old_after,
        recall_exit=recall.returncode,
        recall_said=said[:400],
        worker_exit=worker.returncode,
        finish_command_named="run `sediment rebuild --all` to finish it" in said,
    )


def rebuild_verdicts(f: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) rows of the summary table."""
    refused = f["recall_exit"] == 2 and f["worker_exit"] == 2 and f["finish_command_named"]
    return [
        (
            "a store left by `sediment rebuild --all` killed -9 part way, refused on open "
            "(recall, worker) naming the command that finishes it",
            f"recall exit {f['recall_exit']}, worker exit {f['worker_exit']}, command "
            f"{'named' if f['finish_command_named'] else 'not named'}",
            "both refused (exit 2), `sediment rebuild --all` named",
            refused and f["marker_left"],
        ),
        (
            "sampled answers wrong once the rebuild is run again",
            f"{f['wrong_after_finish']} of {f['sampled']} (before any rebuild: "
            f"{f['wrong_before']})",
            f"<= {f['wrong_before']}",
            f["wrong_after_finish"] <= f["wrong_before"],
        ),
    ]


def rebuild_section(f: dict[str, Any]) -> list[str]:
    ran = f.get("ran_alone")
    return [
        "",
        "## Rebuild killed part way",
        "",
        f"{f['events']} events on a node of its own: {f['people']} people, each said to live",
        f"in {MOVES} cities one after another (the last current). `sediment rebuild --all`",
        f"took {f['rebuild_s']} s in full; run again, it was killed -9 {f['killed_at_s']} s",
        f"after it started ({KILL_AT:.0%} through its replay). What the kill left, read past",
        f"the refusal: {f['old_current_after_kill']} old addresses marked current, and",
        f'{f["wrong_after_kill"]} of {f["sampled"]} sampled "Where does X live?" answered',
        f"with an old address (before any rebuild: {f['wrong_before']}). The rebuild's",
        f"record was {'left in' if f['marker_left'] else 'missing from'} the store, and the",
        f"next processes refused it: `sediment recall` exit {f['recall_exit']} "
        f'("{f["recall_said"]}"), `sediment worker` exit {f["worker_exit"]}. Once',
        "`sediment rebuild --all` had run again: "
        f"{f['wrong_after_finish']} of {f['sampled']} wrong, "
        f"{f['old_current_after_finish']} old addresses marked current.",
        *([f"This scenario ran on its own ({ran[0]} on {ran[1]})."] if ran else []),
        "The same check runs with the tests: `tests/integration/test_rebuild_killed.py`",
        "(and `tests/unit/test_rebuild_interrupted.py`).",
    ]
