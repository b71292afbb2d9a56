"""The statement reader: each stage alone, then sameness, then what `inspect` shows."""

import json

import pytest

from readmodel.reading import read, same_statement, same_values, why_not_same
from readmodel.reading.draft import Draft
from readmodel.reading.predicates import read_predicate
from readmodel.reading.roles import read_roles
from readmodel.reading.statement import Value, from_json, to_json
from readmodel.reading.subjects import read_subject
from readmodel.reading.values import read_values
from readmodel.reading.words import as_note, clauses, normalise, tokens
from sediment.render import reading_lines
from tests.helpers import memory


def _draft(text: str, entities: tuple[str, ...] = ()) -> Draft:
    return Draft(tokens(normalise(text)), None, entities)


@pytest.mark.parametrize(
    ("text", "subject"),
    [
        ("Dan works at Initech", ("dan",)),
        ("Dan's wife works at Initech", ("dan", "wife")),
        ("My neighbour's cat is called Pepper", ("i", "neighbour", "cat")),
        ("My manager's manager is Alice", ("i", "manager", "manager")),
        ("user42 lives in Miami", ("user42",)),
        ("José García works at Acme", ("josé garcía",)),
        ("The payments team owns the billing service", ("payments team",)),
        ("Mr. Hale teaches maths", ("hale",)),
    ],
)
def test_subject_is_the_chain_from_owner_to_thing(text: str, subject: tuple[str, ...]) -> None:
    assert read_subject(_draft(text)).subject == subject


def test_a_pronoun_stands_for_the_one_entity_named() -> None:
    assert read_subject(_draft("He teaches maths", ("Mr. Hale",))).subject == ("hale",)
    assert read_subject(_draft("He teaches maths", ("Hale", "Ivo"))).subject == ("he",)


def test_a_clause_with_no_subject_or_verb_says_so() -> None:
    assert read_subject(_draft("")).unread == "no words"
    drafted = read_predicate(read_subject(_draft("Pepper and the rest")))
    assert drafted.unread == "no verb after the subject"


@pytest.mark.parametrize(
    ("text", "predicate", "tense", "aspect", "polarity", "passive"),
    [
        ("Dan works at Initech", "work", "present", "simple", "positive", False),
        ("Dan is employed by Initech", "employ", "present", "simple", "positive", True),
        ("I lived in Oslo", "live", "past", "simple", "positive", False),
        ("I have lived in Oslo", "live", "present", "perfect", "positive", False),
        ("I am living in Oslo", "live", "present", "progressive", "positive", False),
        ("I will live in Oslo", "live", "future", "simple", "positive", False),
        ("Alice is my manager", "be", "present", "simple", "positive", False),
        ("I do not eat meat", "eat", "present", "simple", "negative", False),
        ("I no longer eat meat", "eat", "present", "simple", "negative", False),
        ("I hate jazz", "hate", "present", "simple", "negative", False),
        ("I started running", "run", "past", "starting", "positive", False),
        ("I stopped running", "run", "past", "ending", "positive", False),
        ("I used to smoke", "smoke", "past", "habitual", "positive", False),
        ("The meeting got cancelled", "cancel", "past", "simple", "positive", True),
    ],
)
def test_predicate_reads_verb_tense_aspect_polarity_and_voice(
    text: str, predicate: str, tense: str, aspect: str, polarity: str, passive: bool
) -> None:
    d = read_predicate(read_subject(_draft(text)))
    assert (d.predicate, d.tense, d.aspect, d.polarity, d.passive) == (
        predicate,
        tense,
        aspect,
        polarity,
        passive,
    )


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("My flight leaves at 6 pm", [Value("time", "18:00")]),
        ("My flight leaves at 18:00", [Value("time", "18:00")]),
        ("Dinner is at seven in the evening", [Value("time", "19:00")]),
        ("The conference starts on 12 Oct", [Value("date", "10-12")]),
        ("The conference starts on October 12", [Value("date", "10-12")]),
        ("The rent is $1,200 a month", [Value("quantity", "$1200")]),
        ("The rent is 1200 dollars a month", [Value("quantity", "$1200")]),
        ("The office is on the third floor", [Value("number", "3")]),
        ("The office is on the 3rd floor", [Value("number", "3")]),
        ("Rent is due on the 1st", [Value("date", "day 1")]),
        ("The deadline is May 3", [Value("date", "05-03")]),
        ("We have 2 kids", [Value("number", "2")]),
        ("We have two kids", [Value("number", "2")]),
        (
            "We are moving from Berlin to Munich",
            [Value("place", "berlin", "from"), Value("place", "munich", "to")],
        ),
        ("I see Dr. Hale", [Value("person", "hale")]),
        ("I sleep 5.5 hours a night", [Value("quantity", "330 minute")]),
        ("I walk for half an hour", [Value("quantity", "30 minute")]),
        ("I walk for 30 mins", [Value("quantity", "30 minute")]),
        ("I took a full day off", [Value("quantity", "1 day")]),
        ("I extended it to two full days", [Value("quantity", "2 day", "to")]),
        ("I need 3 more hours", [Value("quantity", "180 minute")]),
        ("I lost 5 kilos", [Value("quantity", "5 kg")]),
        ("I had a long day", []),
        ("I run twice a day", []),
        ("I run 5 km a day", [Value("quantity", "5 km")]),
        ("We have two work days left", [Value("number", "2")]),
        ("The plan costs $12.50 a month", [Value("quantity", "$12.5")]),
        ("The rent is $1,250.00 a month", [Value("quantity", "$1250")]),
        ("The rate went up by 2.5%", [Value("quantity", "2.5 %")]),
        ("The tank holds 2.0 litres", [Value("quantity", "2 litre")]),
        ("The call is at 6.30 pm", [Value("time", "18:30")]),
    ],
)
def test_values_are_typed_and_normal(text: str, values: list[Value]) -> None:
    d = read_values(read_predicate(read_subject(_draft(text))))
    assert list(d.values) == sorted(values)


def test_a_passive_with_its_agent_reads_as_its_active_but_of_a_known_thing_done() -> None:
    passive = read_roles(
        read_values(read_predicate(read_subject(_draft("My rent is paid by my employer"))))
    )
    assert passive.subject == ("i", "employer") and passive.patient == ("~i", "rent")
    done = read_roles(
        read_values(read_predicate(read_subject(_draft("The rent was raised by the landlord"))))
    )
    assert done.subject == ("rent",) and done.agent == ("landlord",) and done.passive
    active = read_roles(
        read_values(read_predicate(read_subject(_draft("The landlord raised the rent"))))
    )
    assert (active.subject, active.agent, active.passive) == (("rent",), ("landlord",), True)
    unnamed = read_roles(read_values(read_predicate(read_subject(_draft("Dan is employed")))))
    assert unnamed.subject == ("dan",) and unnamed.passive


def test_words_stage_drops_openers_and_framing_clauses_and_reads_notes() -> None:
    assert clauses(normalise("By the way, Dan works at Initech.")) == ["Dan works at Initech"]
    assert clauses(normalise("As I mentioned, we have two kids.")) == ["we have two kids"]
    assert clauses(normalise("I think I told you, but Rahul is my cousin.")) == [
        "Rahul is my cousin"
    ]
    assert as_note("CI: Node 20") == "CI is Node 20"
    assert normalise("Lina's a pilot.") == "Lina is a pilot."


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("Dan works at Initech.", "Dan's wife works at Initech."),
        ("My cat is called Pepper.", "My neighbour's cat is called Pepper."),
        ("Alice is my manager.", "Bob is Alice's manager."),
        ("I'm allergic to peanuts.", "My son is allergic to peanuts."),
        ("Alice called Bob.", "Bob called Alice."),
        (
            "The auth service depends on the user service.",
            "The user service depends on the auth service.",
        ),
        ("We're moving from Berlin to Munich.", "We're moving from Munich to Berlin."),
        ("I like hot tea.", "I like iced tea."),
        ("I live in Oslo.", "I live near Oslo."),
        ("I have two kids.", "I have three kids."),
        ("The meeting is on May 3.", "The meeting is on May 4."),
        ("My flight leaves at 6 pm.", "My flight leaves at 7 pm."),
        ("I eat meat.", "I don't eat meat."),
        ("I love jazz.", "I hate jazz."),
        ("I live in Oslo.", "I lived in Oslo."),
        ("I started running.", "I stopped running."),
        ("user42 lives in Miami.", "user7 lives in Miami."),
        ("Alice is my manager.", "Alice is your manager."),
        ("We adopted the dog.", "They adopted the dog."),
        ("Dan moved the meeting to Friday.", "Ana moved the meeting to Friday."),
        ("Last week, I moved to Oslo.", "I moved to Oslo."),
        ("The gift for Dan is a book.", "The gift for Ana is a book."),
    ],
)
def test_different_facts_never_read_the_same(a: str, b: str) -> None:
    ra, rb = read(a), read(b)
    assert not same_statement(ra, rb, verbs_may_differ=True)
    assert why_not_same(ra, rb) is not None


@pytest.mark.parametrize(
    ("a", "b", "verbs_differ"),
    [
        ("Dan works at Initech.", "Dan works for Initech.", False),
        ("Rosa resides in Porto.", "Rosa lives in Porto.", True),
        ("My flight leaves at 6 pm.", "My flight leaves at 18:00.", False),
        ("I'm allergic to peanuts.", "I am allergic to peanuts.", False),
        ("The landlord raised the rent.", "The rent was raised by the landlord.", False),
        ("Every Friday I play football.", "I play football every Friday.", False),
        ("the repo uses python 3.12", "The repo uses Python 3.12.", False),
        ("CI: Node 20", "CI uses Node 20.", True),
        ("The manager of my team is Ana.", "My team's manager is Ana.", False),
        ("As of today the project is approved.", "The project is approved as of today.", False),
        ("Side note, the launch is on May 3.", "The launch is on May 3.", False),
        ("They delayed the launch until May 3.", "The launch was delayed until May 3.", False),
        ("Update on the launch: it's delayed.", "The launch is delayed.", False),
        ("MY FLIGHT LEAVES AT 6 PM!", "My flight leaves at 6 pm.", False),
    ],
)
def test_restatements_read_the_same(a: str, b: str, verbs_differ: bool) -> None:
    ra, rb = read(a), read(b)
    assert same_statement(ra, rb, verbs_may_differ=True)
    assert same_statement(ra, rb) is not verbs_differ


def test_a_pronoun_restates_the_name_it_stands_for() -> None:
    assert same_statement(
        read("Arjun runs marathons.", ["Arjun"]), read("He runs marathons.", ["Arjun"])
    )


def test_values_of_one_key_restate_however_worded() -> None:
    assert same_values(read("Maya lives in Boston."), read("Maya's home is in Boston."))
    assert not same_values(read("Maya lives in Boston."), read("Maya lives in Denver."))


def test_a_long_text_is_not_read_as_one_statement() -> None:
    reading = read(" ".join(["Ana lives in Porto."] * 60))
    assert not reading.readable and reading.unread == "a long text, read by passage"


def test_a_long_text_is_compared_by_one_digest_of_its_words() -> None:
    """Equal content words, equal digest; one word more, another: what the stored
    reading of a long text holds instead of its hundreds of stems."""
    base = " ".join(f"Ana kept note {i} about the harbour trip." for i in range(30))
    same = base.replace("Ana kept", "ana kept")
    other = base + " Ana also liked the lighthouse."
    a, b, c = read(base), read(same), read(other)
    assert len(a.words) == 1 and same_statement(a, b) and not same_statement(a, c)
    assert len(json.dumps(to_json(a))) < 150


def test_inspect_shows_the_reading_in_words() -> None:
    record = memory("Dan's wife works at Initech.")
    [line] = reading_lines(record)
    assert line.startswith("read as: subject dan > wife; frame '<subject> works at <organisation>'")
    unread = record.model_copy(update={"text": "Pepper and the rest."})
    assert reading_lines(unread)[0].startswith("not read as a statement (no verb after the subject")


@pytest.mark.parametrize(
    ("text", "sentences"),
    [
        ("Zoe's sister Amy works at Petal & Co. as an accountant.",
         ["Zoe's sister Amy works at Petal & Co. as an accountant"]),
        ("Ben lives in Leeds. He likes it.", ["Ben lives in Leeds", "He likes it"]),
        ("I moved; she stayed.", ["I moved", "she stayed"]),
        ("Dr. Hale is my doctor!", ["Dr. Hale is my doctor"]),
    ],
)  # fmt: skip
def test_a_full_stop_before_a_word_in_lower_case_ends_no_sentence(
    text: str, sentences: list[str]
) -> None:
    assert clauses(normalise(text)) == sentences
    assert read(text).readable


@pytest.mark.parametrize(
    "text",
    [
        "Dan's wife works at Initech.",
        "The launch got moved from May 20 to June 3; the demo is at 6 pm.",
        "I might try eating fish next year.",
        "prod db: postgres 16",
        " ".join(["We talked about the roadmap and the hiring plan for the spring."] * 20),
        "",
    ],
)
def test_a_reading_survives_its_json(text: str) -> None:
    reading = read(text)
    assert from_json(json.loads(json.dumps(to_json(reading)))) == reading


@pytest.mark.parametrize(
    "stored",
    [
        [[], []],
        [[["i"]], [], None],
        [[[["i"], "be", "f", [], [["colour", "red", ""]], "positive", "present", "simple",
           None, "state", False, False, ""]], [], None],
        [[[["i"], "be", "f", [], [], "positive", "present", "simple", None, "state", 0,
           False, ""]], [], None],
        [[[["i"], "be", "f", [], [], "positive", "present", "simple", None, "state", False,
           False, "some"]], [], None],
        [[[["i"], "be", "f", [], [], "positive", "present", "simple", None, "state", False,
           False]], [], None],
        [[], [3], None],
    ],
)  # fmt: skip
def test_a_stored_reading_of_another_shape_is_refused(stored: list[object]) -> None:
    with pytest.raises((ValueError, TypeError)):
        from_json(stored)


@pytest.mark.parametrize(
    ("text", "subject", "named"),
    [
        ("The bathroom remodel is on hold.", ("bathroom remodel",), "definite"),
        ("Status of the CRM rollout: at risk.", ("crm rollout", "status"), "definite"),
        ("The deadline for Gannet is May 3.", ("gannet", "deadline"), "definite"),
        ("My visa interview is on March 4.", ("i", "visa interview"), "owned"),
        ("Dan's wife works at Initech.", ("dan", "wife"), ""),
        ("They delayed the tax filing until April 30.", ("tax filing",), "definite"),
        ("The client moved the review to June 9.", ("review",), "definite"),
        ("Now that the audit is done, can we relax?", ("audit",), "definite"),
        ("Random thing but, the CRM rollout is on hold.", ("crm rollout",), "definite"),
        ("In 2020 I moved to Berlin.", ("i",), ""),
    ],
)
def test_what_a_clause_is_said_of_and_how_it_is_named(
    text: str, subject: tuple[str, ...], named: str
) -> None:
    reading = read(text)
    assert reading.readable, reading.unread
    assert (reading.clauses[0].subject, reading.clauses[0].named) == (subject, named)


def test_what_is_read_around_a_clause_keeps_its_values_and_no_change_in_its_subject() -> None:
    """An opening adverbial keeps its date; a word of change in the subject ("the office
    move") is no change; a note that bids something be done is no note of a state; an
    inverted sentence and a numbered "two of" are not read into another subject."""
    assert [v.text for v in read("In 2020 I moved to Berlin.").clauses[0].values] == [
        "2020",
        "berlin",
    ]
    assert read("The office move is delayed.").clauses[0].change is None
    assert as_note("Plan for the party: book the venue.") is None
    assert not read("On the top shelf are the spare keys.").readable
    assert read("Two of our chickens were killed by a fox.").clauses == ()
