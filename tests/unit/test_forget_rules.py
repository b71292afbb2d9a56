"""A forget of a whole bank or by filter covers retains accepted before it that arrive
after it (held by a worker waiting for the bank's lock, or out a retry); retains
accepted after it are kept."""

import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fakeredis
import pytest

from contracts.events import RetainEvent
from contracts.forget import ForgetEvent, ForgetFilter, ForgetRule
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from sediment.bootstrap import bootstrap
from sediment.forgetting import forget as forget_in
from sediment.settings import Settings
from tests.helpers import edge_consolidator, event, mid
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.forget import forget
from worker.forget_rules import RULE_MIN_AGE_S, prunable
from worker.ledger import Entry, Kind, Ledger, event_key
from worker.tombstones import FileTombstones, MemoryTombstones, RedisTombstones, Tombstones

EMB = HashEmbedder(64)
BANK = "b1"
FORGET_AT = datetime(2025, 3, 1, 12, 0, tzinfo=UTC)
BEFORE = FORGET_AT - timedelta(seconds=5)
AFTER = FORGET_AT + timedelta(seconds=5)


@pytest.fixture
def cons(tmp_path: Path) -> Consolidator:
    return edge_consolidator(tmp_path, EMB)


def forget_all(bank: str = BANK, **selector: object) -> ForgetEvent:
    chosen = selector or {"all_memories": True}
    return ForgetEvent(event_id=uuid.uuid4(), bank_id=bank, requested_at=FORGET_AT, **chosen)  # type: ignore[arg-type]


def texts(cons: Consolidator, bank: str = BANK) -> list[str]:
    return sorted(p.record.text for p in cons.store.scroll(Filter(bank)))


def test_a_retain_accepted_before_a_bank_forget_and_arriving_after_it_is_forgotten(
    cons: Consolidator,
) -> None:
    consolidate([event("Ana lives in Porto.")], cons)
    late = event("Ana's PIN is 4417.", 1)
    forget(forget_all(), cons)
    outcomes = consolidate([late], cons, {mid(late): BEFORE})
    assert [o.status for o in outcomes] == [Status.FORGOTTEN]
    assert texts(cons) == []
    assert cons.tombstones.forgotten(BANK, [mid(late)]) == {mid(late)}
    again = consolidate([late], cons)  # a redelivery without its header stays forgotten
    assert [o.status for o in again] == [Status.FORGOTTEN] and texts(cons) == []


def test_a_retain_accepted_after_the_forget_is_kept(cons: Consolidator) -> None:
    forget(forget_all(), cons)
    new = event("Ana lives in Lisbon.", 2)
    assert [o.status for o in consolidate([new], cons, {mid(new): AFTER})] == [Status.STORED]
    assert texts(cons) == ["Ana lives in Lisbon."]


def test_a_retain_with_no_known_acceptance_time_is_kept(cons: Consolidator) -> None:
    """A raw `send_task` without the publish header counts as accepted when taken."""
    forget(forget_all(), cons)
    assert [o.status for o in consolidate([event("Ana lives in Faro.")], cons)] == [Status.STORED]


def test_a_filter_rule_covers_only_what_its_filter_selects(cons: Consolidator) -> None:
    forget(forget_all(filter=ForgetFilter(tags=["private"])), cons)
    secret = event("Ana's PIN is 4417.", tags=["private"])
    public = event("Ana likes jazz.", 1)
    accepted = {mid(secret): BEFORE, mid(public): BEFORE}
    outcomes = consolidate([secret, public], cons, accepted)
    assert [o.status for o in outcomes] == [Status.FORGOTTEN, Status.STORED]
    assert texts(cons) == ["Ana likes jazz."]


def test_a_rule_holds_only_in_its_bank(cons: Consolidator) -> None:
    forget(forget_all("other"), cons)
    kept = event("Ana likes jazz.")
    assert [o.status for o in consolidate([kept], cons, {mid(kept): BEFORE})] == [Status.STORED]


def test_a_forget_by_ids_leaves_no_rule(cons: Consolidator) -> None:
    e = event("Ana likes jazz.")
    forget(forget_all(memory_ids=[uuid.uuid4()]), cons)
    assert cons.tombstones.rules(BANK) == []
    assert [o.status for o in consolidate([e], cons, {mid(e): BEFORE})] == [Status.STORED]


@pytest.mark.parametrize("kind", ["memory", "file", "redis"])
def test_every_tombstone_store_keeps_rules_once_oldest_first(kind: str, tmp_path: Path) -> None:
    stores: dict[str, Tombstones] = {
        "memory": MemoryTombstones(),
        "file": FileTombstones(tmp_path / "tombstones.jsonl"),
        "redis": RedisTombstones(fakeredis.FakeRedis()),
    }
    store = stores[kind]
    late = ForgetRule(bank_id=BANK, forget_event_id=uuid.UUID(int=2), accepted_at=AFTER)
    early = ForgetRule(
        bank_id=BANK,
        forget_event_id=uuid.UUID(int=1),
        filter=ForgetFilter(tags=["x"]),
        accepted_at=BEFORE,
    )
    for rule in (late, early, late):
        store.add_rule(rule)
    store.add_rule(late.model_copy(update={"bank_id": "other"}))
    assert store.rules(BANK) == [early, late]
    assert store.rules("none") == []


NOW = FORGET_AT + timedelta(hours=1)


def rule(seconds_before_now: float, n: int) -> ForgetRule:
    return ForgetRule(
        bank_id=BANK,
        forget_event_id=uuid.UUID(int=n),
        accepted_at=NOW - timedelta(seconds=seconds_before_now),
    )


def test_a_rule_older_than_every_retain_still_owed_is_prunable() -> None:
    old, needed, young = rule(600, 1), rule(300, 2), rule(10, 3)
    rules = [old, needed, young]
    owed_since = NOW - timedelta(seconds=400)  # a retain accepted then is still owed
    assert prunable(rules, owed_since, NOW) == [old]
    assert prunable(rules, NOW - timedelta(seconds=300), NOW) == [old]  # at its time: kept
    assert prunable(rules, None, NOW) == [old, needed]  # nothing owed: by age alone
    assert prunable(rules, NOW, NOW) == [old, needed]  # the minimum age keeps `young`
    assert RULE_MIN_AGE_S > 10


@pytest.mark.parametrize("kind", ["memory", "file", "redis"])
def test_every_tombstone_store_drops_rules(kind: str, tmp_path: Path) -> None:
    stores: dict[str, Tombstones] = {
        "memory": MemoryTombstones(),
        "file": FileTombstones(tmp_path / "tombstones.jsonl"),
        "redis": RedisTombstones(fakeredis.FakeRedis()),
    }
    store = stores[kind]
    kept, dropped = rule(10, 1), rule(600, 2)
    other = rule(600, 3).model_copy(update={"bank_id": "other"})
    for r in (kept, dropped, other):
        store.add_rule(r)
    store.drop_rules(BANK, [dropped.forget_event_id, uuid.UUID(int=99)])
    assert store.rules(BANK) == [kept] and store.rules("other") == [other]


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


def owed(ledger: Ledger, e: RetainEvent, at: datetime) -> None:
    """`e` published through the ledger at `at`, not yet handled."""
    entry = Entry(Kind.RETAIN, event_key(e.bank_id, e.event_id), "q", {}, 0, at.timestamp())
    ledger.record([entry], at.timestamp())


def test_rules_are_pruned_once_no_retain_owed_can_need_them(cons: Consolidator) -> None:
    """A rule stays while a retain accepted before it is still owed, and goes once that
    retain is handled; the retain, arriving late, is forgotten by the rule it needed."""
    ledger = Ledger(fakeredis.FakeRedis())
    clock = Clock(NOW)
    deps = replace(cons, tombstones=RedisTombstones(fakeredis.FakeRedis()), unsettled=ledger)
    deps = replace(deps, clock=clock)
    held = event("Ana's PIN is 4417.", 0)
    owed(ledger, held, NOW - timedelta(seconds=400))
    for n, age in ((1, 600), (2, 300)):
        at = NOW - timedelta(seconds=age)
        forget(
            ForgetEvent(
                event_id=uuid.UUID(int=n), bank_id=BANK, requested_at=at, all_memories=True
            ),
            deps,
        )
    assert [r.forget_event_id.int for r in deps.tombstones.rules(BANK)] == [2]  # the first: pruned
    other = event("Ana likes jazz.", 1)
    owed(ledger, other, NOW)
    assert [o.status for o in consolidate([other], deps, {mid(other): NOW})] == [Status.STORED]
    assert [r.forget_event_id.int for r in deps.tombstones.rules(BANK)] == [2]  # `held` needs it
    ledger.settle(Kind.RETAIN, [event_key(BANK, other.event_id)])
    late = NOW - timedelta(seconds=400)
    assert [o.status for o in consolidate([held], deps, {mid(held): late})] == [Status.FORGOTTEN]
    ledger.settle(Kind.RETAIN, [event_key(BANK, held.event_id)])
    third = event("Ana likes soul.", 2)
    owed(ledger, third, NOW)
    consolidate([third], deps, {mid(third): NOW})
    assert deps.tombstones.rules(BANK) == []


def test_without_knowing_what_is_owed_no_rule_is_pruned(cons: Consolidator) -> None:
    """A consolidator wired by hand without `unsettled` keeps every rule; the bootstrap
    always says what is owed (the ledger, or `NothingOwed` in embedded commands)."""
    old = FORGET_AT - timedelta(days=30)
    forget(
        ForgetEvent(event_id=uuid.uuid4(), bank_id=BANK, requested_at=old, all_memories=True), cons
    )
    new = event("Ana likes jazz.", 1)
    consolidate([new], cons, {mid(new): AFTER})
    assert len(cons.tombstones.rules(BANK)) == 1


class CountingTombstones(RedisTombstones):
    """Counts the rules each read returns."""

    def __init__(self) -> None:
        super().__init__(fakeredis.FakeRedis())
        self.reads: list[int] = []

    def rules(self, bank_id: str) -> list[ForgetRule]:
        found = super().rules(bank_id)
        self.reads.append(len(found))
        return found


def test_batch_rule_reads_stay_bounded_after_many_forgets(cons: Consolidator) -> None:
    """3,000 filter forgets, one a second: a retain batch afterwards reads the rules of
    the last minute only (`RULE_MIN_AGE_S`), not one per forget ever made."""
    ledger = Ledger(fakeredis.FakeRedis())
    clock = Clock(NOW)
    stones = CountingTombstones()
    deps = replace(cons, tombstones=stones, unsettled=ledger, clock=clock)
    consolidate([event("Ana likes jazz.", 0)], deps)
    for n in range(3000):
        clock.at = NOW + timedelta(seconds=n)
        flt = ForgetFilter(tags=[f"t{n}"])
        forget(
            ForgetEvent(
                event_id=uuid.UUID(int=n + 1), bank_id=BANK, requested_at=clock.at, filter=flt
            ),
            deps,
        )
    stones.reads.clear()
    for day in range(1, 6):
        e = event(f"Ana met Bo on day {day}.", day)
        owed(ledger, e, clock.at)
        consolidate([e], deps, {mid(e): clock.at})
        ledger.settle(Kind.RETAIN, [event_key(BANK, e.event_id)])
    bound = int(RULE_MIN_AGE_S) + 1
    assert stones.reads and max(stones.reads) <= bound, stones.reads
    assert len(stones.rules(BANK)) <= bound


def test_embedded_forgets_keep_the_stored_rule_count_bounded(tmp_path: Path) -> None:
    """Embedded commands consolidate each retain as they publish it and owe nothing: 300
    filter forgets a second apart, the last one now, leave in `forget-rules.jsonl` the
    rules of the last minute only (`RULE_MIN_AGE_S`), not one per forget ever made."""
    data = tmp_path / "data"
    rt = bootstrap(Settings(_env_file=None, mode="embedded", data_dir=data, embedder="hash"))  # type: ignore[call-arg]
    rt.publisher.publish_retain([event("Ana likes jazz.", 0)])
    start = datetime.now(UTC) - timedelta(seconds=299)
    for n in range(300):
        forget_in(rt.publisher, BANK, tags=[f"t{n}"], now=start + timedelta(seconds=n))
    rules = rt.tombstones.rules(BANK)
    rt.close()
    assert rules and rules[-1].accepted_at == start + timedelta(seconds=299)
    assert len(rules) <= RULE_MIN_AGE_S + 1
    stored = (data / "forget-rules.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(stored) == len(rules)
