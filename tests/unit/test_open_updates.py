"""Updates by frame and value (`openupdates.py`): which pairs relate, why, and their keys."""

import pytest

from contracts.memory import Relation
from worker.consolidation.features import computed, decode, encode
from worker.consolidation.openframes import read
from worker.consolidation.openkeys import open_keys, open_query_keys
from worker.consolidation.openupdates import OpenUpdate, open_update
from worker.consolidation.openvalues import endings
from worker.consolidation.openwords import markers

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
      "Kim moved out, so Ana lives alone now.", ["Kim", "Ana"]), "'with kim' -> 'alone'"),
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
    (("User: I live with Sam.", [],
      "User: Sam moved out last week, so it's just me now.", []), "'sam' -> '(ended)'"),
    (("User: I live in Boston.", [],
      "User: I've been living in Denver since May.", []), "'boston' -> 'denver'"),
    (("User: I have a dog.", [],
      "User: Our dog passed away last month.", []), "'dog' -> '(ended)' (cue: passed away)"),
    (("User: I smoke a pack a day.", [],
      "User: I don't smoke anymore.", []), "'smoke' -> '(ended)'"),
    (("User: My rent is 900 dollars.", [],
      "User: My rent went up to 950 dollars.", []), "'900' -> '950'"),
    (("User: My commute is 40 minutes.", [],
      "User: My commute is down to 25 minutes now.", []), "'40' -> '25'"),
    (("Mia works at the bakery.", ["Mia"],
      "Ran into Mia, she's working at the flower shop now.", ["Mia"]),
     "'bakery' -> 'flower shop'"),
    (("Sol is on the morning rota.", ["Sol"],
      "Sol is on the evening rota now.", ["Sol"]), "'morning' -> 'evening'"),
    (("Jules boxes at Mack's on Pine.", ["Jules"],
      "Jules boxes at Pulse on 9th.", ["Jules"]), "'pulse on 9th'"),
    (("User: I swim at the Lido.", [],
      "User: I swim at Aquaworld now.", []), "'the lido' -> 'aquaworld'"),
    (("Mira trains with Olek.", ["Mira", "Olek"],
      "Mira's new trainer is Sven.", ["Mira", "Sven"]), "'olek' -> 'sven'"),
    (("Mira's trainer is Olek.", ["Mira", "Olek"],
      "Mira trains with Sven now.", ["Mira", "Sven"]), "'olek' -> 'sven'"),
    (("Rui's plumber is Tomas.", ["Rui", "Tomas"],
      "Rui hired a new plumber, Anja.", ["Rui", "Anja"]), "'tomas' -> 'anja'"),
    (("Lale is mentored by Omid.", ["Lale", "Omid"],
      "Lale's new mentor is Cem.", ["Lale", "Cem"]), "'omid' -> 'cem'"),
    (("User: I climb with Jo.", ["Jo"],
      "User: My new climbing partner is Eli.", ["Eli"]), "'jo' -> 'eli'"),
    (("Oskar teaches at Brookfield.", ["Oskar"],
      "Oskar no longer teaches at Brookfield.", ["Oskar"]), "'brookfield' -> '(ended)'"),
    (("User: I eat meat on weekends.", [],
      "User: I don't eat meat anymore.", []), "'meat' -> '(ended)'"),
    (("User: I'm a volunteer at the shelter.", [],
      "User: I'm not a volunteer anymore.", []), "'volunteer' -> '(ended)'"),
    (("User: I ride a Vespa.", [],
      "User: I traded my Vespa for an e-bike.", []), "'vespa'"),
    (("Edda reads on a Nook.", ["Edda"],
      "Edda replaced her Nook with a tablet.", ["Edda"]), "'nook'"),
    (("Tamsin's coach is Rolf.", ["Tamsin", "Rolf"],
      "Ada took over from Rolf as Tamsin's coach.", ["Ada", "Rolf", "Tamsin"]), "'rolf'"),
    (("User: I like bouldering.", [],
      "User: I prefer sea kayaking over bouldering now.", []), "'bouldering'"),
    (("Ilka's team is Orbit.", ["Ilka"],
      "Ilka moved from Orbit to Atlas.", ["Ilka"]), "'orbit' -> 'atlas'"),
    (("Jory's accountant is Mr. Vance.", ["Jory", "Mr. Vance"],
      "Ms. Adeyemi is Jory's accountant now.", ["Jory", "Ms. Adeyemi"]),
     "'mr vance' -> 'ms adeyemi'"),
    (("User: I paint on Sundays.", [],
      "User: I used to paint on Sundays; now I sculpt.", []), "'sundays'"),
    (("Wren works at Hollis.", ["Wren"],
      "Wren is working at Kestrel now.", ["Wren"]), "'hollis' -> 'kestrel'"),
    (("User: I'm staying in Braga.", [],
      "User: I stay in Porto these days.", []), "'braga' -> 'porto'"),
    (("User: My cousin teaches at Elmhurst.", [],
      "User: My cousin quit Elmhurst.", []), "'elmhurst' -> '(ended)'"),
    (("User: I report to Greta.", ["Greta"],
      "User: Quick one, I switched to Hamid as my reporter.", ["Hamid"]), "'greta' -> 'hamid'"),
    (("Ivo is a pharmacist.", ["Ivo"],
      "Ivo is a librarian.", ["Ivo"]), "'pharmacist' -> 'librarian'"),
    (("User: My physio is Dr. Amsel.", ["Dr. Amsel"],
      "User: My physio changed from Dr. Amsel to Dr. Pike.", ["Dr. Amsel", "Dr. Pike"]),
     "'dr amsel' -> 'dr pike'"),
    (("Cato's locker is B12.", ["Cato"],
      "Cato's locker has changed to C7.", ["Cato"]), "'b12' -> 'c7'"),
    (("Lin's tutor is Marek.", ["Lin", "Marek"],
      "Marek isn't Lin's tutor anymore.", ["Marek", "Lin"]), "'marek' -> '(ended)'"),
    (("Lin's tutor is Marek.", ["Lin", "Marek"],
      "Marek is no longer Lin's tutor.", ["Marek", "Lin"]), "'marek' -> '(ended)'"),
    (("User: My manager is Greta.", ["Greta"],
      "User: Greta got promoted, so Hamid is my manager now.", ["Greta", "Hamid"]),
     "'greta' -> 'hamid'"),
    (("User: My GP is Dr. Amsel.", ["Dr. Amsel"],
      "User: Dr. Pike is my GP now.", ["Dr. Pike"]), "'amsel' -> 'pike'"),
    (("Kai's tutor is Bea.", ["Kai", "Bea"],
      "Kai mentioned that Ivo is his tutor now.", ["Kai", "Ivo"]), "'bea' -> 'ivo'"),
    (("User: My GP is Dr. Amsel.", ["Dr. Amsel"],
      "User: I've moved to a new GP, Dr. Pike.", ["Dr. Pike"]), "'amsel' -> 'pike'"),
    (("User: My GP is Dr. Amsel.", ["Dr. Amsel"],
      "User: I changed my GP to Dr. Pike.", ["Dr. Pike"]), "'amsel' -> 'pike'"),
    (("User: My manager is Greta.", ["Greta"],
      "User: Hamid replaced Greta as my manager.", ["Greta", "Hamid"]), "'greta' -> '(ended)'"),
    (("Nell's husband is Piotr.", ["Nell", "Piotr"],
      "Nell and Piotr divorced.", ["Nell", "Piotr"]), "'piotr' -> '(ended)'"),
    (("Nell's husband is Piotr.", ["Nell", "Piotr"],
      "Nell separated from Piotr.", ["Nell", "Piotr"]), "'piotr' -> '(ended)'"),
    (("User: My barber is Nico.", ["Nico"],
      "User: I switched barbers.", []), "'barber' -> '(ended)'"),
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
    ("Sol is on the morning rota.", ["Sol"], "Sol is on the evening rota.", ["Sol"]),
    ("Ana lives in Oslo.", ["Ana"], "Ana lives with Kim.", ["Ana", "Kim"]),
    ("Pavel manages Ana.", ["Pavel", "Ana"], "Pavel's new manager is Tom.", ["Pavel", "Tom"]),
    ("Theo works at Northwind.", ["Theo"], "Theo's social worker is Dana.", ["Theo", "Dana"]),
    ("Mira's trainer is Olek.", ["Mira", "Olek"], "Mira trains with Sven.", ["Mira", "Sven"]),
    ("Mira trains with Olek.", ["Mira", "Olek"], "Mira's trainer is Olek.", ["Mira", "Olek"]),
    ("Lena's partner is Tariq.", ["Lena", "Tariq"],
     "Lena's new coach is Tariq.", ["Lena", "Tariq"]),
    ("Oskar teaches at Brookfield.", ["Oskar"], "Oskar no longer teaches at Hillcrest.", ["Oskar"]),
    ("Ana: My exam is on June 3.", [], "Ben: My exam is on June 9.", []),
    ("User: I paint on Sundays.", [], "User: I used to cook on Sundays.", []),
    ("Wren works at Hollis.", ["Wren"], "Wren is working at Kestrel this week.", ["Wren"]),
    ("Ayla: I live in Tromso.", [], "Ayla: I have been living in Tromso for years now.", []),
    ("Tova's sister is vegan.", ["Tova"], "Tova is no longer vegan.", ["Tova"]),
    ("User: My cousin teaches at Elmhurst.", [], "User: I quit Elmhurst.", []),
    ("The merger is pending.", [], "The merger was discussed last year.", []),
    ("The merger is pending.", [], "The merger was signed on May 3.", []),
    ("Wren works at Hollis.", ["Wren"], "Wren is thinking about Kestrel now.", ["Wren"]),
    ("User: I edit my drafts at night.", [], "User: We exchanged drafts with the editor.", []),
    ("Jo: I'll definitely keep you posted.", [],
     "Jo: Things changed. I'll surely keep you posted.", []),
    ("Jon: I'm staying calm and pushing forward.", [],
     "Jon: It all changed, but I'm staying calm and looking ahead.", []),
    ("User's phone number is 0812 5551.", [], "User's ID number is 3173 0115.", []),
    ("User's phone is vital for work.", [], "User's phone number is 0812 5551.", []),
    ("User: I ride a Vespa.", [], "User: I swapped the mirrors on the Vespa.", []),
    ("User: My flight is on May 3.", [], "User: My return flight is on May 9.", []),
    ("User: My flight is on May 3.", [], "User: My sister's flight is on May 9.", []),
    ("User: I'm a fan of jazz.", [], "User: I'm not a fan of jazz.", []),
    ("User: I'm a fan of jazz.", [], "User: My brother isn't a fan of jazz anymore.", []),
    ("Lale is mentored by Omid.", ["Lale", "Omid"], "Lale's new manager is Cem.", ["Lale", "Cem"]),
    ("Cleo's flatmate is Ravi.", ["Cleo", "Ravi"],
     "Cleo's tutor changed from Ravi to Omid.", ["Cleo", "Ravi", "Omid"]),
    ("User: I'm a nurse.", [], "User: I might become a teacher someday.", []),
    ("User: I'm a nurse.", [], "User: My sister is a teacher.", []),
    ("Lin's tutor is Marek.", ["Lin", "Marek"], "Marek is not Lin's tutor.", ["Marek", "Lin"]),
    ("Lin's tutor is Marek.", ["Lin", "Marek"], "Ola switched tutors.", ["Ola"]),
    ("User: I take the train to work.", [], "User: I changed trains at Crewe.", []),
    ("User: My barber is Nico.", ["Nico"], "User: I might switch barbers.", []),
    ("The gala is on October 4.", [], "The gala dinner moved to October 11.", []),
    ("The gala is on October 4.", [], "We talked the gala over on October 11.", []),
    ("User: My GP is Dr. Amsel.", ["Dr. Amsel"], "User: My sister's GP is Dr. Pike.", ["Dr. Pike"]),
    ("User: I replaced the filter.", [], "User: I replaced the filter as usual.", []),
    ("Nell's husband is Piotr.", ["Nell", "Piotr"],
     "Nell and Piotr separated the laundry.", ["Nell", "Piotr"]),
    ("Nell's trainer is Piotr.", ["Nell", "Piotr"], "Nell and Piotr divorced.", ["Nell", "Piotr"]),
    ("User: I have a dog.", [], "User: My neighbour's dog passed away.", []),
    ("The launch is on May 3.", [], "The launch party moved from May 3 to May 10.", []),
    ("User: I live in Boston.", [], "User: I may move to Denver in May.", []),
    ("User: I live in Boston.", [], "User: My sister has been living in Denver since May.", []),
    ("User: I live in Boston.", [], "User: I've been thinking about Denver since May.", []),
    ("User: I smoke.", [], "User: My dad doesn't smoke anymore.", []),
    ("User: I smoke.", [], "User: I don't have one anymore.", []),
    ("User: My rent is 900 dollars.", [], "User: My friend's rent went up to 1200 dollars.", []),
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
    no change word, common words in one frame are not read as a changed value, unless
    the frame says something on both sides of it (`test_a_value_between_words_...`)."""
    for older, newer in (
        ("User: I drink espresso.", "User: I drink mint tea."),
        ("User: I feel great.", "User: I feel tired."),
        ("Caroline: That sounds awesome!", "Caroline: That sounds super rewarding!"),
        ("John: Long time no see!", "John: Long time no talk!"),
    ):
        assert related(older, [], newer, []) is None, (older, newer)


def test_a_value_between_words_of_its_frame_changes_with_no_change_word() -> None:
    """ "<s> takes the _ to school": the words on both sides make it one slot."""
    older, newer = "Ilse takes the tram to school.", "Ilse takes the bus to school."
    found = related(older, ["Ilse"], newer, ["Ilse"])
    assert found is not None and "'tram' -> 'bus' (cue: none)" in found.reason
    assert meet(older, ["Ilse"], newer, ["Ilse"])
    for older, newer in (
        ("User: I love the beach in summer.", "User: I love the mountains in summer."),
        ("User: I visit the gallery on Fridays.", "User: I visit the museum on Fridays."),
        ("Ilse takes the tram to school.", "Ilse took the bus to school."),
        ("Ilse takes the tram to school.", "Ilse takes the bus to school this week."),
    ):
        assert related(older, ["Ilse"], newer, ["Ilse"]) is None, (older, newer)


def test_an_ending_without_a_new_value_invalidates() -> None:
    found = related("Ivo's coach is Lena.", ["Ivo", "Lena"], "Ivo fired his coach.", ["Ivo"])
    assert found is not None and found.relation is Relation.INVALIDATED_BY


def test_a_role_said_by_its_verb_ends_with_its_noun() -> None:
    """ "trains with" and "trainer" are one role by their stem; ending it invalidates."""
    older, newer = "Dario trains with Kofi.", "Dario doesn't have a trainer anymore."
    found = related(older, ["Dario", "Kofi"], newer, ["Dario"])
    assert found is not None and found.relation is Relation.INVALIDATED_BY
    assert "'kofi' -> '(ended)'" in found.reason
    assert meet(older, ["Dario", "Kofi"], newer, ["Dario"])
    assert related("Dario works at Kofi's.", ["Dario"], newer, ["Dario"]) is None


def test_an_attribute_the_rules_read_is_said_as_its_noun() -> None:
    """ "Noor is dating Kemal" is Noor's partner by the attribute rules: a retraction or
    a new holder of "partner" meets it; one of another noun does not."""
    dating, reports = (
        ("Noor is dating Kemal.", ["Noor", "Kemal"]),
        ("Ugo reports to Selin.", ["Ugo", "Selin"]),
    )
    for (older, entities), newer, why in (
        (dating, ("Noor doesn't have a partner anymore.", ["Noor"]), "'partner' -> '(ended)'"),
        (
            reports,
            ("Ugo switched to Baran as his manager.", ["Ugo", "Baran"]),
            "'selin' -> 'baran'",
        ),
    ):
        found = related(older, entities, *newer)
        assert found is not None and why in found.reason, (older, newer)
        assert meet(older, entities, *newer)
    assert related(*dating, "Noor no longer has a manager.", ["Noor"]) is None
    assert related(*reports, "Ugo switched to Baran as his partner.", ["Ugo", "Baran"]) is None


def test_a_couple_that_broke_up_ends_what_they_were_as_a_couple() -> None:
    """ "Hugo and Rosa broke up" ends Rosa's partner, or "Rosa is with Hugo", but not
    Rosa's personal trainer who is also Hugo (a noun that is no relation of a couple)."""
    people = ["Rosa", "Hugo"]
    for newer in ("Hugo and Rosa broke up.", "Rosa split up with Hugo."):
        for older in ("Rosa's partner is Hugo.", "Rosa is with Hugo."):
            found = related(older, people, newer, people)
            assert found is not None and found.relation is Relation.INVALIDATED_BY, older
            assert "'hugo' -> '(ended)'" in found.reason
        assert related("Rosa's personal trainer is Hugo.", people, newer, people) is None
    found = related(
        "Rosa's personal trainer is Hugo.",
        people,
        "Rosa no longer has a personal trainer.",
        ["Rosa"],
    )
    assert found is not None and found.relation is Relation.INVALIDATED_BY


def test_may_the_month_is_no_plan_and_since_may_no_part_of_a_value() -> None:
    assert "hypothetical" not in markers("i've been living in denver since may")
    assert "hypothetical" not in markers("the launch is in may, not june")
    assert "hypothetical" in markers("i may move to denver")
    assert "hypothetical" in markers("we may need a bigger flat")
    reading = read("User: I've been living in Denver since May.")
    assert reading is not None
    assert [c.words for c in reading.clauses] == [
        ("<s>", "'ve", "been", "living", "in", "denver"),
        ("<s>", "'s", "residence", "is", "denver"),
    ]


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


def test_a_surname_is_no_head() -> None:
    """ "Jonas Rasski has two goldfish" and "Jonas Rasski walks to work" share a person,
    not a frame."""
    fish = "Jonas Rasski has two goldfish."
    walk = "Jonas Rasski walks to work."
    assert not meet(fish, ["Jonas Rasski"], walk, ["Jonas Rasski"])


def test_a_value_named_as_over_may_hold_a_title_but_not_an_idiom() -> None:
    """ "from dr. lee to dr. kim" names Dr. Lee as over (a title's period ends no
    clause, and two values that share their first word are still two); "from place to
    place" names nothing."""
    found = endings("she changed from dr. lee to dr. kim.")
    assert [(e.span, e.after) for e in found] == [(("dr", "lee"), "dr kim")]
    assert endings("we drifted from place to place.") == []


def test_a_change_declared_by_its_noun_ends_only_that_noun_of_that_subject() -> None:
    """ "Ana switched dentists" ends "Ana's dentist is _", not Ana's other clauses that
    name the word, nor another person's dentist."""
    older = ("Ana's dentist is Dr. Hale.", ["Ana", "Dr. Hale"])
    assert related(*older, "Ana switched dentists.", ["Ana"]) is not None
    assert meet(*older, "Ana switched dentists.", ["Ana"])
    assert related(*older, "Ben switched dentists.", ["Ben", "Ana"]) is None
    assert related(*older, "Ana's sister switched dentists.", ["Ana"]) is None
    weekly = ("Ana sees a dentist on Fridays.", ["Ana"])
    assert related(*weekly, "Ana switched dentists.", ["Ana"]) is None


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        ("User: I live in Denver.",
         "User: Given that I live in Boston now, which neighbourhoods are good for families?",
         "'denver' -> 'boston'"),
        ("User: Tom lives in Oslo.",
         "User: Now that Tom lives in Bergen, how far is that from Oslo by train?",
         "'oslo' -> 'bergen' (cue: now)"),
        ("User: My dentist is Dr. Hale.",
         "User: Because Dr. Ruiz is my dentist now, do I need to transfer my records?",
         "'hale' -> 'ruiz'"),
        ("User: I live in Denver.",
         "User: Quick one: since I live in Boston now, is the commute bad?",
         "'denver' -> 'boston'"),
    ],
)  # fmt: skip
def test_what_a_question_takes_as_given_is_read_up_to_its_comma(
    older: str, newer: str, why: str
) -> None:
    people = ["Tom", "Dr. Hale", "Dr. Ruiz"]
    found = related(older, people, newer, people)
    assert found is not None and why in found.reason
    reading = read(newer, people)
    assert reading is not None and all("?" not in c.words for c in reading.clauses)


def test_a_question_without_a_given_clause_and_as_of_are_not_presupposed() -> None:
    people = ["Tom"]
    assert (
        related("User: Tom lives in Oslo.", people, "User: Does Tom live in Bergen now?", people)
        is None
    )
    reading = read("User: As of today Tom lives in Bergen.", people)
    assert reading is not None and reading.clauses[0].subject == "tom"


def test_a_closing_aside_to_the_listener_is_no_part_of_the_frame() -> None:
    people = ["Pia"]
    found = related(
        "User: Pia takes the bus to work.", people,
        "User: Pia takes the tram to work now, by the way.", people,
    )  # fmt: skip
    assert found is not None and "'bus' -> 'tram'" in found.reason
    reading = read("User: Pia takes the tram to work, btw.", people)
    assert reading is not None and reading.clauses[0].words[-1] == "work"


def test_a_home_rented_from_someone_names_the_landlord_a_new_one_replaces() -> None:
    people = ["Hana", "Siobhan", "Leila"]
    found = related("Hana rents from Siobhan.", people, "Hana's new landlord is Leila.", people)
    assert found is not None and "'siobhan' -> 'leila'" in found.reason
    ended = related("Hana rents from Siobhan.", people, "Hana no longer has a landlord.", people)
    assert ended is not None and ended.relation is Relation.INVALIDATED_BY


KINDS_SWITCHED: list[tuple[str, str, str]] = [
        ("Pavel plays volleyball on weekends.", "Pavel has switched to netball.",
         "'volleyball' -> 'netball'"),
        ("Bram is learning Korean.", "Bram has switched to Portuguese.",
         "'korean' -> 'portuguese'"),
        ("Pavel's usual drink is mint tea.", "Pavel just switched to rooibos.",
         "'mint tea' -> 'rooibos'"),
        ("Lucia uses a Galaxy S22.", "Lucia switched to an iPhone 13.",
         "'galaxy s22' -> 'iphone 13'"),
        ("Theo takes an e-scooter to work.", "Theo just switched to the car.",
         "'e-scooter' -> 'car'"),
        ("Theo switched to the bus.", "Theo just switched to the tram.", "'bus' -> 'tram'"),
]  # fmt: skip
"""A change said by its new value alone, against the subject's value of that kind."""


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        ("User: I'm a barista.", "User: Now that I'm a paramedic, what shifts should I expect?",
         "'barista' -> 'paramedic'"),
        ("User: I have a Kia Ceed.",
         "User: Now that I have a Volvo V60, how often should it be serviced?",
         "'kia ceed' -> 'volvo v60'"),
        ("User: Sam lives with Priya.", "User: Priya moved to Leeds, so Sam lives alone now.",
         "'with priya' -> 'alone'"),
        ("User: Tom lives alone.", "User: Tom lives with his girlfriend now.", "'alone' -> \"with"),
        ("User: My line manager is Keith.",
         "User: Keith left the company and Maria manages me now.", "'keith' -> 'maria'"),
        ("User: I go running every morning.", "User: I go swimming every morning now instead.",
         "'running' -> 'swimming'"),
        ("User: My email is sam@old.com.", "User: New email: sam@new.com.",
         "'old.com' -> 'new.com'"),
        *KINDS_SWITCHED,
    ],
)  # fmt: skip
def test_more_readings_of_one_frame(older: str, newer: str, why: str) -> None:
    people = ["Sam", "Priya", "Tom", "Keith", "Maria", "Pavel", "Bram", "Lucia", "Theo"]
    found = related(older, people, newer, people)
    assert found is not None and why in found.reason
    assert meet(older, people, newer, people)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User: I live with Tom.", "User: I travel alone."),
        ("User: I work with Ana.", "User: I work alone on Fridays."),
        ("User: My manager is Keith.", "User: Maria likes me."),
        ("User: My manager is Keith.", "User: Maria manages Keith now."),
        ("User: Sam lives with Priya.", "User: Sam lived alone for years before that."),
    ],
)
def test_alone_and_a_verb_done_to_the_speaker_stay_apart_from_other_frames(
    older: str, newer: str
) -> None:
    people = ["Tom", "Ana", "Keith", "Maria", "Sam", "Priya"]
    assert related(older, people, newer, people) is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User: I meet friends for coffee on Fridays.", "User: I switched to tea."),
        ("User: My car is a Tesla.", "User: I switched to the bus."),
        ("User: My sister plays tennis.", "User: I switched to squash."),
        ("User: I play tennis.", "User: I might switch to squash."),
        ("User: I speak Spanish.", "User: I switched to the train."),
        ("User: I play tennis.", "User: I switched to squash for the summer camp trip."),
        ("User: I play tennis.", "User: I switched to squash rackets with a firmer grip."),
    ],
)
def test_a_value_switched_to_ends_nothing_of_another_kind_subject_or_place(
    older: str, newer: str
) -> None:
    assert related(older, [], newer, []) is None


@pytest.mark.parametrize(
    ("older", "newer", "why"),
    [
        ("User: I'm on Lexapro.", "User: I'm off Lexapro now.", "'lexapro' -> '(ended)'"),
        ("User: I have a Netflix subscription.", "User: I cancelled Netflix.",
         "'netflix' -> '(ended)'"),
        ("User: I have a cat named Miso.", "User: Miso passed away last week.",
         "'miso' -> '(ended)'"),
    ],
)  # fmt: skip
def test_a_value_said_to_be_over_in_more_words(older: str, newer: str, why: str) -> None:
    people = ["Miso"]
    found = related(older, people, newer, people)
    assert found is not None and found.relation is Relation.INVALIDATED_BY
    assert why in found.reason
    assert meet(older, people, newer, people)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User: I take the train to work.", "User: I got off the train at Leeds."),
        ("User: I take the bus to work.", "User: I came off the bus at the wrong stop."),
        ("User: I drink coffee every morning.", "User: I'm off coffee for Lent."),
        ("User: I work at the bakery.", "User: I'm off work at the bakery today."),
    ],
)
def test_off_x_ends_only_on_x(older: str, newer: str) -> None:
    assert related(older, [], newer, []) is None


def test_only_a_death_ends_a_name_held_by_another_subject() -> None:
    people = ["Miso"]
    assert related("User: I have a cat named Miso.", people, "Miso left early.", people) is None
    assert (
        related("User: I have a cat named Miso.", people, "Miso knocked over a plant.", people)
        is None
    )


def test_a_parent_called_by_the_kin_word_is_the_speakers() -> None:
    found = related("User: My mum lives in Hull.", [], "User: Mum lives in York now.", [])
    assert found is not None and "'hull' -> 'york'" in found.reason
    assert related("User: Dad lives in Hull.", [], "User: I live in York now.", []) is None
    reading = read("User: Dad's car is a Ford Fiesta.", [])
    assert reading is not None and reading.clauses[0].words[:3] == ("<s>", "'s", "dad")
    named = read("User: Nan Goldin lives in New York.", ["Nan Goldin"])
    assert named is not None and named.clauses[0].subject == "nan"


def test_what_the_subject_reports_of_itself_is_its_clause() -> None:
    people = ["Ana", "Tom"]
    reading = read("User: Ana told me she lives in Milan now.", people)
    assert reading is not None and reading.clauses[0].words == ("<s>", "lives", "in", "milan")
    found = related(
        "User: Ana plays squash on Sundays.", people,
        "User: Ana told me she plays padel on Sundays now.", people,
    )  # fmt: skip
    assert found is not None and "'squash' -> 'padel'" in found.reason
    other = "User: Ana told me Tom plays padel on Sundays now."
    assert related("User: Ana plays squash on Sundays.", people, other, people) is None


def test_every_ending_said_after_its_value_holds_one_of_the_words_searched_first() -> None:
    """`ENDED_AFTER` is searched only in a sentence holding one of `ENDED_AFTER_WORDS`: each
    of its endings must hold one, or an ending would go unread."""
    from worker.consolidation.openvalues import ENDED_AFTER, ENDED_AFTER_WORDS, endings

    said = [
        "keith got married and moved away", "oskar moved out", "ravi moved away",
        "dr. lee retired", "miso passed away", "miso died", "the old car is long gone",
        "the band is gone", "the gym gone", "the diet is a thing of the past",
        "the job is history", "the project is over", "keith left", "keith quit, so",
        "keith left the company", "maria quit her job", "the coach resigned",
        "the head stepped down", "my tutor emigrated", "my tutor moved abroad",
    ]  # fmt: skip
    for sentence in said:
        assert ENDED_AFTER.search(sentence), sentence
        assert any(w in sentence for w in ENDED_AFTER_WORDS), sentence
    assert [e.how for e in endings("my tutor emigrated")] == ["emigrated"]
