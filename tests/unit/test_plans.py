"""States before plans (`readmodel.recall.plans`): for a question about the present, what
the asked subject plans, wants or may do ranks under what is so of them."""

import pytest

from readmodel.recall.plans import states_before_plans
from tests.helpers import ranked_candidates, texts


@pytest.mark.parametrize(
    ("plan", "state", "query"),
    [
        ("I might try eating fish next year.", "I'm a vegetarian.", "What is my diet like?"),
        ("I'm going to move to Berlin.", "I live in Leeds.", "Where do I live?"),
        ("Dan will join Globex in May.", "Dan works at Initech.", "Where does Dan work?"),
        (
            "We looked at a house in York over the weekend.",
            "I'm renting a flat in Leeds.",
            "Where do I live?",
        ),
        ("Dan visited Globex on Monday.", "Dan works at Initech.", "Where does Dan work?"),
    ],
)
def test_what_is_so_ranks_above_what_is_planned(plan: str, state: str, query: str) -> None:
    out = states_before_plans(ranked_candidates((plan, 0.9), (state, 0.6)), query)
    assert texts(out) == [state, plan]
    assert out[1].score < out[0].score


@pytest.mark.parametrize(
    ("rows", "query"),
    [
        pytest.param(
            [("I'm going to move to Berlin.", 0.9), ("I live in Leeds.", 0.6)],
            "Where will I live next year?",
            id="a question about plans",
        ),
        pytest.param(
            [("My sister might move to Berlin.", 0.9), ("I live in Leeds.", 0.6)],
            "Where do I live?",
            id="someone else's plan",
        ),
        pytest.param(
            [("I might move to Berlin.", 0.9), ("I am going to sell my flat.", 0.6)],
            "Where do I live?",
            id="nothing said to be so",
        ),
        pytest.param(
            [("Ana: I'm going to move to Berlin.", 0.9), ("Ben: I live in Leeds.", 0.6)],
            "Where do I live?",
            id="other speakers",
        ),
        pytest.param(
            [("We looked at a house in York last weekend.", 0.9), ("I live in Leeds.", 0.6)],
            "Where did I go last weekend?",
            id="a question about the past wants what happened",
        ),
        pytest.param(
            [
                ("We adopted a second dog, a beagle named Pepper.", 0.9),
                ("We have a golden retriever named Biscuit.", 0.6),
            ],
            "Do we have a beagle?",
            id="a happening that names what the question asks",
        ),
        pytest.param(
            [("I moved to York in May.", 0.9), ("I live in Leeds.", 0.6)],
            "Where do I live?",
            id="a happening that says a change",
        ),
    ],
)
def test_nothing_moves(rows: list[tuple[str, float]], query: str) -> None:
    ranked = ranked_candidates(*rows)
    assert states_before_plans(ranked, query) == ranked
