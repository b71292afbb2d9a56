"""Results without topical evidence: left out at the surfaces (CLI, HTTP, MCP) unless
asked for, kept for in-process callers of the recall service."""

from collections.abc import Iterator

import pytest

from contracts.recall import RecallRequest
from sediment.bootstrap import Runtime
from sediment.recall_defaults import surface_default
from tests.unit.api_support import SEATTLE, seeded_runtime

UNRELATED = "Paris"
"""No memory of bank b1 (Alice's city, Bob's cello) has a word of it or is near it."""


@pytest.mark.parametrize(
    ("given", "all_"),
    [
        pytest.param({}, False, id="nothing said: left out"),
        pytest.param({"min_score": 0.05}, True, id="a floor of its own instead"),
        pytest.param({"min_score": 0.0}, False, id="a floor of 0 is no floor"),
        pytest.param({"all": True}, True, id="asked for"),
        pytest.param({"all": False, "min_score": 0.05}, False, id="both, as given"),
    ],
)
def test_the_surface_default(given: dict[str, object], all_: bool) -> None:
    request = RecallRequest.model_validate({"query": "q", **given})
    assert surface_default(request).all is all_
    assert surface_default(surface_default(request)) == surface_default(request)


@pytest.fixture(scope="module")
def rt(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runtime]:
    runtime = seeded_runtime(tmp_path_factory.mktemp("defaults"))
    yield runtime
    runtime.close()


def test_in_process_recall_keeps_every_result(rt: Runtime) -> None:
    """A request built in Python (`all` unset) is ranked whole, as benchmarks need it."""
    response = rt.recaller.recall("b1", RecallRequest(query=UNRELATED))
    assert response.results and response.without_evidence == 0
    assert response.low_confidence


def test_the_evidence_rule_leaves_out_unrelated_results(rt: Runtime) -> None:
    request = RecallRequest(query=UNRELATED, explain=True)
    every = rt.recaller.recall("b1", request)
    ruled = rt.recaller.recall("b1", surface_default(request))
    assert ruled.results == [] and ruled.without_evidence == len(every.results)
    assert not ruled.low_confidence
    [truncate] = [s for s in ruled.explain or [] if s.stage == "truncate"]
    assert f"left out without topical evidence: {len(every.results)}" in truncate.note


def test_the_evidence_rule_keeps_what_shares_a_word(rt: Runtime) -> None:
    request = surface_default(RecallRequest(query="Where does Alice live?"))
    response = rt.recaller.recall("b1", request)
    assert [r.text for r in response.results][:1] == [SEATTLE.text]


def test_a_floor_of_its_own_replaces_the_rule(rt: Runtime) -> None:
    every = rt.recaller.recall("b1", RecallRequest(query=UNRELATED))
    assert all(r.score > 1e-6 for r in every.results)
    request = surface_default(RecallRequest(query=UNRELATED, min_score=1e-6))
    assert [r.id for r in rt.recaller.recall("b1", request).results] == [
        r.id for r in every.results
    ]
