"""What a question asks for, what a memory answers it with, and the outdated stage that
reads both: a long turn that mentions the new count among other facts still answers."""

import pytest

from readmodel.recall.answers import answer, answering, question
from readmodel.recall.candidate import Candidate
from readmodel.recall.order import sort_key
from readmodel.recall.outdated import outdate_older
from tests.helpers import memory


@pytest.mark.parametrize(
    ("query", "types"),
    [
        ("How many sources are in my Zotero library?", {"number", "quantity"}),
        ("What is the test coverage percentage of my API module?", {"number", "quantity"}),
        ("When is my Zoom call with the creative director scheduled?", {"date", "time"}),
        ("What deadline should I aim for?", {"date", "time"}),
        ("What time is the Zoom meeting with Professor Danielle?", {"time"}),
    ],
)
def test_the_question_words_name_the_type_asked(query: str, types: set[str]) -> None:
    asked = question(query)
    assert asked is not None and asked.types == types


def test_a_question_naming_no_type_asks_none() -> None:
    assert question("Where does Dana live?") is None
    assert question("What editor do I use?") is None


def test_the_sentence_sharing_the_question_words_answers() -> None:
    asked = question("How many sources are in my Zotero library?")
    assert asked is not None
    long_turn = (
        "User: I'm kinda struggling with my essay, which is due on May 15 and has 3 parts. "
        "I've added 52 sources to my Zotero library, how can I organize them? ->-> 2,22"
    )
    assert answer(asked, long_turn) == frozenset({"52"})
    assert answer(asked, "User: I bought 3 apples today.") is None
    assert answer(asked, "User: My Zotero library is a mess.") is None


def test_thousands_are_one_number_and_a_pair_of_small_numbers_is_two() -> None:
    asked = question("How many words does my final essay draft contain?")
    assert asked is not None
    assert answer(asked, "User: My final essay draft has 4,700 words.") == frozenset({"4700"})
    counting = question("What is the word count of my final essay draft?")
    assert counting is not None and counting.counted is None
    found = answer(counting, "User: My final essay draft word count ->-> 2,14")
    assert found == frozenset({"2", "14"})


@pytest.mark.parametrize(
    ("query", "counted"),
    [
        ("How many conditional probability problems have I been practicing?", "problem"),
        ("How many mechanical sketches have I completed so far?", "sketch"),
        ("How many total hours have I spent studying?", "minute"),
        ("How many full days did I take off?", "day"),
        ("How many did I buy?", None),
        ("How many days passed between the launch and the review?", None),
        ("What is the test coverage percentage of my API module?", None),
    ],
)
def test_how_many_names_what_it_counts(query: str, counted: str | None) -> None:
    asked = question(query)
    assert asked is not None and asked.counted == counted


def test_a_count_of_the_asked_thing_is_replaced_only_by_another_count_of_it() -> None:
    query = "How many conditional probability problems have I been practicing for accuracy?"
    asked = question(query)
    assert asked is not None
    old = "User: I've increased my practice to 12 conditional probability problems for accuracy."
    other = "User: For accuracy I practice conditional probability: a sum of 7 with two dice."
    new = "User: I now practice 15 conditional probability problems a day for accuracy."
    said, noise = answering(asked, old), answering(asked, other, newer=True)
    assert said is not None and said.counts and said.values == frozenset({"12"})
    assert noise is not None and not noise.counts
    kept = outdate_older(_ranked((old, 1, 0.9), (other, 5, 0.8)), query)
    assert all(c.outdated_by is None for c in kept)
    out = outdate_older(_ranked((old, 1, 0.9), (other, 5, 0.8), (new, 6, 0.7)), query)
    by_text = {c.record.text: c for c in out}
    assert by_text[old].outdated_by == by_text[new].id
    hours = question("How many total hours have I spent studying probability basics?")
    assert hours is not None
    said = answering(hours, "User: My probability basics study sessions are 4 hours in total.")
    assert said is not None and said.counts and said.values == frozenset({"240 minute"})


def _ranked(*rows: tuple[str, int, float]) -> list[Candidate]:
    return sorted(
        (Candidate(memory(text, day), score=score) for text, day, score in rows), key=sort_key
    )


def test_a_newer_turn_answering_another_count_ranks_first_and_outdates_the_older() -> None:
    old = "User: My Zotero library has 45 sources now, tagged by theme and date, which is great."
    new = "User: I've added 52 sources to my Zotero library, how can I organize them for my essay?"
    ranked = _ranked((old, 1, 0.9), (new, 5, 0.6), ("User: I like tea.", 2, 0.5))
    out = outdate_older(ranked, "How many sources are in my Zotero library?")
    assert [c.record.text for c in out[:2]] == [new, old]
    assert out[1].outdated_by == out[0].id and out[0].outdated_by is None


def test_a_question_in_the_past_tense_asking_for_the_latest_is_about_the_present() -> None:
    old = "User: Scott's recent math test score was 68%, can I help him improve?"
    new = "User: Scott got a 72% score on his recent math test, is that good enough?"
    out = outdate_older(
        _ranked((old, 1, 0.9), (new, 5, 0.6)),
        "What score did Scott achieve on his most recent math test?",
    )
    assert [c.record.text for c in out] == [new, old] and out[1].outdated_by == out[0].id


def test_every_newer_value_ranks_above_the_value_it_replaced() -> None:
    """Two later turns give new values of what the oldest answered: both rank above it,
    and it points to the newest."""
    old = "User: I have a deadline of April 1, 2024, for the first sprint on the basic layout."
    middle = "User: The first sprint deadline on the basic layout is now April 3, 2024."
    new = "User: The deadline for the first sprint on the layout is April 5, 2024, at last."
    ranked = _ranked((old, 1, 0.9), ("User: I like tea.", 2, 0.8), (middle, 3, 0.7), (new, 5, 0.6))
    out = outdate_older(ranked, "What is the deadline for the first sprint on the basic layout?")
    texts = [c.record.text for c in out]
    assert texts.index(new) < texts.index(old) and texts.index(middle) < texts.index(old)
    assert out[texts.index(old)].outdated_by == out[texts.index(new)].id


@pytest.mark.parametrize(
    ("old", "new", "query"),
    [
        pytest.param(
            "User: My Zotero library has 45 sources.",
            "User: My Zotero library still has 45 sources, I checked.",
            "How many sources are in my Zotero library?",
            id="the newer repeats the value",
        ),
        pytest.param(
            "User: My Zotero library has 45 sources.",
            "Assistant: A Zotero library with 60 sources is easy to organize.",
            "How many sources are in my Zotero library?",
            id="another speaker",
        ),
        pytest.param(
            "User: My Zotero library has 45 sources.",
            "User: My Zotero library had 52 sources before the cleanup.",
            "How many sources did my Zotero library have before?",
            id="a question about the past",
        ),
        pytest.param(
            "User: My Zotero library has 45 sources.",
            "User: My Zotero library had 52 sources before the cleanup.",
            "How many sources did my Zotero library have at first?",
            id="a question about the past in the past tense",
        ),
        pytest.param(
            "User: I met 7 new contacts at the leadership luncheon.",
            "User: I met 15 new contacts at the business expo.",
            "How many new contacts have I met in total at the luncheon and the expo?",
            id="a question adding values up",
        ),
        pytest.param(
            "User: My Zotero library has 45 sources.",
            "User: I read 52 pages of my novel today.",
            "How many sources are in my Zotero library?",
            id="the newer answers something else",
        ),
        pytest.param(
            "User: My $12.99/month Canva Pro subscription might not make my resume ATS ready.",
            "User: How can I use my savings for a rental in London at a cost of £1,800/month?",
            "How much does my subscription to the service I use for my resume cost each month?",
            id="the two answer with the question's words for other things",
        ),
    ],
)
def test_no_change_stays_current(old: str, new: str, query: str) -> None:
    out = outdate_older(_ranked((old, 1, 0.9), (new, 5, 0.6)), query)
    assert all(c.outdated_by is None for c in out)


def test_the_words_that_only_name_the_type_are_no_attribute() -> None:
    asked = question("What time should I join the Zoom meeting with Professor Danielle?")
    assert asked is not None and "time" not in asked.about
    kept = question("How much time do I spend on my thesis each week?")
    assert kept is not None and "time" in kept.about


def test_a_change_said_in_passing_answers_with_fewer_of_the_question_words() -> None:
    """The new value, said as a change, shares only two of the question's words; the
    statement it replaces shares most of them."""
    query = (
        "What is the deadline for completing the first sprint on the basic layout and navigation?"
    )
    old = (
        "User: I have a deadline of April 1, 2024, for the first sprint, which covers the "
        "basic layout and navigation of my portfolio website."
    )
    new = "User: I need to reflect the new sprint deadline of April 5, 2024, on my Trello board."
    same_words = "User: The sprint deadline of April 5, 2024, is on my Trello board."
    asked = question(query)
    assert asked is not None
    assert answer(asked, new) is None
    assert answer(asked, new, newer=True) == frozenset({"2024-04-05"})
    assert answer(asked, same_words, newer=True) is None  # says no change
    out = outdate_older(_ranked((old, 1, 0.9), (new, 5, 0.5)), query)
    assert [c.record.text for c in out] == [new, old] and out[1].outdated_by == out[0].id


@pytest.mark.parametrize(
    ("new", "says_a_change"),
    [
        ("User: My count of mentees in the portfolio has increased to 7 this year.", True),
        ("User: The mentees in my portfolio went up to 7 after the spring cohort.", True),
        ("User: Mentees in my portfolio dropped to about 4 over the summer.", True),
        ("User: My portfolio shows 7 mentees I cut to size for the page.", False),
        ("User: My portfolio mentees increased by 7 percent in visibility.", False),
    ],
)
def test_an_amount_said_by_what_it_rose_or_fell_to_is_a_change(
    new: str, says_a_change: bool
) -> None:
    """ "has increased to 7" says a change as "now" does: as the newer of two it answers
    with two of the question's words."""
    query = "How many women have I highlighted as mentees in my portfolio to showcase my mentoring?"
    asked = question(query)
    assert asked is not None
    assert answer(asked, new) is None
    assert (answer(asked, new, newer=True) is not None) is says_a_change


def test_a_decimal_value_is_a_value_and_its_change_outdates_the_older() -> None:
    """ "5.5 hours" is read as "6 hours" is: the newer average, said beside the same target,
    answers with another value."""
    old = "User: I've been averaging 5.5 hours of sleep nightly, but I want 7 hours by April."
    new = "User: I've been averaging 6.5 hours of sleep nightly, but I'm aiming for 7 hours."
    out = outdate_older(
        _ranked((old, 1, 0.9), (new, 5, 0.6)),
        "How many hours of sleep have I been averaging each night recently?",
    )
    assert [c.record.text for c in out] == [new, old] and out[1].outdated_by == out[0].id


def test_a_memory_giving_the_asked_value_ranks_above_one_giving_none() -> None:
    """The older names the job the question names but no salary; the newer gives one: it
    ranks first, and neither is marked (the older states no value to replace)."""
    job = "User: I'm worried my current job as a senior engineer at Acme Works leaves no time."
    raise_ = "User: How will my recent raise to $80,000 as a senior engineer at Acme Works help?"
    tea = "User: I like tea."
    out = outdate_older(
        _ranked((job, 1, 0.9), (tea, 2, 0.8), (raise_, 5, 0.6)),
        "What is my annual salary as a senior engineer at Acme Works?",
    )
    assert [c.record.text for c in out] == [raise_, job, tea]
    assert all(c.outdated_by is None for c in out)
    assert out[0].score > out[1].score > out[2].score


def test_a_span_between_two_events_is_counted_from_dates_and_keeps_its_order() -> None:
    first = "User: My research trip to Jamestown starts on March 3."
    counted = "User: I have 3 cafes in Jamestown to work from on the research trip."
    ranked = _ranked((first, 1, 0.9), (counted, 2, 0.6))
    query = "How many days will I be in Jamestown from the start of my research trip until I leave?"
    assert [c.record.text for c in outdate_older(ranked, query)] == [first, counted]


def test_a_question_about_the_span_between_two_events_outdates_neither() -> None:
    """It wants both: the start of one challenge and the end of the other."""
    query = (
        "How many days passed between when I started my 30-day editing challenge and when "
        "I completed the 15-day clarity editing challenge?"
    )
    first = "User: I've entered a 30-day editing challenge starting April 2, any advice?"
    second = "User: I completed the 15-day clarity editing challenge from May 10 to May 25."
    out = outdate_older(_ranked((first, 1, 0.9), (second, 40, 0.8)), query)
    assert [c.record.text for c in out] == [first, second]
    assert all(c.outdated_by is None for c in out)


def test_what_an_amount_rose_to_counts_what_the_sentence_is_about() -> None:
    """ "went up to 7" is the new count of the mentees, though no noun follows the number:
    it replaces "5 women" counted for the question."""
    query = "How many women have I highlighted as mentees in my portfolio to showcase my mentoring?"
    old = "User: I highlighted 5 women as mentees in my portfolio to showcase my mentoring."
    new = "User: The mentees in my portfolio went up to 7 after the spring cohort."
    asked = question(query)
    assert asked is not None and asked.counted == "women"
    found = answering(asked, new, newer=True)
    assert found is not None and found.counts and found.values == frozenset({"7"})
    out = outdate_older(_ranked((old, 1, 0.9), (new, 5, 0.6)), query)
    assert [c.record.text for c in out] == [new, old] and out[1].outdated_by == out[0].id


def test_daily_and_annual_ask_what_per_day_and_per_year_say() -> None:
    asked = question("What is the daily call quota for my API key?")
    assert asked is not None and "day" in asked.about
    said = answering(asked, "User: My API key allows 1000 calls/day under the quota.")
    assert said is not None and said.values == frozenset({"1000"})
    salary = question("What is my annual salary?")
    assert salary is not None and "year" in salary.about


def test_a_value_of_another_kind_replaces_nothing() -> None:
    """A share and a span said near the question's words are no new quota."""
    query = "What is the daily call quota for the API key used in my application?"
    old = "User: I updated my API key settings to the new daily quota of 1,200 calls per day."
    other = (
        "User: My application reached 99.9% uptime over 7 days with no API quota breaches, "
        "and the daily calls stayed low."
    )
    new = "User: My API key's daily quota is now 1,500 calls, so the application can poll more."
    kept = outdate_older(_ranked((old, 1, 0.9), (other, 5, 0.8)), query)
    assert all(c.outdated_by is None for c in kept)
    out = outdate_older(_ranked((old, 1, 0.9), (other, 5, 0.8), (new, 6, 0.7)), query)
    by_text = {c.record.text: c for c in out}
    assert by_text[old].outdated_by == by_text[new].id


@pytest.mark.parametrize(
    ("query", "newer", "short"),
    [
        (
            "How many interviews have I secured for executive producer roles this season?",
            "User: How can I use the fact that I secured 5 interviews to get callbacks?",
            True,
        ),
        # another kind of the counted thing: "classification problems" asked
        (
            "How many classification problems have I completed, and what accuracy rate "
            "have I maintained in identifying triangle types?",
            "User: I've completed 12 problems on triangle area and my accuracy is up.",
            False,
        ),
        # a number made an adjective counts what follows: a section's words
        (
            "How many words does my final essay draft contain?",
            "User: I'll add a 500-word literature review section to the essay.",
            False,
        ),
    ],
)
def test_a_newer_count_said_in_passing_must_count_the_asked_thing(
    query: str, newer: str, short: bool
) -> None:
    """Said in passing, with few of the question's words, a newer count answers only when
    it counts what the question counts, of the kind it names, and not as an adjective."""
    asked = question(query)
    assert asked is not None
    assert (answering(asked, newer, newer=True) is not None) is short
