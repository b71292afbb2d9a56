"""Who a question asks about (`readmodel.reading.questions`), and the stage that ranks the
statements of another subject after the asked one's (`readmodel.recall.subject`)."""

import pytest

from readmodel.reading.questions import asked_subject
from readmodel.recall.subject import asked_subject_first, of_another
from tests.helpers import ranked_candidates, texts


@pytest.mark.parametrize(
    ("query", "subject"),
    [
        ("Where does Olivia live?", ("olivia",)),
        ("Where does Zoe work?", ("zoe",)),
        ("What is Sam's favorite sport?", ("sam", "favorite sport")),
        ("How old is Emma?", ("emma",)),
        ("Who is my manager?", ("i", "manager")),
        ("When did Caroline go to the support group?", ("caroline",)),
        ("Am I married?", ("i",)),
        ("Does Dan work at Initech?", ("dan",)),
        ("Is Emma still in Paris?", ("emma",)),
        ("Olivia lives in Montreal.", None),
        ("How many?", None),
    ],
)
def test_the_subject_a_question_asks_about(query: str, subject: tuple[str, ...] | None) -> None:
    assert asked_subject(query) == subject


@pytest.mark.parametrize(
    ("asked", "said", "another"),
    [
        (("olivia",), ("olivia", "brother ethan"), True),
        (("sam", "favorite sport"), ("tara", "favorite sport"), True),
        (("sam", "favorite sport"), ("sam",), False),
        (("olivia",), ("olivia",), False),
        (("olivia",), ("ethan",), False),
    ],
)
def test_of_another(asked: tuple[str, ...], said: tuple[str, ...], another: bool) -> None:
    assert of_another(asked, said) is another


def test_the_kin_of_the_asked_subject_ranks_after_the_subject() -> None:
    ranked = ranked_candidates(("Dan's wife works at Initech.", 0.9), ("Dan works at Globex.", 0.7))
    out = asked_subject_first(ranked, "Where does Dan work?")
    assert texts(out) == ["Dan works at Globex.", "Dan's wife works at Initech."]
    assert out[1].score < out[0].score


def test_the_same_thing_of_another_owner_ranks_after_the_owners_statement() -> None:
    ranked = ranked_candidates(
        ("Tara's favorite sport is tennis.", 0.9), ("Sam plays padel now.", 0.6)
    )
    out = asked_subject_first(ranked, "What is Sam's favorite sport?")
    assert texts(out) == ["Sam plays padel now.", "Tara's favorite sport is tennis."]


@pytest.mark.parametrize(
    ("rows", "query"),
    [
        pytest.param(
            [("Dan's wife works at Initech.", 0.9), ("Globex hired a new CFO.", 0.7)],
            "Where does Dan work?",
            id="nothing said of the asked subject",
        ),
        pytest.param(
            [("Ana: My sister works at Initech.", 0.9), ("Ben: I work at Globex.", 0.7)],
            "Where do I work?",
            id="a question about the asker, memories of named speakers",
        ),
        pytest.param(
            [("Ethan lives in Vancouver.", 0.9), ("Olivia lives in Montreal.", 0.7)],
            "Where does Olivia live?",
            id="another person, not the subject's",
        ),
    ],
)
def test_nothing_moves(rows: list[tuple[str, float]], query: str) -> None:
    ranked = ranked_candidates(*rows)
    assert asked_subject_first(ranked, query) == ranked


def test_a_statement_whose_verb_acts_on_the_asked_subject_is_said_of_it() -> None:
    """The reader reads "Dan is employed by Initech" as "Initech employs Dan": it still
    answers where Dan works, and the statement of Dan's wife ranks under it."""
    ranked = ranked_candidates(
        ("Dan works at Initech.", 0.9),
        ("Dan's wife works at Initech.", 0.9),
        ("Dan is employed by Initech.", 0.4),
    )
    out = asked_subject_first(ranked, "Where does Dan work?")
    assert texts(out) == [
        "Dan works at Initech.",
        "Dan is employed by Initech.",
        "Dan's wife works at Initech.",
    ]


def test_a_question_about_the_asker_meets_what_i_say_of_myself() -> None:
    """With no speaker named, "I" in a memory is the asker: "My sister got married"
    is said of the sister and ranks under "I am single" for "Am I married?"."""
    ranked = ranked_candidates(("My sister got married in May.", 0.9), ("I am single.", 0.7))
    out = asked_subject_first(ranked, "Am I married?")
    assert texts(out) == ["I am single.", "My sister got married in May."]


def test_a_thing_of_the_asker_the_question_names_is_said_of_the_asker() -> None:
    """ "My bank is Chase" answers "Which bank do I use?": the question names the bank,
    so it is the asker's own thing, not someone else, and stays above what the asker
    says of something else."""
    ranked = ranked_candidates(
        ("My bank is Chase.", 0.9), ("I switched my phone plan to Mint.", 0.7)
    )
    assert asked_subject_first(ranked, "Which bank do I use?") == ranked
    ranked = ranked_candidates(("My sister's bank is HSBC.", 0.9), ("My bank is Chase.", 0.8))
    out = asked_subject_first(ranked, "Which bank do I use?")
    assert texts(out) == ["My bank is Chase.", "My sister's bank is HSBC."]
