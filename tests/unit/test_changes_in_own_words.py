"""A change said in a person's own words, at query time (`readmodel.recall.changes`): the
reader's reading of a change, whose it is, and the stage over candidates."""

import pytest

from readmodel.reading import read
from readmodel.reading.grammar import first_change_word
from readmodel.recall.candidate import Candidate
from readmodel.recall.changes import changed, held_by, says_change
from readmodel.recall.order import sort_key
from readmodel.recall.outdated import outdate_older
from tests.helpers import memory


@pytest.mark.parametrize(
    ("text", "change"),
    [
        ("I switched to VS Code last month.", True),
        ("I started eating fish again.", True),
        ("I got married in May.", True),
        ("Tom's band went full punk rock this year.", True),
        ("Marco became an Inter fan.", True),
        ("I've been drinking my coffee black since January.", True),
        ("Grandpa quit smoking in March.", True),
        ("I finally upgraded to a Pixel 8.", True),
        ("We converted the garage into an office.", True),
        ("I'm back in the office full time.", True),
        ("Dana is back on nights.", True),
        ("My back hurts in the morning.", False),
        ("I came back from Rome on Sunday.", False),
        ("I'm thinking of upgrading to a Pixel 8.", False),
        ("I'm moving to Denver next month.", False),
        ("I might try eating fish next year.", False),
        ("I will switch to Emacs.", False),
        ("I didn't switch to Emacs.", False),
        ("I use Vim for all my coding.", False),
        ("We looked at a house in York over the weekend.", False),
    ],
)
def test_the_reader_reads_a_change(text: str, change: bool) -> None:
    assert any(says_change(c) for c in read(text).clauses) is change, text


def test_a_modal_is_read_as_such() -> None:
    (might,) = read("I might try eating fish next year.").clauses
    (will,) = read("I will move to Oslo.").clauses
    assert might.modal and not will.modal and will.tense == "future"


@pytest.mark.parametrize(
    ("older", "newer", "asked", "held"),
    [
        (("i",), ("i",), None, True),
        (("i", "bank"), ("i",), ("i",), True),
        (("i", "bank"), ("i",), None, False),
        (("i", "sister"), ("i",), ("i", "sister"), False),
        (("zoe", "sister amy"), ("zoe",), ("amy",), False),
        (("sara", "running shoes"), ("sara",), ("sara",), True),
        (("i",), ("we",), None, True),
        (("i",), ("i", "sister"), ("i",), False),
        (("marco",), ("marco", "son"), ("marco",), False),
        (("tom", "band"), ("tom", "band"), None, True),
        (("ana",), ("ben",), None, False),
    ],
)
def test_whose_the_change_is(
    older: tuple[str, ...], newer: tuple[str, ...], asked: tuple[str, ...] | None, held: bool
) -> None:
    assert held_by(older, newer, asked) is held


def _pair(
    old: str, new: str, old_cos: float, new_cos: float, entities: list[str] | None = None
) -> tuple[Candidate, Candidate]:
    a = Candidate(memory(old, 0, entities=entities or []), vector=old_cos, score=0.9)
    b = Candidate(memory(new, 30, entities=entities or []), vector=new_cos, score=0.3)
    return a, b


@pytest.mark.parametrize(
    ("old", "new", "old_cos", "new_cos", "entities", "replaced"),
    [
        ("I use Vim for all my coding.", "I switched to VS Code last month.", 0.5, 0.34, [], True),
        ("I am single.", "I got married in May.", 0.71, 0.63, [], True),
        ("I have an iPhone 12.", "I finally upgraded to a Pixel 8.", 0.6, 0.45, [], True),
        ("I work from home.", "I'm back in the office full time.", 0.7, 0.5, [], True),
        ("I work from home.", "My boss is back in the office full time.", 0.7, 0.5, [],
         False),
        ("I have an iPhone 12.", "I'm thinking of upgrading to a Pixel 8.", 0.6, 0.5, [],
         False),
        # the change names what changed as a thing of someone's: the question or the
        # older statement must name it too ("my accounts" is no word of either: missed)
        ("I take my coffee with milk.", "I've been drinking my coffee black since January.",
         0.76, 0.6, [], True),
        ("My bank is Chase.", "I switched my phone plan to Mint Mobile.", 0.55, 0.36, [],
         False),
        ("Tom's band plays jazz.", "Tom's band got a new drummer called Eli.", 0.63, 0.54,
         ["Tom"], False),
        ("My bank is Chase.", "I moved all my accounts over to a credit union.", 0.55, 0.44,
         [], False),
        # the newer answers the question far less well: about something else
        ("I use Vim for all my coding.", "I switched to the fast lane at the pool today.",
         0.5, 0.14, [], False),
        # another person's change
        ("I am single.", "My sister got married in May.", 0.71, 0.61, [], False),
        ("Marco supports Juventus.", "Marco's son became an Inter fan.", 0.58, 0.48,
         ["Marco"], False),
        # a plan, and a change considered and dropped
        ("I'm a vegetarian.", "I might try eating fish next year.", 0.32, 0.5, [], False),
        ("Our backend is written in Python.",
         "We talked about rewriting the backend in Go but decided against it.", 0.8, 0.7,
         [], False),
        # a name the older has no kind for: another attribute
        ("Maya loves hiking in the mountains on weekends.", "Maya lives in Seattle now.",
         0.54, 0.75, ["Maya"], False),
        ("Maya moved to Seattle for a job.", "Maya lives in Seattle now.", 0.55, 0.75,
         ["Maya"], False),
        # a change that says what it replaced replaces only that
        ("Maya loves hiking in the mountains on weekends.",
         "Maya no longer drinks coffee in the morning; she drinks green tea instead.", 0.51,
         0.8, ["Maya"], False),
        ("Maya drinks black coffee every morning.",
         "Maya no longer drinks coffee in the morning; she drinks green tea instead.", 0.7,
         0.8, ["Maya"], True),
        # a count is not replaced by a date
        ("I have 3 cats.", "I started volunteering at the shelter in May.", 0.5, 0.45, [],
         False),
        # the older's verb done again, with "re", to the same thing
        ("Our backend is written in Python.", "We rewrote the backend in Go.", 0.8, 0.7,
         [], True),
        ("The house is painted white.", "We repainted the house blue last spring.", 0.7,
         0.6, [], True),
        ("The user guide is written in English.", "We rewrote the backend in Go.", 0.5, 0.4,
         [], False),
        ("Our backend is written in Python.", "We will rewrite the backend in Go.", 0.8,
         0.7, [], False),
        # a turn of talk says several things: not this rule's to split
        ("I use Vim for all my coding.",
         "I switched to VS Code last month, and honestly the extensions are great, the "
         "remote editing works well, and my team uses it too, so sharing settings is much "
         "easier than it ever was before.", 0.5, 0.45, [], False),
    ],
)  # fmt: skip
def test_changed(
    old: str,
    new: str,
    old_cos: float,
    new_cos: float,
    entities: list[str],
    replaced: bool,
) -> None:
    a, b = _pair(old, new, old_cos, new_cos, entities)
    assert changed(a, b, max(old_cos, new_cos)) is replaced, (old, new)


def test_the_stage_puts_the_change_first_and_marks_the_old_value() -> None:
    old, new = _pair("I use Vim for all my coding.", "I switched to VS Code last month.", 0.5, 0.34)
    out = outdate_older(sorted([old, new], key=sort_key), "Which editor do I use?")
    assert [c.id for c in out] == [new.id, old.id]
    assert out[1].outdated_by == new.id and out[0].outdated_by is None


def test_a_question_about_the_past_is_left_alone() -> None:
    old, new = _pair("I use Vim for all my coding.", "I switched to VS Code last month.", 0.5, 0.34)
    out = outdate_older(sorted([old, new], key=sort_key), "Which editor did I use before?")
    assert [c.id for c in out] == [old.id, new.id]
    assert all(c.outdated_by is None for c in out)


@pytest.mark.parametrize(
    ("words", "first"),
    [
        (["i", "upgraded", "to", "a", "pixel", "8"], "upgraded"),
        (["i", "am", "back", "in", "the", "office", "now"], "back"),
        (["my", "back", "hurts"], None),
        (["we", "came", "back"], None),
        (["i", "am", "moving", "to", "denver"], None),
        ([], None),
    ],
)
def test_the_first_change_word_of_a_clause(words: list[str], first: str | None) -> None:
    assert first_change_word(words) == first
