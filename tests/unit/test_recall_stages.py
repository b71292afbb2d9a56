"""Recall skeleton stages, each alone, table-driven."""

import uuid
from collections.abc import Sequence
from datetime import timedelta

import pytest

from contracts.memory import Observation, Relation, State
from readmodel.recall.candidate import Candidate
from readmodel.recall.fetch import merge_hits
from readmodel.recall.fusion import rrf
from readmodel.recall.observations import prefer_observations
from readmodel.recall.order import rank
from readmodel.recall.state import chain_heads, resolve_current
from readmodel.store import Hit, Record
from tests.helpers import T0, memory


def superseded(m: Record, by: Record) -> Record:
    return m.model_copy(
        update={
            "state": State.SUPERSEDED,
            "superseded_by": by.id,
            "relation": Relation.EVOLVED_INTO,
        }
    )


class CountingFetch:
    def __init__(self, records: Sequence[Record]) -> None:
        self.records = {r.id: r for r in records}
        self.calls: list[list[uuid.UUID]] = []

    def __call__(self, ids: Sequence[uuid.UUID]) -> list[Record]:
        self.calls.append(list(ids))
        return [self.records[i] for i in ids if i in self.records]


def chain(n: int) -> list[Record]:
    """n states of one fact, each superseded by the next."""
    states: list[Record] = [memory(f"state {i}", i) for i in range(n)]
    for i in range(n - 2, -1, -1):
        states[i] = superseded(states[i], states[i + 1])
    return states


def test_chain_a_b_c_returns_c_replacing_a() -> None:
    a, b, c = chain(3)
    fetch = CountingFetch([a, b, c])
    out = resolve_current([Candidate(a, score=0.9)], fetch)
    assert [x.id for x in out] == [c.id]
    assert out[0].state_replaces == a.id
    assert len(fetch.calls) == 2


def test_cycle_terminates() -> None:
    a, b = memory("a", 0), memory("b", 1)
    a2, b2 = superseded(a, b), superseded(b, a)
    heads = chain_heads([a2], CountingFetch([a2, b2]))
    assert heads[a.id].id in {a.id, b.id}


def test_depth_six_stops_after_five_hops() -> None:
    states = chain(7)
    heads = chain_heads([states[0]], CountingFetch(states))
    assert heads[states[0].id].id == states[5].id


def test_no_superseded_candidates_means_no_store_round() -> None:
    fetch = CountingFetch([])
    resolve_current([Candidate(memory("x", 0), score=1.0)], fetch)
    assert fetch.calls == []


def test_head_already_present_is_not_duplicated() -> None:
    a, b = chain(2)
    out = resolve_current([Candidate(a, score=0.5), Candidate(b, score=0.9)], CountingFetch([a, b]))
    assert [x.id for x in out] == [b.id]


def observation_of(*members: Record) -> Observation:
    latest = members[-1]
    return Observation(
        id=uuid.uuid4(),
        bank_id="b1",
        text=latest.text,
        occurred_at=latest.occurred_at,
        created_at=T0,
        source_memory_ids=[m.id for m in members],
        proof_count=len(members),
        first_occurred_at=members[0].occurred_at,
        last_occurred_at=latest.occurred_at,
    )


def test_prefer_observations_drops_members_and_backfills_to_the_limit() -> None:
    m1, m2 = memory("Alice hikes", 0), memory("Alice hikes a lot", 1)
    others = [memory(f"other {i}", i) for i in range(5)]
    obs = observation_of(m1, m2)
    cands = [Candidate(m1, score=0.99), Candidate(obs, score=0.98), Candidate(m2, score=0.97)]
    cands += [Candidate(o, score=0.5 - i / 100) for i, o in enumerate(others)]
    kept, dropped = prefer_observations(cands)
    assert dropped == 2
    shown = rank(kept, 3)
    assert len(shown) == 3 and shown[0].id == obs.id and m1.id not in [c.id for c in shown]


@pytest.mark.parametrize("days", [1, 30])
def test_exact_ties_order_newest_first_then_id(days: int) -> None:
    old, new = memory("old", 0), memory("new", days)
    shown = rank([Candidate(old, score=0.5), Candidate(new, score=0.5)], 10)
    assert [c.id for c in shown] == [new.id, old.id]
    same = [memory(f"t{i}", 0) for i in range(3)]
    shown = rank([Candidate(m, score=0.5) for m in same], 10)
    assert [str(c.id) for c in shown] == sorted(str(m.id) for m in same)


def test_rrf_rewards_agreement_and_stays_in_unit_range() -> None:
    both, dense_only = memory("both", 0), memory("dense", 0)
    fused = rrf(
        [Candidate(both, vector_rank=1, keyword_rank=1), Candidate(dense_only, vector_rank=1)]
    )
    assert fused[0].score == pytest.approx(1.0)
    assert 0 < fused[1].score < fused[0].score


def test_merge_hits_normalises_keyword_scores_to_at_most_one() -> None:
    a, b = memory("a", 0), memory("b", 0)
    out = {c.id: c for c in merge_hits([Hit(a, 0.2)], [Hit(a, 11.0), Hit(b, 5.5)])}
    assert out[a.id].keyword == 1.0 and out[b.id].keyword == pytest.approx(0.5)
    assert out[a.id].vector == pytest.approx(0.2)
    assert out[b.id].vector_rank is None and out[a.id].keyword_rank == 1


def test_timestamps_only_break_ties() -> None:
    old, new = memory("old", 0), memory("new", 9)
    shown = rank([Candidate(old, score=0.6), Candidate(new, score=0.5)], 10)
    assert shown[0].id == old.id
    assert new.occurred_at - old.occurred_at == timedelta(days=9)
