"""The frame alignment's shortcut (`openupdates._one_replaced_run`) gives what the full
alignment gives, whenever it gives anything."""

from difflib import SequenceMatcher

from hypothesis import given, settings
from hypothesis import strategies as st

from worker.consolidation.openupdates import _one_replaced_run

WORDS = st.lists(st.sampled_from(["<s>", "lives", "in", "a", "b", "c", "x"]), max_size=8)


def aligned(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[int, int, int, int] | None:
    ops = [op for op in SequenceMatcher(None, a, b, False).get_opcodes() if op[0] != "equal"]
    return ops[0][1:] if len(ops) == 1 and ops[0][0] == "replace" else None


@settings(max_examples=3000, deadline=None)
@given(WORDS, WORDS)
def test_the_shortcut_agrees_with_the_alignment(a: list[str], b: list[str]) -> None:
    found = _one_replaced_run(tuple(a), tuple(b))
    if found is not None:
        assert found == aligned(tuple(a), tuple(b))


def test_the_shortcut_takes_a_value_said_in_place_of_another() -> None:
    old = ("<s>", "dalski", "lives", "in", "porto")
    assert _one_replaced_run(old, (*old[:4], "lyon")) == (4, 5, 4, 5)
    assert _one_replaced_run(old, ("<s>", "dalski", "lives", "in", "new", "york")) == (4, 5, 4, 6)
    assert _one_replaced_run(old, ("<s>", "works", "in", "porto")) == (1, 3, 1, 2)


def test_the_shortcut_leaves_a_run_with_shared_words_to_the_alignment() -> None:
    assert _one_replaced_run(("<s>", "x", "a"), ("<s>", "a", "x")) is None
    assert _one_replaced_run(("<s>", "a"), ("<s>", "a", "b")) is None
