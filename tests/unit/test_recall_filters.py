"""Filters through the whole pipeline on the embedded engine: kinds, tags (any, all),
a time range on `occurred_at` and `as_of` hold for every result, with and without
query expansion, and chain heads are held to them too."""

from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from contracts.recall import RecallRequest, RecallResponse, RecallResult
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.config import RecallConfig
from readmodel.recall.pipeline import RecallPipeline
from readmodel.stores.edge import EdgeStore
from tests.fakes import NoLocks
from tests.helpers import T0, event
from worker.consolidation.consolidator import Consolidator, consolidate

EMB = HashEmbedder(64)
PLAYS = "What does Alice play with friends?"
COACH = "Who coaches Alice at tennis?"
MARIA = event("Alice's tennis coach is Maria.", 2, tags=["sport"])
PEDRO = event(
    "Alice's tennis coach is now Pedro.",
    25,
    kind="experience",
    tags=["sport"],
    supersedes=[MARIA.event_id],
)
EVENTS = [
    event("Alice plays tennis on Sundays.", 1, tags=["sport", "weekend"]),
    event("Alice plays chess at the club.", 5, kind="experience", tags=["games"]),
    event("Alice plays violin in a quartet.", 10, tags=["music"]),
    event("Alice plays football with colleagues.", 20, kind="experience", tags=["sport"]),
    event("Alice plays golf with her father.", 30, tags=["sport", "family"]),
    MARIA,
    PEDRO,
]


def day(n: int) -> datetime:
    return T0 + timedelta(days=n)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EdgeStore]:
    s = EdgeStore(Path(tmp_path_factory.mktemp("filters")))
    s.ensure_schema(EMB.dimension)
    consolidate(EVENTS, Consolidator(s, EMB, NoLocks()))
    yield s
    s.close()


def ask(store: EdgeStore, expansion: bool, query: str, **kw: object) -> RecallResponse:
    recall = RecallPipeline(store, EMB, RecallConfig(query_expansion=expansion))
    return recall.recall("b1", RecallRequest(query=query, limit=20, **kw))  # type: ignore[arg-type]


Holds = Callable[[RecallResult], bool]
FILTERS: list[tuple[str, dict[str, object], Holds]] = [
    ("kinds", {"kinds": ["experience"]}, lambda r: r.kind == "experience"),
    (
        "tags any",
        {"tags": ["family", "games"], "tags_match": "any"},
        lambda r: bool({"family", "games"} & set(r.tags)),
    ),
    (
        "tags all",
        {"tags": ["sport", "family"], "tags_match": "all"},
        lambda r: {"sport", "family"} <= set(r.tags),
    ),
    ("start", {"start": day(8)}, lambda r: r.occurred_at >= day(8)),
    ("end", {"end": day(12)}, lambda r: r.occurred_at <= day(12)),
    (
        "start and end",
        {"start": day(8), "end": day(22)},
        lambda r: day(8) <= r.occurred_at <= day(22),
    ),
    ("as_of", {"as_of": day(12)}, lambda r: r.occurred_at <= day(12)),
]


@pytest.mark.parametrize("expansion", [False, True], ids=["plain", "expanded"])
@pytest.mark.parametrize(("name", "options", "holds"), FILTERS, ids=[f[0] for f in FILTERS])
@pytest.mark.parametrize("query", [PLAYS, COACH])
def test_every_result_satisfies_every_filter(
    store: EdgeStore,
    expansion: bool,
    name: str,
    options: dict[str, object],
    holds: Holds,
    query: str,
) -> None:
    for mode in ("current", "history"):
        response = ask(store, expansion, query, state_mode=mode, **options)
        assert response.results, (name, mode)
        assert all(holds(r) for r in response.results), (name, mode)


def test_expansion_runs_sub_queries_under_the_same_filters(store: EdgeStore) -> None:
    response = ask(store, True, PLAYS, explain=True, kinds=["experience"])
    [embed] = [s for s in response.explain or [] if s.stage == "embed"]
    assert embed.note.startswith("4 queries") and "'friends'" in embed.note
    assert {r.text for r in response.results} <= {e.text for e in EVENTS if e.kind == "experience"}


@pytest.mark.parametrize("expansion", [False, True], ids=["plain", "expanded"])
@pytest.mark.parametrize(
    ("options", "coach"),
    [
        pytest.param({}, PEDRO.text, id="no filter: the head"),
        pytest.param({"kinds": ["world"]}, None, id="head of another kind: neither"),
        pytest.param({"tags": ["music"]}, None, id="another tag scope: neither"),
        pytest.param({"end": day(15)}, None, id="head after the range: neither"),
        pytest.param({"start": day(20)}, PEDRO.text, id="head inside the range"),
        pytest.param({"as_of": day(15)}, MARIA.text, id="as_of: what was current then"),
    ],
)
def test_chain_heads_keep_every_filter(
    store: EdgeStore, expansion: bool, options: dict[str, object], coach: str | None
) -> None:
    texts = [r.text for r in ask(store, expansion, COACH, **options).results]
    coaches = [t for t in texts if "coach" in t]
    assert coaches == ([] if coach is None else [coach])
