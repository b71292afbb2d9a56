"""Updates by frame and value (`openupdates.py`): which pairs relate, why, and their keys."""

import pytest

from contracts.memory import Relation
from worker.consolidation.features import computed, decode, encode
from worker.consolidation.openframes import read
from worker.consolidation.openupdates import OpenUpdate, open_keys, open_query_keys, open_update

Case = tuple[str, list[str], str, list[str]]


def related(
    older: str, older_entities: list[str], newer: str, newer_entities: list[str]
) -> OpenUpdate | None:
    return open_update(read(older, older_entities), read(newer, newer_entities))


def keys(text: str, entities: list[str]) -> set[str]:
    return set(open_keys(read(text, entities)))


def query_keys(text: str, entities: list[str]) -> set[str]:
    return set(open_query_keys(read(text, entities)))


def meet(older: str, older_entities: list[str], newer: str, newer_entities: list[str]) -> bool:
    """Each statement of the pair finds the other by key, whichever arrives first."""
    return bool(
        query_keys(newer, newer_entities) & keys(older, older_entities)
        and query_keys(older, older_entities) & keys(newer, newer_entities)
    )


UPDATES: list[tuple[Case, str]] = [
    (("User: My dentist is Dr. Hale.", ["Dr. Hale"],
      "User: My new dentist is Dr. Ortiz.", ["Dr. Ortiz"]), "'hale' -> 'ortiz'"),
    (("Ben takes the bus to work.", ["Ben"],
      "Ben switched from the bus to the tram.", ["Ben"]), "'bus'"),
    (("Ana shares a flat with Kim.", ["Ana", "Kim"],
      "Kim moved out, so Ana lives alone now.", ["Kim", "Ana"]), "moved out"),
    (("The budget review is on May 3.", [],
      "The budget review has been pushed back to June 9.", []), "'may 3' -> 'june 9'"),
    (("Status of the data migration: on track.", [],
      "Update on the data migration: it's cancelled.", []), "cancelled"),
    (("Ivo's coach is Lena.", ["Ivo", "Lena"],
      "Ivo no longer has a coach.", ["Ivo"]), "'coach' -> '(ended)'"),
    (("User: I drink espresso in the afternoon.", [],
      "User: I drink mint tea in the afternoon now.", []), "'espresso' -> 'mint tea'"),
    (("User: I work at Northwind.", [],
      "User: I work at Tandem Labs.", []), "'northwind' -> 'tandem labs' (cue: none)"),
    (("Sam's mentor is Rhea.", ["Sam", "Rhea"],
      "Sam has a new mentor, Tariq.", ["Sam", "Tariq"]), "'rhea' -> 'tariq'"),
    (("User: I teach at Hillside School.", [],
      "User: I used to teach at Hillside School, but now I teach at Oak Academy.", []),
     "used to"),
    (("Bram commutes by bus.", ["Bram"],
      "Caught up with Bram. He commutes by ferry now.", ["Bram"]), "'bus' -> 'ferry'"),
]  # fmt: skip
"""(older, its entities, newer, its entities), and a part of the reason shown."""

STAYS: list[Case] = [
    ("User: I live in Leeds.", [], "User: My sister lives in York now.", []),
    ("User: I live in Leeds.", [], "User: I am in York this week for a conference.", []),
    ("User: I live in Leeds.", [], "User: I might live in York next year.", []),
    ("User: I live in Leeds.", [], "User: Back in college I lived in York.", []),
    ("User: I live in Leeds.", [], "User: Would you ever live in York?", []),
    ("User: I love painting.", [], "User: I love hiking.", []),
    ("User: I play chess.", [], "User: I also play go now.", []),
    ("User: I replaced the old kettle.", [], "User: I replaced the old toaster.", []),
    ("User: I started running again.", [], "User: I started mentoring two new interns.", []),
    ("Nina switched from violin to cello.", ["Nina"],
     "Nina switched from violin to cello.", ["Nina"]),
    ("Nikolai's manager is Clara.", ["Nikolai", "Clara"],
     "Nikolai liked the feedback from his manager.", ["Nikolai"]),
    ("The launch is on May 3.", [], "The launch party is on May 9.", []),
    ("The audit is on May 3.", [], "The audit could slip to June 9.", []),
    ("Omar is a nurse.", ["Omar"], "Omar is on the early shift now.", ["Omar"]),
    ("Theo switched to the gym.", ["Theo"], "Theo just switched to the car.", ["Theo"]),
    ("Ben's car is a Honda.", ["Ben"], "Ben's car is now red.", ["Ben"]),
    ("Ana lives in Porto.", ["Ana"], "Ana lives in a flat now.", ["Ana"]),
    ("Ana's manager is Tom.", ["Ana", "Tom"], "Ana's manager is now based in Oslo.", ["Ana"]),
    ("User: My manager is Tom.", ["Tom"], "User: My manager is busy now.", []),
    ("User: My deadline is May 3.", [], "User: My deadline is tight now.", []),
]  # fmt: skip


@pytest.mark.parametrize(("case", "why"), UPDATES)
def test_a_newer_value_of_the_same_frame_replaces_the_older(case: Case, why: str) -> None:
    older, older_entities, newer, newer_entities = case
    found = related(older, older_entities, newer, newer_entities)
    assert found is not None, (older, newer)
    assert why in found.reason
    assert "frame " in found.reason and "cue:" in found.reason
    assert meet(older, older_entities, newer, newer_entities)


@pytest.mark.parametrize("case", STAYS)
def test_other_subjects_plans_pasts_and_episodes_replace_nothing(case: Case) -> None:
    older, older_entities, newer, newer_entities = case
    assert related(older, older_entities, newer, newer_entities) is None


def test_with_no_change_word_only_names_and_numbers_are_values() -> None:
    """ "I feel great" / "I feel tired", "that sounds cool" / "that sounds awesome": with
    no change word, common words in one frame are not read as a changed value."""
    for older, newer in (
        ("User: I drink espresso in the afternoon.", "User: I drink mint tea in the afternoon."),
        ("User: I feel great.", "User: I feel tired."),
        ("Caroline: That sounds awesome!", "Caroline: That sounds super rewarding!"),
        ("John: Long time no see!", "John: Long time no talk!"),
    ):
        assert related(older, [], newer, []) is None, (older, newer)


def test_an_ending_without_a_new_value_invalidates() -> None:
    found = related("Ivo's coach is Lena.", ["Ivo", "Lena"], "Ivo fired his coach.", ["Ivo"])
    assert found is not None and found.relation is Relation.INVALIDATED_BY


def test_long_turns_are_not_read_by_frame() -> None:
    turn = "User: " + " ".join(["I really think that the weather was lovely today"] * 5)
    assert read(turn, []) is None and keys(turn, []) == set()


@pytest.mark.parametrize(("case", "why"), UPDATES[:5])
def test_the_reading_is_stored_with_the_features(case: Case, why: str) -> None:
    for text, entities in ((case[0], case[1]), (case[2], case[3])):
        found = computed(text, entities)
        assert found.open == read(text, entities)
        assert decode(encode(found)) == found


def test_a_pronoun_is_the_producers_person_before_a_capitalised_verb() -> None:
    """ "Caught up with Bram. He ..." is about Bram, not a person called Caught."""
    found = computed("Caught up with Bram yesterday. He lives in Leeds now.", ["Bram"])
    assert {s.subject for s in found.statement.slots} == {"bram"}


def test_statements_of_one_subject_meet_only_where_a_frame_or_an_ended_value_can() -> None:
    """Keys by role: sharing a subject and a common word ("afternoon") is no reason for
    two statements to read one another; the same head, or a value named as over, is."""
    drink = "User: I drink espresso in the afternoon."
    walk = "User: I walk my dog in the afternoon."
    assert not meet(drink, [], walk, [])
    assert not query_keys(walk, []) & keys(drink, [])
    assert meet(drink, [], "User: I drink green tea in the afternoon now.", [])
    assert meet(drink, [], "User: I gave up espresso.", [])


def test_a_surname_is_no_head_and_a_thing_is_keyed_by_its_role() -> None:
    """ "Jonas Rasski has two goldfish" and "Jonas Rasski walks to work" share a person,
    not a frame; "the afternoon" said of in passing is no thing whose date or status
    changes, while a dated thing is keyed by its date role."""
    fish = "Jonas Rasski has two goldfish."
    walk = "Jonas Rasski walks to work."
    assert not meet(fish, ["Jonas Rasski"], walk, ["Jonas Rasski"])
    assert not {k for k in keys("Ana naps in the afternoon.", ["Ana"]) if k.startswith("thing:")}
    dated = keys("The budget review is on May 3.", [])
    assert "thing:budget review|date" in dated
