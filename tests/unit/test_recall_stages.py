"""Recall stages, each alone, table-driven: fetch merge, fusion, current state, prefer
observations at the window, deterministic order."""

import uuid
from collections.abc import Callable, Sequence
from datetime import timedelta

import pytest

from contracts.memory import Observation, Relation, State
from readmodel.recall.candidate import Candidate
from readmodel.recall.chains import carrier
from readmodel.recall.fetch import merge_hits
from readmodel.recall.fusion import Weights, rrf, weighted
from readmodel.recall.order import fill_window, rank
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


def chain(n: int, days: Sequence[int] | None = None) -> list[Record]:
    """n states of one fact, each superseded by the next (state i occurred on days[i])."""
    at = list(days) if days is not None else list(range(n))
    states: list[Record] = [memory(f"state {i}", at[i]) for i in range(n)]
    for i in range(n - 2, -1, -1):
        states[i] = superseded(states[i], states[i + 1])
    return states


def cycle() -> list[Record]:
    a, b = memory("a", 0), memory("b", 1)
    return [superseded(a, b), superseded(b, a)]


@pytest.mark.parametrize(
    ("states", "start", "head_in", "fetches"),
    [
        pytest.param(chain(3), 0, {2}, 2, id="A->B->C gives C in two batched hops"),
        pytest.param(chain(7), 0, {6}, 6, id="depth 6: the head, one hop past the old horizon"),
        pytest.param(chain(1000), 0, {999}, 999, id="1,000 states: the head, no hop horizon"),
        pytest.param(chain(2), 1, None, 0, id="a current record needs no store round"),
        pytest.param(cycle(), 0, {0, 1}, 1, id="cycle A->B->A terminates"),
    ],
)
def test_chain_heads(
    states: list[Record], start: int, head_in: set[int] | None, fetches: int
) -> None:
    fetch = CountingFetch(states)
    heads = chain_heads([states[start]], fetch)
    if head_in is None:
        assert heads == {}
    else:
        assert heads[states[start].id].id in {states[i].id for i in head_in}
    assert len(fetch.calls) == fetches


def test_walks_step_over_the_states_they_already_hold() -> None:
    """States of one chain found together are read once: a walk crosses the others'
    states without a fetch, and walks that meet share their reads."""
    states = chain(100)
    fetch = CountingFetch(states)
    found = [states[i] for i in (3, 10, 60, 97)]
    heads = chain_heads(found, fetch)
    assert {h.id for h in heads.values()} == {states[99].id}
    read = [i for call in fetch.calls for i in call]
    assert len(read) == len(set(read)) == 100 - 4 - 3  # every later state, once
    assert len(fetch.calls) == 60 - 10 - 1  # the longest run of unknown states


@pytest.mark.parametrize(
    ("ahead", "fetches"),
    [
        pytest.param(range(1000), 1, id="the whole chain read ahead after one step"),
        pytest.param(range(0, 1000, 2), 500, id="every other state: the rest by id"),
        pytest.param((), 999, id="nothing read ahead: one fetch per state"),
    ],
)
def test_states_read_ahead_spare_reads_and_never_change_the_head(
    ahead: range | tuple[int, ...], fetches: int
) -> None:
    states = chain(1000)
    strangers = [memory(f"another fact {i}", i) for i in range(3)]
    fetch = CountingFetch(states)
    asked: list[list[tuple[uuid.UUID, uuid.UUID]]] = []

    def prefetch(steps: Sequence[tuple[Record, Record]]) -> list[Record]:
        asked.append([(a.id, b.id) for a, b in steps])
        return [states[i] for i in ahead] + strangers

    heads = chain_heads([states[0]], fetch, prefetch=prefetch)
    assert heads[states[0].id].id == states[999].id
    assert asked == [[(states[0].id, states[1].id)]]  # once per walk, from its first step
    assert sum(len(c) for c in fetch.calls) == fetches


def keyed_chain(n: int, key: str = "build-server") -> list[Record]:
    return [s.model_copy(update={"key": key}) for s in chain(n)]


def test_a_keyed_state_takes_its_keys_current_state_found_with_it() -> None:
    """No walk: a key holds one current state, the end of every chain through it."""
    states = keyed_chain(1000)
    fetch = CountingFetch(states)
    heads = chain_heads([states[3], states[500], states[999]], fetch)
    assert {h.id for h in heads.values()} == {states[999].id}
    assert fetch.calls == []


def _retagged(r: Record) -> Record:
    return r.model_copy(update={"tags": ["elsewhere"]})


@pytest.mark.parametrize(
    "found",
    [
        pytest.param(lambda s: [s[0], _retagged(s[9])], id="the key's state in another tag set"),
        pytest.param(
            lambda s: [s[0], s[9], s[9].model_copy(update={"id": uuid.uuid4()})],
            id="two current states of one key",
        ),
        pytest.param(
            lambda s: [s[5], s[9].model_copy(update={"occurred_at": s[0].occurred_at})],
            id="a current state older than the state",
        ),
        pytest.param(lambda s: [s[0], s[9].model_copy(update={"key": "other"})], id="another key"),
    ],
)
def test_a_keyed_state_walks_when_its_keys_current_state_is_not_plain(
    found: Callable[[list[Record]], list[Record]],
) -> None:
    states = keyed_chain(10)
    fetch = CountingFetch(states)
    [start, *_] = found(states)
    heads = chain_heads(found(states), fetch)
    assert heads[start.id].id == states[9].id
    assert fetch.calls  # walked along `superseded_by`


def test_as_of_never_takes_a_keys_current_state_unwalked() -> None:
    states = keyed_chain(10)
    as_of = states[4].occurred_at
    heads = chain_heads([states[0], states[9]], CountingFetch(states), as_of=as_of)
    assert heads[states[0].id].id == states[4].id


def test_a_cycle_far_down_a_long_chain_ends_the_walk() -> None:
    states = chain(50)
    states[-1] = superseded(states[-1], states[20])
    heads = chain_heads([states[0]], CountingFetch(states))
    assert heads[states[0].id].id in {s.id for s in states[20:]}


@pytest.mark.parametrize(
    ("scores", "shown", "replaces", "score", "inherited_from"),
    [
        pytest.param([0.9], 2, 0, 0.9, 0, id="head not found by the query: score inherited"),
        pytest.param([0.5, None, 0.9], 2, 0, 0.9, None, id="head found and scored higher"),
        pytest.param([0.9, None, 0.4], 2, 0, 0.9, 0, id="head found but scored lower"),
        pytest.param([None, 0.7, 0.2], 2, 1, 0.7, 1, id="B replaced; C inherits B's score"),
    ],
)
def test_resolve_current_reports_whose_score_a_head_carries(
    scores: list[float | None],
    shown: int,
    replaces: int,
    score: float,
    inherited_from: int | None,
) -> None:
    states = chain(3)
    cands = [Candidate(s, score=x) for s, x in zip(states, scores, strict=False) if x is not None]
    resolved = resolve_current(cands, CountingFetch(states))
    [head] = resolved.candidates
    assert head.id == states[shown].id and head.state_replaces == states[replaces].id
    assert head.score == score
    expected = {} if inherited_from is None else {head.id: states[inherited_from].id}
    assert dict(resolved.inherited) == expected


@pytest.mark.parametrize("head_first", [True, False])
def test_a_head_reached_twice_keeps_the_evidence_of_both(head_first: bool) -> None:
    """The head found by meaning (dense 0.62) and in place of an older state found by its
    words alone (keyword 0.9, a higher score): shown once, with the older state's score
    and both kinds of evidence, so it is not called a weak match."""
    states = chain(2)
    old = Candidate(states[0], keyword=0.9, score=0.8)
    own = Candidate(states[1], vector=0.62, vector_calibrated=0.7, score=0.5)
    cands = [own, old] if head_first else [old, own]
    [head] = resolve_current(cands, CountingFetch(states)).candidates
    assert head.id == states[1].id and head.score == 0.8
    assert (head.vector, head.vector_calibrated, head.keyword) == (0.62, 0.7, 0.9)
    assert head.state_replaces == states[0].id


@pytest.mark.parametrize(
    ("as_of_day", "expected", "state"),
    [
        pytest.param(None, 2, State.CURRENT, id="no as_of: the head"),
        pytest.param(15, 1, State.CURRENT, id="between B and C: B, current then"),
        pytest.param(5, 0, State.CURRENT, id="before B: A, current then"),
    ],
)
def test_as_of_reports_the_state_as_it_stood(
    as_of_day: int | None, expected: int, state: State
) -> None:
    states = chain(3, days=[0, 10, 20])
    as_of = None if as_of_day is None else T0 + timedelta(days=as_of_day)
    resolved = resolve_current(
        [Candidate(states[0], score=0.5)], CountingFetch(states), as_of=as_of
    )
    [c] = resolved.candidates
    assert c.id == states[expected].id
    assert (c.record.state, c.record.superseded_by, c.record.relation) == (state, None, None)


def test_a_head_the_filters_do_not_admit_hides_the_candidate_too() -> None:
    states = chain(2)
    resolved = resolve_current(
        [Candidate(states[0], score=0.9)], CountingFetch(states), admit=lambda r: False
    )
    assert resolved.candidates == []


def observation_of(*members: Record, day: int = 0) -> Observation:
    return Observation(
        id=uuid.uuid5(uuid.NAMESPACE_URL, "obs/" + "/".join(str(m.id) for m in members)),
        bank_id="b1",
        text=members[-1].text,
        occurred_at=T0 + timedelta(days=day),
        created_at=T0,
        source_memory_ids=[m.id for m in members],
        proof_count=len(members),
        first_occurred_at=members[0].occurred_at,
        last_occurred_at=members[-1].occurred_at,
    )


M = [memory("Ana lives in Porto." if i in {0, 1, 7} else f"raw {i}", i) for i in range(8)]
OBS_01 = observation_of(M[0], M[1])
OBS_07 = observation_of(M[0], M[7])
NAMES: dict[uuid.UUID, str] = {
    **{m.id: f"m{i}" for i, m in enumerate(M)},
    OBS_01.id: "obs01",
    OBS_07.id: "obs07",
}
RECORDS: dict[str, Record] = {v: r for r in [*M, OBS_01, OBS_07] if (v := NAMES[r.id])}


@pytest.mark.parametrize(
    ("order", "limit", "shown", "dropped"),
    [
        pytest.param(
            ["m0", "obs01", "m1", "m2", "m3", "m4"],
            3,
            ["obs01", "m2", "m3"],
            2,
            id="members above and below a shown observation leave; slots backfill",
        ),
        pytest.param(
            ["m0", "m2", "m3", "m4", "obs01", "m5"],
            3,
            ["m0", "m2", "m3"],
            0,
            id="an observation below the window removes nothing inside it",
        ),
        pytest.param(
            ["m0", "m2", "obs07", "m3", "m7", "m4"],
            3,
            ["m2", "obs07", "m3"],
            1,
            id="a member already shown leaves and the window refills",
        ),
        pytest.param(
            ["obs07", "m2", "m7", "m3", "m4"],
            3,
            ["obs07", "m2", "m3"],
            1,
            id="a member after the observation is skipped and backfilled",
        ),
        pytest.param(
            ["obs01", "m0", "m1"],
            3,
            ["obs01"],
            2,
            id="too few candidates: the count falls short, never duplicates",
        ),
        pytest.param(
            ["m0", "m1", "obs01", "obs07", "m7", "m2"],
            3,
            ["obs01", "obs07", "m2"],
            3,
            id="two observations sharing a member",
        ),
    ],
)
def test_prefer_observations_at_the_window(
    order: list[str], limit: int, shown: list[str], dropped: int
) -> None:
    cands = [Candidate(RECORDS[n], score=1.0 - i / 100) for i, n in enumerate(order)]
    window = fill_window(cands, limit, prefer_observations=True)
    assert [NAMES[c.id] for c in window.shown] == shown
    assert window.dropped == dropped
    plain = fill_window(cands, limit)
    assert [NAMES[c.id] for c in plain.shown] == order[:limit] and plain.dropped == 0


def test_an_observation_never_stands_in_for_a_member_it_does_not_hold() -> None:
    """A store merged by an older rule joined two facts: the observation says the wife's,
    so Dan's own stays shown."""
    dan = memory("Dan works at Initech.", 0, entities=["Dan"])
    wife = memory("Dan's wife works at Initech.", 1, entities=["Dan"])
    obs = observation_of(dan, wife)
    cands = [Candidate(r, score=1.0 - i / 100) for i, r in enumerate([obs, dan, wife])]
    window = fill_window(cands, 3, prefer_observations=True)
    assert [c.id for c in window.shown] == [obs.id, dan.id]
    assert window.dropped == 1
    reverse = fill_window(cands[::-1], 3, prefer_observations=True)
    assert [c.id for c in reverse.shown] == [dan.id, obs.id]


@pytest.mark.parametrize(
    ("days_and_scores", "expected"),
    [
        pytest.param([(0, 0.5), (1, 0.5)], [1, 0], id="tie: newest first (1 day)"),
        pytest.param([(0, 0.5), (30, 0.5)], [1, 0], id="tie: newest first (30 days)"),
        pytest.param([(0, 0.6), (9, 0.5)], [0, 1], id="timestamps only break ties"),
        pytest.param([(3, 0.5), (3, 0.5), (3, 0.5)], "by id", id="exact tie: by id"),
    ],
)
def test_sort_order(days_and_scores: list[tuple[int, float]], expected: object) -> None:
    records = [memory(f"t{i}", d) for i, (d, _) in enumerate(days_and_scores)]
    cands = [Candidate(r, score=s) for r, (_, s) in zip(records, days_and_scores, strict=True)]
    for arrival in (cands, cands[::-1]):
        ids = [c.id for c in rank(arrival, 10)]
        if expected == "by id":
            assert [str(i) for i in ids] == sorted(str(r.id) for r in records)
        else:
            assert ids == [records[i].id for i in expected]  # type: ignore[attr-defined]


def test_rrf_rewards_agreement_and_stays_in_unit_range() -> None:
    both, dense_only = memory("both", 0), memory("dense", 0)
    fused = rrf(
        [Candidate(both, vector_rank=1, keyword_rank=1), Candidate(dense_only, vector_rank=1)]
    )
    assert fused[0].score == pytest.approx(1.0)
    assert 0 < fused[1].score < fused[0].score


@pytest.mark.parametrize(
    ("evidence", "expected"),
    [
        ({"vector_calibrated": 1.0}, 0.25),
        ({"vector": 1.0}, 0.0),
        ({"keyword": 1.0}, 0.45),
        ({"exact": 1.0}, 0.3),
        ({"keyword": 3.0}, 0.45),
        (
            {"vector_calibrated": 0.8, "keyword": 0.5, "exact": 0.2, "importance": 0.5},
            0.2 + 0.225 + 0.06 + 0.01,
        ),
    ],
)
def test_weighted_fusion_sums_bounded_evidence(evidence: dict[str, float], expected: float) -> None:
    """Keyword evidence is clamped to 1 where it is consumed, whatever produced it; by
    default the cosine counts only as calibrated against the query's other hits."""
    (fused,) = weighted([Candidate(memory("m", 0), **evidence)])  # type: ignore[arg-type]
    assert fused.score == fused.fused == pytest.approx(expected)


def test_weighted_fusion_lets_a_distinctive_word_beat_a_vague_neighbour() -> None:
    vague = Candidate(memory("vague", 0), vector=0.7, vector_calibrated=0.7, keyword=0.2)
    exact = Candidate(memory("exact", 0), vector=0.4, vector_calibrated=0.4, keyword=1.0, exact=1.0)
    ranked = sorted(weighted([vague, exact], Weights()), key=lambda c: -c.score)
    assert [c.record.text for c in ranked] == ["exact", "vague"]


def test_merge_hits_normalises_keyword_scores_to_at_most_one() -> None:
    a, b = memory("a", 0), memory("b", 0)
    out = {c.id: c for c in merge_hits([Hit(a, 0.2)], [Hit(a, 11.0), Hit(b, 5.5)])}
    assert out[a.id].keyword == 1.0 and out[b.id].keyword == pytest.approx(0.5)
    assert out[a.id].vector == pytest.approx(0.2)
    assert out[b.id].vector_rank is None and out[a.id].keyword_rank == 1


@pytest.mark.parametrize(
    ("older", "newer", "carried"),
    [
        pytest.param({"key": "k"}, {"key": "k"}, ("k", ()), id="one key"),
        pytest.param(
            {"slot_keys": ["dana|residence", "dana|=lisbon", "~named:lisbon"]},
            {"slot_keys": ["dana|residence", "dana|=porto", "~named:porto"]},
            (None, ("dana|residence",)),
            id="the slot keys both hold, not either value's",
        ),
        pytest.param({"key": "a"}, {"key": "b"}, None, id="two keys, no slot key"),
        pytest.param({"slot_keys": ["x|y"]}, {"slot_keys": ["z|w"]}, None, id="nothing shared"),
    ],
)
def test_a_step_carries_its_chain_by_what_both_states_share(
    older: dict[str, object], newer: dict[str, object], carried: object
) -> None:
    a = memory("a", 0).model_copy(update=older)
    b = memory("b", 1).model_copy(update=newer)
    assert carrier(a, b) == carried
