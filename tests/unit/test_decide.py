"""decide(): table tests over hand-built neighbourhoods (vectors chosen for exact similarities)."""

from dataclasses import replace

import pytest

from contracts.memory import Memory, Relation, State
from readmodel.store import StoredPoint
from tests.helpers import angle_for, memory, point
from worker.consolidation.decide import Neighbourhood, Plan, decide
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import observation_id

POLICY = ConsolidationPolicy(merge_threshold=0.84)


def hood(new: StoredPoint, *neighbours: StoredPoint) -> Neighbourhood:
    return Neighbourhood(new, neighbours, {p.record.id: p for p in neighbours}, {})


def patch_for(plan: Plan, m: Memory):  # type: ignore[no-untyped-def]
    return next(p for p in plan.patches if p.id == m.id)


def test_restatement_founds_an_observation_with_exact_provenance() -> None:
    a = memory("Alice loves hiking in the Alps.", 0, entities=["Alice"])
    b = memory("Alice loves hiking in the Alps a lot.", 3, entities=["Alice"])
    plan = decide(hood(point(b, angle_for(0.95)), point(a, 0)), POLICY)
    (obs,) = plan.observations
    assert obs.record.source_memory_ids == [a.id, b.id]
    assert obs.record.proof_count == 2
    assert obs.record.text == b.text
    assert patch_for(plan, a).observation_id == obs.record.id == observation_id("b1", [a.id, b.id])
    assert plan.patches[-1].id == b.id and plan.patches[-1].consolidated


@pytest.mark.parametrize("new_is_newer", [True, False])
def test_same_key_different_value_supersedes_by_event_time(new_is_newer: bool) -> None:
    old = memory("Alice lives in Boston.", 0, key="alice.city")
    new = memory("Alice lives in Seattle.", 30, key="alice.city")
    arriving, existing = (new, old) if new_is_newer else (old, new)
    plan = decide(hood(point(arriving, angle_for(0.9)), point(existing, 0)), POLICY)
    patch = patch_for(plan, old)
    assert patch.state is State.SUPERSEDED
    assert patch.superseded_by == new.id
    assert patch.relation is Relation.EVOLVED_INTO
    assert all(p.state is State.CURRENT for p in plan.patches if p.id == new.id)
    assert not plan.observations


def test_negation_cue_invalidates() -> None:
    old = memory("Alice drinks coffee every morning.", 0, entities=["Alice"])
    new = memory("Alice no longer drinks coffee every morning.", 9, entities=["Alice"])
    plan = decide(hood(point(new, angle_for(0.8)), point(old, 0)), POLICY)
    assert patch_for(plan, old).superseded_by == new.id
    assert patch_for(plan, old).relation is Relation.INVALIDATED_BY


def test_change_cue_with_shared_topic_evolves() -> None:
    old = memory("Alice works at a bakery downtown.", 0, entities=["Alice"])
    new = memory("Alice switched jobs and works at a bookshop.", 9, entities=["Alice"])
    plan = decide(hood(point(new, angle_for(0.6)), point(old, 0)), POLICY)
    assert patch_for(plan, old).relation is Relation.EVOLVED_INTO


def test_change_cue_about_another_entity_does_not_supersede() -> None:
    old = memory("Alice works at a bakery downtown.", 0, entities=["Alice"])
    new = memory("Bob switched jobs and works at a bakery.", 9, entities=["Bob"])
    plan = decide(hood(point(new, angle_for(0.7)), point(old, 0)), POLICY)
    assert [p.id for p in plan.patches] == [new.id]


def test_explicit_supersedes_wins_without_similarity() -> None:
    old = memory("Meeting is on Tuesday.", 0)
    new = memory("Use the new plan.", 2, supersedes=[old.event_id])
    plan = decide(hood(point(new, 89), point(old, 0)), POLICY)
    assert patch_for(plan, old).superseded_by == new.id


def test_explicit_key_supersedes_even_when_texts_differ() -> None:
    old = memory("Favourite editor: vim", 0, key="editor")
    new = memory("Favourite editor: Emacs", 5, key="editor")
    plan = decide(hood(point(new, angle_for(0.3)), point(old, 0)), POLICY)
    assert patch_for(plan, old).superseded_by == new.id


def test_unrelated_memory_is_a_noop_for_neighbours() -> None:
    old = memory("Alice lives in Boston.", 0)
    new = memory("The train to Paris leaves at noon.", 1)
    plan = decide(hood(point(new, angle_for(0.2)), point(old, 0)), POLICY)
    assert [p.id for p in plan.patches] == [new.id]
    assert not plan.observations and not plan.delete_observations


def test_duplicate_of_a_done_memory_changes_nothing_else() -> None:
    a = memory("Alice loves hiking.", 0)
    b = memory("Alice loves hiking!", 1)
    first = decide(hood(point(b, angle_for(0.97)), point(a, 0)), POLICY)
    obs = first.observations[0].record
    a_done = replace(
        point(a, 0), record=a.model_copy(update={"observation_id": obs.id, "consolidated": True})
    )
    again = Neighbourhood(point(b, angle_for(0.97)), (a_done,), {a.id: a_done}, {obs.id: obs})
    second = decide(again, POLICY)
    assert [p.id for p in second.patches] == [b.id]
    assert [w.record for w in second.observations] == [obs]
    assert not second.delete_observations


def test_inserting_a_middle_state_rewires_the_chain() -> None:
    a = memory("Alice lives in Boston.", 0, key="city")
    c = memory("Alice lives in Denver.", 20, key="city")
    a_stored = a.model_copy(
        update={
            "state": State.SUPERSEDED,
            "superseded_by": c.id,
            "relation": Relation.EVOLVED_INTO,
            "consolidated": True,
        }
    )
    b = memory("Alice lives in Seattle.", 10, key="city")
    pa, pc = point(a_stored, 0), point(c, 10)
    plan = decide(Neighbourhood(point(b, 5), (pa, pc), {a.id: pa, c.id: pc}, {}), POLICY)
    assert patch_for(plan, a).superseded_by == b.id
    assert patch_for(plan, b).superseded_by == c.id


def test_different_tag_sets_never_merge() -> None:
    a = memory("Alice loves hiking.", 0, tags=["work"])
    b = memory("Alice loves hiking.", 1, tags=["home"])
    plan = decide(hood(point(b, 0), point(a, 0)), POLICY)
    assert not plan.observations


def test_value_conflict_blocks_a_merge() -> None:
    a = memory("The standup is at 9 on Monday.", 0)
    b = memory("The standup is at 10 on Monday.", 1)
    plan = decide(hood(point(b, angle_for(0.97)), point(a, 0)), POLICY)
    assert not plan.observations


def test_a_keyed_restatement_with_the_same_value_merges_however_worded() -> None:
    a = memory("Maya lives in Boston.", 0, key="maya.city")
    b = memory("Maya's home is in Boston.", 5, key="maya.city")
    plan = decide(hood(point(b, angle_for(0.7)), point(a, 0)), POLICY)
    assert [w.record.source_memory_ids for w in plan.observations] == [[a.id, b.id]]


def test_a_statement_that_says_more_is_another_fact_not_a_restatement() -> None:
    """A value named by one side only ("near the Charles River") is a statement of its
    own: merged, it would hide the shorter fact behind the longer one."""
    a = memory("Maya lives in Boston.", 0, entities=["Maya"])
    b = memory("Maya lives in Boston, near the Charles River.", 5, entities=["Maya"])
    plan = decide(hood(point(b, angle_for(0.95)), point(a, 0)), POLICY)
    assert plan.observations == ()


def test_no_implicit_supersession_across_kinds() -> None:
    old = memory(
        "I recommended Maya a guidebook of hikes around Seattle.",
        0,
        kind="experience",
        entities=["Maya"],
    )
    new = memory("Maya lives in Seattle now.", 5, entities=["Maya"])
    plan = decide(hood(point(new, angle_for(0.8)), point(old, 0)), POLICY)
    assert [p.id for p in plan.patches] == [new.id]


@pytest.mark.parametrize("new_is_newer", [True, False])
@pytest.mark.parametrize(
    ("old_text", "new_text", "similarity"),
    [
        ("Alice lives in Boston.", "Alice moved to Seattle last month.", 0.62),
        ("My GP is Dr. Alvarez.", "I switched GPs; I now see Dr. Okafor.", 0.39),
        ("The team sync is on Mondays at 9am.", "The team sync moves to Tuesdays.", 0.85),
    ],
)
def test_cued_statement_supersedes_by_event_time_both_ways(
    old_text: str, new_text: str, similarity: float, new_is_newer: bool
) -> None:
    old, new = memory(old_text, 0), memory(new_text, 30)
    arriving, existing = (new, old) if new_is_newer else (old, new)
    plan = decide(hood(point(arriving, angle_for(similarity)), point(existing, 0)), POLICY_NOW)
    assert patch_for(plan, old).superseded_by == new.id
    assert patch_for(plan, old).relation is Relation.EVOLVED_INTO


POLICY_NOW = ConsolidationPolicy()


@pytest.mark.parametrize(
    ("old_text", "new_text", "why"),
    [
        ("Caroline: I went to a support group.", "Melanie: I now go to a new group.", "speakers"),
        ("Caroline: I love my new group! So great.", "Caroline: I now go to the group.", "shape"),
        ("Caroline: Is the group on Monday?", "Caroline: The group moved to Tuesday.", "shape"),
        ("Zoe's sister Amy works at Petal.", "Zoe started as head of sales at Bloom.", "subject"),
        ("The Zephyr deadline is December 1.", "The Atlas deadline was pushed back.", "subject"),
        ("Alice lives in Boston.", "Alice switched to decaf coffee.", "only the subject"),
        ("On weekends Maya loves hiking.", "Maya lives in Seattle now.", "a weak cue"),
        (
            "Caroline: I went to the LGBTQ support group yesterday and it was so powerful, "
            "the stories people shared there were inspiring and I want to help others the same "
            "way. It made me think about counseling as a career.",
            "Caroline: I started looking at counseling programs now.",
            "shape",
        ),
    ],
)
def test_no_implicit_update_without_statement_shape_subject_and_topic(
    old_text: str, new_text: str, why: str
) -> None:
    old, new = memory(old_text, 0), memory(new_text, 30)
    similarity = {"only the subject": 0.45, "a weak cue": 0.6}.get(why, 0.7)
    plan = decide(hood(point(new, angle_for(similarity)), point(old, 0)), POLICY_NOW)
    assert [p.id for p in plan.patches] == [new.id], why


def test_a_superseded_memory_is_current_until_its_superseders_time() -> None:
    old = memory("Alice lives in Boston.", 0, key="alice.city")
    new = memory("Alice lives in Seattle.", 30, key="alice.city")
    plan = decide(hood(point(new, angle_for(0.9)), point(old, 0)), POLICY)
    assert patch_for(plan, old).current_until == new.occurred_at
    assert patch_for(plan, new).current_until is None


def test_a_memory_declared_superseded_by_an_older_one_is_current_until_its_own_time() -> None:
    """A declared supersession may point back in time; a memory then stays the newer
    state of its slot for facts older than itself, so it must stay a candidate for them."""
    later = memory("Meeting is on Tuesday.", 9)
    earlier = memory("Use the new plan.", 2, supersedes=[later.event_id])
    plan = decide(hood(point(earlier, 89), point(later, 0)), POLICY)
    assert patch_for(plan, later).superseded_by == earlier.id
    assert patch_for(plan, later).current_until == later.occurred_at
