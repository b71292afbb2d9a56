"""Roles and values said by their verb, and whose fact a verb states (decision 0057).

Each pair is (older, newer) through `relate`, in both call orders; the people named are
the producer's entities. A pair that must stay apart says why in its row.
"""

import re
from pathlib import Path

import pytest

from contracts.memory import Relation
from readmodel.embedders.hashing import HashEmbedder
from readmodel.store import Filter
from tests.helpers import edge_consolidator, event, mid
from tests.helpers import verdict as supersedes
from worker.consolidation.consolidator import consolidate
from worker.consolidation.openframes import Clause
from worker.consolidation.openkinds import held, object_kind
from worker.consolidation.statements import statement_features
from worker.consolidation.subjects import antecedent

NOT_PEOPLE = {
    "User",
    "I",
    "The",
    "My",
    "Dr",
    "Our",
    "Since",
    "With",
    "Home",
    "Saw",
    "Talked",
    "Mum",
}


def people(text: str) -> list[str]:
    """What a producer names as people: the capitalised words (places included, as an
    entity tagger gives them)."""
    return sorted(set(re.findall(r"\b[A-Z][a-z]+\b", text)) - NOT_PEOPLE)


def verdict(older: str, newer: str) -> Relation | None:
    return supersedes(older, newer, people(older), people(newer))


REPLACED = [
    # whom one sees for one's health
    ("User: I see Dr. Lindqvist for checkups.", "User: My doctor is Dr. Haddad now."),
    ("User: Nadia goes to Dr. Osei for her teeth.", "User: Nadia's dentist is Dr. Brandt now."),
    ("User: My GP is Dr. Patel.", "User: I've started seeing Dr. Byrne for checkups instead."),
    ("User: I'm a patient of Dr. Nkemelu.", "User: My doctor these days is Dr. Alvarez."),
    # where one works out
    ("User: Karim works out at Pure Gym.", "User: Karim trains at The Foundry now."),
    ("User: Tariq lifts at Iron Temple.", "User: Tariq's gym is Crunch now."),
    ("User: I go to Pure Gym.", "User: My gym is Crunch these days."),
    # how one gets to work
    ("User: Sofia takes the bus to work.", "User: Sofia cycles to work now."),
    ("User: Jun commutes by bus.", "User: Jun bikes to work now."),
    ("User: I commute on the tube.", "User: My commute is by bike now."),
    ("User: Ana rides the tram to work.", "User: Ana drives in these days."),
    # the language one learns, the diet one keeps, the shift one works
    ("User: I'm learning Portuguese.", "User: I study Japanese now."),
    ("User: I'm studying Korean.", "User: I switched to learning Italian."),
    ("User: I take Spanish lessons.", "User: I'm doing French classes now."),
    ("User: Maya is on a low-FODMAP diet.", "User: Saw Maya at lunch, she is vegetarian now."),
    ("User: I work nights.", "User: I'm on the day shift now."),
    ("User: Rosa is on the night shift.", "User: Rosa works days now."),
    # who runs one's team
    ("User: My team lead is Keith.", "User: Maria runs my team now."),
    ("User: Keith is in charge of my team.", "User: Maria is in charge of my team now."),
    ("User: I'm on Keith's team.", "User: I've moved to Maria's team."),
    ("User: My manager is Keith.", "User: I answer to Maria these days."),
    ("User: My supervisor is Keith.", "User: Maria supervises me now."),
    # where one lives
    ("User: I live in Austin.", "User: I call Denver home now."),
    ("User: I live in Leeds.", "User: I'm renting in Hackney now."),
    ("User: Raj lives in Delhi.", "User: Raj has been in Mumbai since January."),
    # whom one lives with, and a role said by another noun
    ("User: Pavel lives with Oskar.", "User: Talked to Pavel; his housemate is Callum now."),
    ("User: Bram shares a flat with Beatriz.", "User: Bram no longer has a housemate."),
    ("User: I live with Sam.", "User: My flatmate is Priya now."),
    ("User: Sam's flatmate is Ola.", "User: Ola moved back home, so Sam lives alone now."),
    # a value of a kind held by its verb, with a change word
    ("User: I drink coffee every morning.", "User: I only drink tea these days."),
    ("User: Ana does judo.", "User: Ana is into fencing now."),
    ("User: Tom has an iPhone 13.", "User: Tom switched phones, he has a Galaxy S23 now."),
    ("User: I play squash.", "User: I've taken up padel instead."),
    # one who left ends the role they held for another
    ("User: Pavel lives with Oskar.", "User: Oskar moved out."),
    ("User: My manager is Keith.", "User: Keith retired last month."),
    ("User: I report to Keith.", "User: Keith left the company."),
    ("User: My doctor is Dr. Patel.", "User: Dr. Patel retired."),
    ("User: Ana reports to Keith.", "User: Keith quit, so Ana reports to Maria now."),
    # a relative of the speaker's referred to by a pronoun
    ("User: My mum lives in York.", "User: My mum called, she's moved to Leeds."),
    ("User: Ana lives in York.", "User: My sister Ana called, she's moved to Leeds."),
    # a value dropped
    ("User: I'm learning Spanish.", "User: I dropped Spanish and picked up Italian."),
]


@pytest.mark.parametrize(("older", "newer"), REPLACED)
def test_a_role_said_by_its_verb_is_replaced_by_another_holder(older: str, newer: str) -> None:
    assert verdict(older, newer) is not None


KEPT = [
    # an occasion, another subject, another journey or language
    ("User: I see Dr. Lindqvist for checkups.", "User: I see Dr. Park on Tuesday about my knee."),
    ("User: Dana sees Dr. Weiss for checkups.", "User: Dana saw Dr. Ito about her rash last week."),
    ("User: I see Dr. Lindqvist for checkups.", "User: My son sees Dr. Haddad for checkups."),
    ("User: Karim works out at Pure Gym.", "User: Karim's sister trains at The Foundry."),
    ("User: Maya trains at Gold's.", "User: Maya trains at St Thomas' Hospital as a nurse."),
    ("User: Sofia takes the bus to work.", "User: Sofia took a taxi to the airport yesterday."),
    ("User: I walk to the office.", "User: I drove to the office today because of the rain."),
    ("User: Jun commutes by bus.", "User: Jun takes the train to the airport now."),
    ("User: I take the bus to work.", "User: I take the train to Paris now for holidays."),
    ("User: I speak Spanish.", "User: I'm learning Japanese now."),
    ("User: Priya is learning German.", "User: Priya speaks French now."),
    ("User: I'm on a keto diet.", "User: My sister is vegan now."),
    ("User: Lena is on a low-carb diet.", "User: Lena is on a budget these days."),
    ("User: I work nights.", "User: I worked days years ago."),
    ("User: I'm on the night shift.", "User: I'm on days off this week."),
    ("User: My manager is Keith.", "User: Maria manages the Berlin office now."),
    ("User: Keith is my manager.", "User: Maria is my mentor now."),
    ("User: Raj lives in Delhi.", "User: Raj has been in Mumbai since Monday for work."),
    ("User: I live in Austin.", "User: I'm in Denver for a conference this week."),
    # one more, said with "also" or "too"
    ("User: I'm learning Portuguese.", "User: I've also started learning Japanese."),
    ("User: Sofia takes the bus to work.", "User: Sofia also cycles to work on Fridays."),
    ("User: Karim works out at Pure Gym.", "User: Karim also trains at the climbing centre now."),
    ("User: I take Spanish lessons.", "User: I also take French lessons now."),
    # a change that did not happen: a verb before the frame says it is not so
    ("User: I'm on a keto diet.", "User: I considered going vegan, but I'm still on keto."),
    ("User: I'm on a keto diet.", "User: I've decided against going vegan."),
    ("User: I take the bus to work.", "User: I nearly started cycling to work."),
    ("User: I see Dr. Patel for checkups.",
     "User: I wanted to start seeing Dr. Byrne, but she wasn't taking new patients."),
    ("User: I'm learning Korean.", "User: I never switched to learning Italian."),
    ("User: Maya is vegetarian.", "User: Maya was going to go on a keto diet, but she didn't."),
    ("User: Ben is vegan.", "User: Ben wants to go on a low-carb diet."),
    ("User: I'm vegetarian.", "User: I was on a juice diet for three days last month."),
    ("User: I work at Acme.", "User: I've applied for a job at Globex."),
    ("User: I work at Acme.", "User: I've got an interview for a position at Globex."),
    ("User: I work at Acme.", "User: I've nearly taken a job at Globex."),
    # a leaving of something else, taken back, or said of another's role
    ("User: I had lunch with Keith.", "User: Keith left the company."),
    ("User: Ana is married to Keith.", "User: Keith left the company."),
    ("User: My manager is Keith.", "User: Keith left for lunch."),
    ("User: My manager is Keith.", "User: Keith left the team chat."),
    ("User: Pavel lives with Oskar.", "User: Oskar's sister moved out."),
    ("User: My manager is Keith.", "User: Keith's manager retired."),
    ("User: Pavel lives with Oskar.", "User: Oskar moved out for the summer."),
    ("User: Pavel lives with Oskar.", "User: Oskar moved out, then moved back in a week later."),
    ("User: My manager is Keith.", "User: Keith resigned, but he changed his mind and stayed."),
    ("User: My manager is Keith.", "User: Keith retired from football years ago."),
    ("User: I train with Jonas.", "User: Jonas stepped down as club captain."),
    ("User: My manager is Keith.", "User: Keith quit and rejoined a month later."),
    ("User: Ana reports to Keith.", "User: Keith quit, so Ben reports to Maria now."),
    ("User: Ana lives with Oskar.", "User: Oskar moved out, so Pavel lives alone now."),
    ("User: Pavel lives with Oskar.", "User: Pavel's sister lives with Callum."),
    ("User: Bram shares a flat with Beatriz.", "User: Bram shares a car with Tom."),
    # dropped off, by, or a thing dropped
    ("User: I take the kids to school.", "User: I dropped the kids off at school."),
    ("User: My manager is Keith.", "User: Keith dropped by the office."),
    ("User: I'm learning Spanish.", "User: I dropped my Spanish book in the bath."),
    # a thing that does what it always does has no new status
    ("User: The garden project is on track.", "User: The garden project needs more compost."),
]  # fmt: skip


@pytest.mark.parametrize(("older", "newer"), KEPT)
def test_an_occasion_another_subject_an_addition_or_what_did_not_happen_replaces_nothing(
    older: str, newer: str
) -> None:
    assert verdict(older, newer) is None


@pytest.mark.parametrize(
    ("text", "slot"),
    [
        ("I see Dr. Lindqvist for checkups.", ("user", "doctor", "dr. lindqvist")),
        ("Lucia goes to Dr. Okafor for her teeth.", ("lucia", "dentist", "dr. okafor")),
        ("Lucia works out at the leisure centre.", ("lucia", "gym", "leisure centre")),
        ("Sofia cycles to work.", ("sofia", "commute", "bike")),
        ("Jun goes to work by bike.", ("jun", "commute", "bike")),
        ("I work nights.", ("user", "shift", "night")),
        ("Rosa is on the night shift.", ("rosa", "shift", "night")),
        ("I'm studying Korean.", ("user", "language", "korean")),
        ("Maya is on a low-FODMAP diet.", ("maya", "diet", "low-fodmap")),
        ("Maria runs my team.", ("user", "manager", "maria")),
        ("I call Denver home now.", ("user", "residence", "denver")),
    ],
)
def test_a_role_said_by_its_verb_is_a_slot_of_its_noun(
    text: str, slot: tuple[str, str, str]
) -> None:
    found = statement_features(text, people(text)).slots
    assert slot in {(s.subject, s.attribute, s.value.lower()) for s in found}


@pytest.mark.parametrize(
    "text",
    [
        "I see Dr. Lindqvist tomorrow.",
        "I nearly started cycling to work.",
        "I've decided against going vegan.",
        "Ben wants to go on a low-carb diet.",
        "I was on a juice diet for three days last month.",
        "I've applied for a job at Globex.",
        "I'd love to switch to learning Italian.",
    ],
)
def test_a_verb_that_is_not_so_gives_no_slot(text: str) -> None:
    assert statement_features(text, people(text)).slots == ()


def test_the_verbs_readings_meet_in_the_store_in_either_order(tmp_path: Path) -> None:
    """Consolidated for real (embedded store): each pair meets by its keys and the older
    is superseded, whichever arrives first."""
    pairs = [REPLACED[0], REPLACED[7], REPLACED[26], REPLACED[34], REPLACED[35]]
    for i, (older, newer) in enumerate(pairs):
        for reverse in (False, True):
            root = tmp_path / f"{i}-{reverse}"
            deps = edge_consolidator(root, HashEmbedder(64))
            events = [
                event(older, 0, entities=people(older)),
                event(newer, 30, entities=people(newer)),
            ]
            consolidate(list(reversed(events)) if reverse else events, deps)
            stored = {p.record.id: p.record for p in deps.store.scroll(Filter("b1"))}
            assert stored[mid(events[0])].superseded_by == mid(events[1]), (older, newer, reverse)


@pytest.mark.parametrize(
    "words",
    [("<s>", "drink", "a"), ("<s>", "'m", "an"), ("<s>", "drink", "oat"), ("<s>", "is", "into")],
)
def test_a_clause_ending_before_its_value_has_no_kind(words: tuple[str, ...]) -> None:
    clause = Clause("user", words, (), "now")
    assert object_kind(clause) is None and held(clause) is None


def test_a_qualified_member_and_a_lover_of_one_are_held() -> None:
    assert held(Clause("user", ("<s>", "order", "oat", "lattes"), (), "now")) == (
        "drink",
        ("oat", "lattes"),
    )
    assert held(Clause("user", ("<s>", "'m", "a", "coffee", "drinker"), (), None)) == (
        "drink",
        ("coffee",),
    )


@pytest.mark.parametrize(
    ("body", "expected"),
    [("", None), ("My", None), ("my mum", "user>mum"), ("Hi", None),
     ("My sister Ana called.", "ana"), ("My mum called, she's moved.", "user>mum")],
)  # fmt: skip
def test_the_antecedent_of_a_short_text_is_read_safely(body: str, expected: str | None) -> None:
    assert antecedent(body, frozenset(), "user") == expected
