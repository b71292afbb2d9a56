"""Observations as they stood at `as_of`: the stage alone (table-driven), and the whole
pipeline on the embedded engine."""

import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from contracts.memory import Observation, Relation, State
from contracts.recall import RecallRequest
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.as_of import observations_as_of, view_as_of
from readmodel.recall.candidate import Candidate
from readmodel.recall.pipeline import RecallPipeline
from readmodel.store import Record
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import T0, event, memory, mid
from worker.consolidation.consolidator import Consolidator, consolidate

OBS_ID = uuid.UUID(int=99)
A, B, C = (memory(f"Ada keeps bees, statement {i}", d) for i, d in enumerate((0, 10, 20)))
A, B, C = (m.model_copy(update={"observation_id": OBS_ID}) for m in (A, B, C))
OBS = Observation(
    id=OBS_ID,
    bank_id="b1",
    text=C.text,
    occurred_at=C.occurred_at,
    created_at=T0,
    source_memory_ids=[A.id, B.id, C.id],
    proof_count=3,
    first_occurred_at=A.occurred_at,
    last_occurred_at=C.occurred_at,
    version=3,
)
NAMES = {A.id: "A", B.id: "B", C.id: "C", OBS_ID: "obs"}
BY_NAME: dict[str, Record] = {"A": A, "B": B, "C": C, "obs": OBS}


class Fetch:
    def __init__(self, records: Sequence[Record]) -> None:
        self.records = {r.id: r for r in records}
        self.calls = 0

    def __call__(self, ids: Sequence[uuid.UUID]) -> list[Record]:
        self.calls += 1
        return [self.records[i] for i in ids if i in self.records]


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


@pytest.mark.parametrize(
    ("found", "as_of_day", "expected", "fetches"),
    [
        pytest.param(["obs", "C"], None, {"obs": ("C", 3), "C": None}, 0, id="no as_of: as is"),
        pytest.param(["B"], 25, {"B": None}, 1, id="all members by then: the stored one if found"),
        pytest.param(["B"], 15, {"B": None, "obs": ("B", 2)}, 2, id="A and B by then: B's text"),
        pytest.param(["A"], 15, {"A": None}, 2, id="its latest member then not found: no view"),
        pytest.param(["A"], 5, {"A": None}, 2, id="one member by then: not an observation yet"),
        pytest.param(["obs"], 15, {}, 0, id="found by a later member's text: not then"),
        pytest.param(
            ["obs", "B"], 15, {"B": None, "obs": ("B", 2)}, 2, id="the later version gives way"
        ),
    ],
)
def test_observations_as_they_stood(
    found: list[str],
    as_of_day: int | None,
    expected: dict[str, tuple[str, int] | None],
    fetches: int,
) -> None:
    fetch = Fetch([A, B, C, OBS])
    cands = [Candidate(BY_NAME[n], score=0.5 + i / 10) for i, n in enumerate(found)]
    as_of = None if as_of_day is None else T0 + timedelta(days=as_of_day)
    out = observations_as_of(cands, fetch, as_of)
    got: dict[str, tuple[str, int] | None] = {}
    for c in out:
        r = c.record
        if isinstance(r, Observation):
            assert as_of is None or all(
                BY_NAME[NAMES[m]].occurred_at <= as_of for m in r.source_memory_ids
            )
            got["obs"] = (NAMES[r.source_memory_ids[-1]], r.proof_count)
            latest = BY_NAME[got["obs"][0]]
            assert (r.text, r.occurred_at, r.last_occurred_at) == (
                latest.text,
                latest.occurred_at,
                latest.occurred_at,
            )
            assert c.score == next(x.score for x in cands if x.id == latest.id) or as_of is None
        else:
            got[NAMES[r.id]] = None
    assert got == expected
    assert fetch.calls == fetches


def test_the_view_takes_its_latest_members_state() -> None:
    x = memory("Ada sold the bees", 12)
    b = B.model_copy(
        update={"state": State.SUPERSEDED, "superseded_by": x.id, "relation": Relation.EVOLVED_INTO}
    )
    view = view_as_of(OBS, [A, b, C], T0 + timedelta(days=15))
    assert view is not None and view.id == OBS_ID
    assert (view.state, view.superseded_by, view.version) == (State.SUPERSEDED, x.id, 2)
    assert view.first_occurred_at == A.occurred_at
    assert view_as_of(OBS, [A, B, C], T0 + timedelta(days=5)) is None


EMB = HashEmbedder(64)
BEES = "Ada keeps three hives of bees on the roof."


def test_pipeline_shows_an_observation_as_it_stood(tmp_path: Path) -> None:
    """Three restatements on days 0, 10 and 20: as of day 15 one observation of the first
    two; as of day 5 the first alone; with no as_of, all three."""
    store = EdgeStore(tmp_path)
    store.ensure_schema(EMB.dimension)
    cons = Consolidator(store, EMB, NoLocks())
    events = [event(BEES, d) for d in (0, 10, 20)] + [event("Ada's car is blue.", 1)]
    consolidate(events, cons)
    ids = [mid(e) for e in events[:3]]
    recall = RecallPipeline(store, EMB)

    def top(**kw: object) -> tuple[str, list[uuid.UUID], int]:
        """The first result, or the observation when it ties with its own latest member
        (same text and time: which comes first is then the ids' order)."""
        request = RecallRequest(query="Where does Ada keep bees?", **kw)  # type: ignore[arg-type]
        results = recall.recall("b1", request).results
        first = results[0]
        tied = [r for r in results if r.score == first.score and r.kind == "observation"]
        shown = tied[0] if tied else first
        assert all(r.occurred_at <= kw.get("as_of", first.occurred_at) for r in results)  # type: ignore[operator]
        return shown.kind, shown.source_memory_ids, sum(r.text == BEES for r in results)

    assert top() == ("observation", ids, 1)
    assert top(as_of=day(15)) == ("observation", ids[:2], 1)
    assert top(as_of=day(5)) == ("world", [], 1)
    assert top(as_of=day(15), prefer_observations=False) == ("observation", ids[:2], 3)
