"""A forget of a whole bank or by filter covers retains accepted before it that arrive
after it (held by a worker waiting for the bank's lock, or out a retry); retains
accepted after it are kept."""

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import fakeredis
import pytest

from contracts.forget import ForgetEvent, ForgetFilter, ForgetRule
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from tests.helpers import edge_consolidator, event, mid
from worker.consolidation.consolidator import Consolidator, Status, consolidate
from worker.forget import forget
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
