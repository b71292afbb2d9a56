"""statement_features(): table tests of what a statement says (facts have slots, episodes none)."""

import json

import pytest

from worker.consolidation.statements import StatementFeatures, statement_features


def slots(text: str, entities: tuple[str, ...] = ()) -> set[tuple[str, str, str, str]]:
    found = statement_features(text, entities).slots
    return {(s.subject, s.attribute, s.value.lower(), s.mode) for s in found}


FACTS = [
    ("Alice lives in Boston.", "alice|residence|boston|is"),
    ("Alice moved to Seattle last month.", "alice|residence|seattle|is"),
    ("Olivia's brother Ethan lives in Vancouver.", "ethan|residence|vancouver|is"),
    ("Ben works at Acme.", "ben|employer|acme|is"),
    ("Zoe started as head of marketing at Bloom Studio.", "zoe|employer|bloom studio|is"),
    ("Dan is a senior engineer.", "dan|job_title|senior engineer|is"),
    ("Ivan is engaged to Sofia.", "ivan|partner|sofia|is"),
    ("Ivan and Laura broke up in June.", "laura|partner|ivan|ended"),
    ("Uma: I am with Maren now.", "uma|partner|maren|is", "Uma", "Maren"),
    ("Joao: I am still with Prestige Worldwide.", "joao|employer|prestige worldwide|is", "Joao"),
    ("Jack sold the Civic and now drives a Tesla Model 3.", "jack|car|tesla model 3|is"),
    ("Ines has a Mazda MX-5 now.", "ines|car|mazda mx-5|is"),
    ("Ran into Kofi, he has a Kia Niro now.", "kofi|car|kia niro|is", "Kofi"),
    ("Rosa's son goes to Lincoln Elementary.", "rosa>son|school|lincoln elementary|is"),
    ("Dave is no longer vegetarian.", "dave|diet|vegetarian|ended"),
    ("Ana's phone number is 555-0199.", "ana|phone|5550199|is"),
    ("My work email is j.smith@oldco.com.", "user|email:work|j.smith@oldco.com|is"),
    ("Nikolai: My boss is Clara Moreau.", "nikolai|manager|clara moreau|is"),
    ("The Atlas deadline was pushed back to November 30.", "atlas|deadline|november 30|is"),
    ("My grant report has to be in by March 3.", "user|deadline:grant report|march 3|is"),
    ("Emma's favorite color is purple now.", "emma|preference:colour|purple|is"),
    (
        "We keep the hallway thermostat at 21 degrees.",
        "hallway thermostat|setting:temperature|21 degrees|is",
    ),
    ("I cancelled Netflix.", "user|*|netflix|ended"),
    ("Felix is a social worker.", "felix|job_title|social worker|is", "Felix"),
    ("User: I'm based in Nairobi.", "user|residence|nairobi|is"),
    ("User: I'm living in Nairobi these days.", "user|residence|nairobi|is"),
    ("User: We're based in Leeds.", "user|residence|leeds|is"),
    ("Omar rents from Hugo.", "omar|landlord|hugo|is", "Omar", "Hugo"),
    ("I rent a flat from Tomas now.", "user|landlord|tomas|is", "Tomas"),
    ("Hana's new landlord is Leila.", "hana|landlord|leila|is", "Hana", "Leila"),
    ("Ana told me she plays padel on Sundays.", "ana|routine:sunday|plays padel|is", "Ana"),
]


@pytest.mark.parametrize("case", FACTS, ids=[c[0] for c in FACTS])
def test_a_fact_names_its_subject_attribute_and_value(case: tuple[str, ...]) -> None:
    text, expected, *entities = case
    assert tuple(expected.split("|")) in slots(text, tuple(entities))
    assert statement_features(text, entities).is_fact


@pytest.mark.parametrize(
    "text",
    [
        "Ana moved the car to the other side of the street.",
        "Ben: I changed the nappy just before the guests arrived.",
        "Ben was very happy when the parcel finally arrived.",
        "Xavier moved to the front row during the concert.",
        "Mei changed the light bulb in the hallway.",
        "Farid moved the sofa to the other side of the living room.",
        "Noah's class moved to a new classroom.",
        "Nikolai became the captain of the Sunday football team.",
        "Lucas now knows how to bake sourdough.",
        "I started at the gym on Monday.",
        "I left the party early because of a headache.",
        "Xavier dropped his phone and cracked the screen.",
        "Ana got a new job offer from Globex but turned it down.",
        "Did you move to Lyon?",
        "I might move to Lyon next year.",
        "Lucia nearly became a physiotherapist, but it didn't work out.",
        "Theo almost moved to Leeds.",
        "Felix is a hard worker.",
        "User: I'll move to Lyon in the spring.",
        "User: I'd live in Lyon if I could.",
        "Theo is a great teacher at heart.",
        "I rent a car from Hertz every summer.",
    ],
)
def test_an_episode_full_of_change_words_has_no_slots(text: str) -> None:
    features = statement_features(text)
    assert features.slots == ()
    assert not features.is_fact


def test_features_are_plain_data_that_round_trip_through_json() -> None:
    features = statement_features("Ivan and Laura broke up; he is seeing Sofia now.", ["Ivan"])
    data = json.loads(json.dumps(features.to_json()))
    assert StatementFeatures.from_json(data) == features
    assert features.cue == "now"


def test_entity_order_does_not_matter() -> None:
    a = statement_features("Uma: I am with Maren now.", ["Uma", "Maren"])
    assert a == statement_features("Uma: I am with Maren now.", ["Maren", "Uma"])


def test_the_speaker_is_the_first_person() -> None:
    chat = slots("Chiara: Quick update: I live in Dunedin.")
    assert ("chiara", "residence", "dunedin", "is") in chat
    assert ("user", "residence", "dunedin", "is") in slots("I live in Dunedin.")
    assert slots("Correction: the offsite is in room 402, not 204.")


def test_a_package_at_a_version_is_no_email_address() -> None:
    text = "Assistant: install it with npm i bootstrap@5.3.0 and pin core@2.11.6 as well."
    assert not {s for s in slots(text) if s[1].startswith("email")}
    assert ("user", "email", "ana@mail.example.org", "is") in slots(
        "My email is ana@mail.example.org."
    )


def test_a_text_of_several_passages_is_read_for_no_slot() -> None:
    fact = "My email is ana@example.com and I live in Lisbon. "
    assert slots(fact)
    filler = "We went through the plan step by step and wrote down what to do next. " * 12
    long = "User: " + fact + filler
    found = statement_features(long)
    assert found.slots == () and not found.is_fact
    assert found.speaker == "user"


def test_having_a_car_is_said_only_of_a_car_make() -> None:
    """ "has a <make> ..." is the subject's car; "has a" before anything else is not."""
    assert slots("Ines has a Garmin 955 now.") == set()
    assert slots("Ines has a Mazda meeting today.") == set()


def test_a_routine_reported_of_another_person_is_not_the_reporters() -> None:
    found = slots("Ana told me Tom plays padel on Sundays now.", ("Ana", "Tom"))
    assert not any(s[0] == "ana" and s[1].startswith("routine") for s in found)


@pytest.mark.parametrize(
    ("text", "entities", "subject"),
    [
        ("user42 lives in Miami.", (), "user42"),
        ("user42 moved to Dallas.", (), "user42"),
        ("host7 works at Globex.", (), "host7"),
        ("bob lives in Miami.", ("bob",), "bob"),
    ],
)
def test_a_subject_written_as_an_identifier_or_a_lower_case_entity(
    text: str, entities: tuple[str, ...], subject: str
) -> None:
    slots = statement_features(text, entities).slots
    assert slots and {s.subject for s in slots} == {subject}


def test_a_lower_case_word_that_is_no_entity_is_no_subject() -> None:
    assert all(s.subject != "bob" for s in statement_features("bob lives in Miami.").slots)
