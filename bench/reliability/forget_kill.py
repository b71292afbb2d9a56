"""Forget during in-flight retains, kill -9 of `sediment serve`: a client retains
`requests` x `per_request` memories in a bank over HTTP, forgets the whole bank
(`DELETE /v1/banks/{bank}`) while `serve` (standalone: it consumes in-process) is still
consolidating them, and `serve` is killed -9 0.3 to 3 s later, or sooner once half the
bank's retains owed at the forget are handled (a small run, `--quick`, would otherwise
have handled them all and test nothing), then started again.
What it held comes back by every redelivery path (kombu's restore of the `unacked`
messages of a dead consumer, the ledger's republish of a message lost between the queue
and `unacked`), after the forget: each retain must still be judged by the time it was
accepted, so none of them may be left stored. Retains accepted once the forget is
handled are kept. The same checks, small, run with the tests:
tests/integration/test_forget_redelivered.py (one redelivery path each).
"""

import json
import random
import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import httpx

from bench.reliability.cluster import TOKEN, Broker, Node, Proc, RedisServer, running, wait_for
from bench.reliability.workload import expected_ids, make_events
from contracts.events import RetainEvent
from readmodel.store import Filter
from worker.ledger import Kind, Ledger

SETTLE_S = 600.0
KILL_AFTER_S = (0.3, 3.0)
LATER = 50
"""Retains accepted after each round's forget."""
KILL_AT_OWED = 0.5
"""The kill comes no later than when this share of the bank's retains owed at the
forget is still owed, so that the kill finds retains in flight."""
POLL_S = 0.02


@dataclass
class ForgetKill:
    """Over `rounds` rounds (a bank each): `before_*`, retains accepted before the forget
    (`before_stored` must be 0); `later_*`, accepted after it was handled (all stored).
    Per round: seconds from the DELETE to the kill, the bank's retains still owed by the
    ledger at the kill (in flight, the case really happened), and seconds from the
    restart until nothing was queued, held or owed. From serve's logs: messages restored
    from `unacked` and events republished by the ledger's sweeper, over all rounds."""

    rounds: int
    per_request: int
    requests: int
    before_sent: int = 0
    before_stored: int = 0
    later_sent: int = 0
    later_stored: int = 0
    kill_after_s: list[float] = field(default_factory=list)
    owed_at_kill: list[int] = field(default_factory=list)
    settled_s: list[float] = field(default_factory=list)
    restored_messages: int = 0
    republished_events: int = 0


def _post(client: httpx.Client, base: str, bank: str, events: list[RetainEvent]) -> None:
    body = {"items": [e.model_dump(mode="json", exclude={"bank_id"}) for e in events]}
    r = client.post(f"{base}/v1/banks/{bank}/memories", json=body)
    if r.status_code != 202:
        raise RuntimeError(f"retain refused: {r.status_code} {r.text[:200]}")


def _forget_handled(ledger: Ledger, bank: str) -> bool:
    return not ledger.pending(Kind.FORGET, bank)


def _until_kill(ledger: Ledger, bank: str, delay_s: float) -> None:
    """Wait `delay_s`, or less: until no more than `KILL_AT_OWED` of the bank's retains
    owed now are still owed."""
    bound = ledger.pending_count(Kind.RETAIN, bank) * KILL_AT_OWED
    deadline = time.monotonic() + delay_s
    while time.monotonic() < deadline and ledger.pending_count(Kind.RETAIN, bank) > bound:
        time.sleep(POLL_S)


def forget_kill(
    server: RedisServer, workdir: Path, rounds: int, per_request: int, requests: int = 2
) -> ForgetKill:
    node = Node(server.url, workdir, "forget-kill")
    broker = Broker(server.client(), node.queue, server.url)
    ledger = Ledger(server.client())
    proc = Proc.serve(node)
    rng = random.Random(17)
    result = ForgetKill(rounds, per_request, requests)
    before: dict[str, list[RetainEvent]] = {}
    later: dict[str, list[RetainEvent]] = {}
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with running(proc), httpx.Client(timeout=120, headers=headers) as client:
        for r in range(rounds):
            bank = f"forget-kill-{r}"
            before[bank] = make_events(f"{bank}-before", requests * per_request, [bank])
            for i in range(requests):
                _post(client, proc.base_url, bank, before[bank][i * per_request :][:per_request])
            gone = client.delete(f"{proc.base_url}/v1/banks/{bank}")
            if gone.status_code != 202:
                raise RuntimeError(f"forget refused: {gone.status_code} {gone.text[:200]}")
            asked = time.monotonic()
            _until_kill(ledger, bank, rng.uniform(*KILL_AFTER_S))
            result.owed_at_kill.append(len(ledger.pending(Kind.RETAIN, bank)))
            proc.kill9()
            result.kill_after_s.append(round(time.monotonic() - asked, 2))
            proc.start()
            restarted = time.monotonic()
            wait_for(proc.healthy, 120, "serve to start again")
            wait_for(partial(_forget_handled, ledger, bank), SETTLE_S, "the forget")
            later[bank] = make_events(f"{bank}-later", LATER, [bank])
            _post(client, proc.base_url, bank, later[bank])
            wait_for(broker.settled, SETTLE_S, "the retains and the forget")
            result.settled_s.append(round(time.monotonic() - restarted, 1))
    _redelivered(node, result)
    return _counted(node, result, before, later)


def _redelivered(node: Node, result: ForgetKill) -> None:
    """The sweeper's `restored_unacked` and `republished` log lines (JSON) of every
    serve process of the node."""
    for path in sorted((node.workdir / node.name).glob("serve-*.log")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if not isinstance(entry, dict):
                continue
            if entry.get("event") == "restored_unacked":
                result.restored_messages += int(entry.get("messages", 0))
            elif entry.get("event") == "republished":
                result.republished_events += int(entry.get("events", 0))


def _counted(
    node: Node,
    result: ForgetKill,
    before: dict[str, list[RetainEvent]],
    later: dict[str, list[RetainEvent]],
) -> ForgetKill:
    rt = node.runtime()
    try:
        for bank in before:
            stored = {p.record.id for p in rt.store.scroll(Filter(bank))}
            result.before_sent += len(before[bank])
            result.before_stored += len(stored & expected_ids(before[bank]))
            result.later_sent += len(later[bank])
            result.later_stored += len(stored & expected_ids(later[bank]))
    finally:
        rt.close()
    return result


def forget_kill_verdicts(f: dict[str, Any]) -> list[tuple[str, str, str, bool]]:
    """(check, measured, target, met) rows of the summary table."""
    owed = sum(f["owed_at_kill"])
    return [
        (
            "retains accepted before a bank forget, left stored after a kill -9 of serve",
            f"{f['before_stored']} of {f['before_sent']} ({owed} still owed at the kills)",
            "0",
            f["before_stored"] == 0 and owed > 0,
        ),
        (
            "retains accepted after that forget, stored",
            f"{f['later_stored']} of {f['later_sent']}",
            f"= {f['later_sent']}",
            f["later_stored"] == f["later_sent"],
        ),
    ]


def forget_kill_section(f: dict[str, Any]) -> list[str]:
    ran = f.get("ran_alone")
    rows = [
        f"| {i + 1} | {after} s | {owed} | {settled} s |"
        for i, (after, owed, settled) in enumerate(
            zip(f["kill_after_s"], f["owed_at_kill"], f["settled_s"], strict=True)
        )
    ]
    return [
        "",
        "## Forget during in-flight retains, kill -9 of serve",
        "",
        f"{f['rounds']} rounds on a node of their own, a bank each: {f['requests']} HTTP",
        f"requests of {f['per_request']} retains, `DELETE /v1/banks/{{bank}}` while",
        "`sediment serve` still consolidates them, and serve killed -9 0.3 to 3 s after the",
        "forget (sooner once half the retains owed at the forget are handled, so that some",
        "are still in flight), then started again. What it held comes back after the",
        "forget (restored from `unacked`, or republished by the ledger's sweeper) and is",
        "judged by the time it was accepted (worker/forget_rules.py). Then retains accepted",
        "once the forget is handled.",
        "",
        "| round | kill after the forget | retains owed at the kill | settled after restart |",
        "| --- | --- | --- | --- |",
        *rows,
        "",
        f"Brought back after the kills: {f.get('restored_messages', 0)} messages restored from",
        f"`unacked`, {f.get('republished_events', 0)} events republished by the sweeper.",
        f"Before the forget: {f['before_stored']} of {f['before_sent']} left stored. After it:",
        f"{f['later_stored']} of {f['later_sent']} stored.",
        *([f"This scenario ran on its own ({ran[0]} on {ran[1]})."] if ran else []),
        "Each redelivery path, small, runs with the tests:",
        "`tests/integration/test_forget_redelivered.py`.",
    ]
