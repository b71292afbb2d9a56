"""The update rule: table tests of pairs (older, newer) through `relate`, in both orders."""

import pytest

from contracts.memory import Relation
from tests.helpers import memory, verdict
from worker.consolidation.policy import ConsolidationPolicy
from worker.consolidation.relations import LinkKind, relate

POLICY = ConsolidationPolicy()
EVOLVED, INVALIDATED = Relation.EVOLVED_INTO, Relation.INVALIDATED_BY


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ana lives in Porto.", "Ana moved the car to the other side of the street."),
        ("Ana's car is a blue Fiat Panda.", "Ana moved the car to the other side of the street."),
        ("Ben works at Acme.", "Ben was very happy when the new intern started."),
        ("Mei is vegan.", "Mei tried a new vegan bakery downtown."),
        ("Ana's phone number is 555-0199.", "Ana dropped her phone and cracked the screen."),
        ("Ana moved the sofa to the window.", "Ana moved to Lyon."),
        ("Ben was very happy when the parcel arrived.", "Ben is happy now that spring is here."),
        ("Lucas changed the playlist for the party.", "Lucas changed the oil in the Golf."),
    ],
)
def test_an_episode_with_change_words_never_supersedes_and_is_never_superseded(
    older: str, newer: str
) -> None:
    assert verdict(older, newer) is None


@pytest.mark.parametrize(
    ("older", "newer", "entities", "relation"),
    [
        ("Ivan is dating Laura.", "Ivan is engaged to Sofia.", (), EVOLVED),
        ("Ivan is dating Laura.", "Ivan and Laura broke up in June.", (), INVALIDATED),
        ("Uma: My partner is Umar.", "Uma: I am with Maren now.", ("Uma", "Maren"), EVOLVED),
        (
            "Farid is in a relationship with Ivo.",
            "Farid and Ivo broke up; he is seeing Selma now.",
            (),
            INVALIDATED,
        ),
        (
            "The Atlas deadline is October 15.",
            "The Atlas deadline was pushed back to November 30.",
            (),
            EVOLVED,
        ),
        ("My thesis is due on May 22.", "My thesis deadline was extended to June 28.", (), EVOLVED),
        ("New date for Juniper: March 3.", "Juniper slipped to April 10.", (), EVOLVED),
        (
            "Priyanka used to live in Jersey City.",
            "My coworker Priyanka moved to Brooklyn.",
            (),
            EVOLVED,
        ),
    ],
)
def test_relationship_and_deadline_updates_supersede(
    older: str, newer: str, entities: tuple[str, ...], relation: Relation
) -> None:
    assert verdict(older, newer, entities) is relation


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ana lives in Porto.", "Ana's sister Eva moved to Lyon."),
        ("Ana lives in Porto.", "Ana's colleague Omar relocated to Lyon."),
        ("The Zephyr deadline is December 1.", "The Atlas deadline was pushed back to May 3."),
        ("Ana's phone number is 555-0199.", "Eva's number is 555-0102."),
        ("Ana lives in Porto.", "Ana works at Globex now."),
        ("Ana lives in Porto.", "Ana's office is in Lyon."),
        ("Ana lives in Porto.", "Ana was born in Lyon."),
        ("Ana's favourite cuisine is Thai.", "Ana's favourite music is jazz."),
        ("We have a golden retriever named Biscuit.", "We adopted a second dog, a beagle."),
        ("Ana lives in Porto.", "Ana still lives in Porto."),
        ("Farid and Ivo broke up; he is seeing Selma now.", "Farid is married to Selma."),
        ("Tim: I'm learning how to play the violin now.", "Tim: I'm learning German now."),
        (
            "John: We're planning to take a team trip next month to explore a new city.",
            "John: I'm going to need some new shoes after all these games though.",
        ),
    ],
)
def test_another_subject_attribute_or_the_same_value_does_not_supersede(
    older: str, newer: str
) -> None:
    assert verdict(older, newer) is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("Ana's phone number is 555-0199.", "Ana's phone number is 555-0102."),
        ("Ben works at Globex.", "Ben works at Acme."),
        ("Dan is a junior engineer.", "Dan is a senior engineer."),
        ("Xavier's car is a grey Volvo V60.", "Xavier drives a Toyota Yaris."),
        ("Kalinda's manager is Priya Shah.", "Kalinda reports to Tom Okafor."),
    ],
)
def test_a_new_value_supersedes_without_any_change_word(older: str, newer: str) -> None:
    assert verdict(older, newer) is EVOLVED


def test_the_reason_names_subject_attribute_and_both_values() -> None:
    a = memory("Ana lives in Porto.", 0)
    b = memory("Ana moved to Lyon last month.", 30)
    link = relate(a, b, 0.0, POLICY)
    assert link is not None and link.reason == "ana: residence 'Porto' -> 'Lyon' (moved)"


def test_a_habit_needs_a_change_word() -> None:
    old = "I park on level 3 of the office garage."
    assert verdict(old, "I park on level 5 of the garage.") is None
    assert verdict(old, "Since the renovation I park on level 5.") is EVOLVED


@pytest.mark.parametrize(
    ("older", "newer", "merges"),
    [
        (
            ("Ana felt calm after a long walk.", ["Ana"]),
            ("Ben felt calm after a long walk.", ["Ben"]),
            False,
        ),
        (
            ("Ana felt calm after a long walk.", ["Ana"]),
            ("Ana felt calm after a long walk.", ["Ana"]),
            True,
        ),
        (
            ("Ana felt calm after a long walk.", ["Ana"]),
            ("Ana felt calm after a long walk.", []),
            True,
        ),
        (("Ana and Ben hiked.", ["Ana", "Ben"]), ("Ana and Ben hiked.", ["ben"]), True),
    ],
)
def test_a_restatement_is_about_the_same_people(
    older: tuple[str, list[str]], newer: tuple[str, list[str]], merges: bool
) -> None:
    a = memory(older[0], 0, entities=older[1])
    b = memory(newer[0], 30, entities=newer[1])
    link = relate(a, b, 0.99, POLICY)
    assert (link is not None and link.kind is LinkKind.MERGE) is merges
    assert link == relate(b, a, 0.99, POLICY)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("The team shipped the release on Friday.", "The team shipped the release on Tuesday."),
        ("I visited the dentist on 2024-05-02.", "I visited the dentist on 2024-08-19."),
        ("The boiler was serviced on March 4.", "The boiler was serviced on October 9."),
        ("Lena ran the payroll job at 9 am.", "Lena ran the payroll job at 4 pm."),
    ],
)
def test_a_happening_on_another_day_replaces_nothing(older: str, newer: str) -> None:
    assert verdict(older, newer) is None


def test_a_happening_said_to_have_moved_still_replaces_its_date() -> None:
    assert verdict("The launch is on May 20.", "The launch got moved to June 3.") is EVOLVED
