"""The speaker a question names: that speaker's memories rise by a factor, the other
speaker's replies and memories without a speaker are untouched, and a question that
names no speaker changes nothing."""

from dataclasses import replace
from pathlib import Path

import pytest

from contracts.recall import RecallRequest, RecallResponse, RecallResult
from readmodel.embedders.hashing import HashEmbedder
from readmodel.recall.candidate import Candidate
from readmodel.recall.config import RecallConfig
from readmodel.recall.pipeline import RecallPipeline
from readmodel.recall.speaker import (
    ASSISTANT_ROLES,
    USER_ROLES,
    lift_named,
    named_speakers,
    roles_named,
    speaker_note,
)
from readmodel.stores.edge import EdgeStore
from readmodel.text import speaker, tokens
from tests.fakes import NoLocks
from tests.helpers import event, memory
from worker.consolidation.consolidator import Consolidator, consolidate


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Melanie: We went camping.", "melanie"),
        ("  Jon : Opening night is tomorrow.", "jon"),
        ("Note: the meeting moved.", None),
        ("Update: Ana lives in Porto.", None),
        ("Melanie went camping: it rained.", None),
        ("melanie: lowercase is not a name", None),
        ("Time 10:30 is fine", None),
    ],
)
def test_speaker_is_the_name_a_text_opens_with(text: str, expected: str | None) -> None:
    assert speaker(text) == expected


def speaker_match(cands: list[Candidate], query: str, weight: float) -> list[Candidate]:
    """The pipeline's speaker stage: the speakers the question names, lifted."""
    return lift_named(cands, named_speakers(query, cands), weight)


def recall_both(
    tmp_path: Path, texts: list[str], query: str
) -> tuple[list[RecallResult], list[RecallResult], RecallResponse]:
    """The same bank recalled with speaker match on and off, and explained with it on."""
    emb = HashEmbedder(64)
    store = EdgeStore(tmp_path)
    store.ensure_schema(emb.dimension)
    consolidate([event(t, i) for i, t in enumerate(texts)], Consolidator(store, emb, NoLocks()))
    request = RecallRequest(query=query, limit=2)
    on = RecallPipeline(store, emb).recall("b1", request.model_copy(update={"explain": True}))
    off = RecallPipeline(store, emb, RecallConfig(speaker_weight=0.0)).recall("b1", request)
    return on.results, off.results, on


def cand(text: str, score: float) -> Candidate:
    return Candidate(memory(text), score=score)


def scores(cands: list[Candidate]) -> dict[str, float]:
    return {c.record.text: c.score for c in cands}


def test_the_named_speaker_rises_past_the_other_speaker() -> None:
    mel = cand("Melanie: We roasted marshmallows on the hike.", 0.5)
    reply = cand("Caroline: Wow Melanie, hikes with family are the best!", 0.7)
    plain = cand("The hike was in June.", 0.6)
    out = scores(speaker_match([mel, reply, plain], "What does Melanie do on hikes?", 0.8))
    assert out["Melanie: We roasted marshmallows on the hike."] == pytest.approx(0.5 * 1.8)
    assert out["Caroline: Wow Melanie, hikes with family are the best!"] == pytest.approx(0.7)
    assert out["The hike was in June."] == pytest.approx(0.6)


def test_a_possessive_names_the_speaker_and_two_names_lift_both() -> None:
    a = cand("Nate: I love my turtles.", 0.4)
    b = cand("Joanna: Turtles are calming.", 0.4)
    c = cand("Tim: I read fantasy.", 0.4)
    found = named_speakers("What animal do both Nate and Joanna's friends like?", [a, b, c])
    assert found == {"nate", "joanna"}
    out = scores(speaker_match([a, b, c], "What animal do both Nate and Joanna like?", 1.0))
    assert out == {
        "Nate: I love my turtles.": pytest.approx(0.8),
        "Joanna: Turtles are calming.": pytest.approx(0.8),
        "Tim: I read fantasy.": pytest.approx(0.4),
    }


def test_no_named_speaker_or_zero_weight_changes_nothing() -> None:
    cands = [cand("Melanie: Pottery is calming.", 0.5), cand("Caroline: Nice pottery!", 0.6)]
    assert speaker_match(cands, "Who took a pottery class?", 0.8) == cands
    assert speaker_match(cands, "What does Melanie make?", 0.0) == cands


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("What is my weekly word count target?", USER_ROLES),
        ("When did I say I met Laura?", USER_ROLES),
        ("I'm wondering what deadline I set", USER_ROLES),
        ("How did you recommend structuring my writing process?", ASSISTANT_ROLES),
        ("What approach did you suggest for the resume?", ASSISTANT_ROLES),
        ("Which library had you recommended?", ASSISTANT_ROLES),
        ("the schedule you suggested for my mornings", ASSISTANT_ROLES),
        ("Can you summarize how my project progressed?", USER_ROLES),
        ("Can you give me a summary of the sprint?", USER_ROLES),
        ("How should I approach editing my draft?", USER_ROLES),
        ("How did I organize the tasks over the sprint?", frozenset()),
        ("how have I been handling the deadlines", frozenset()),
        ("What does Melanie do on hikes?", frozenset()),
        ("Could you list the deadlines?", frozenset()),
    ],
)
def test_a_transcripts_roles_are_named_by_the_questions_person(
    query: str, expected: frozenset[str]
) -> None:
    assert roles_named(query, set(tokens(query))) == expected


def test_a_first_person_question_lifts_the_users_turns_not_the_assistants() -> None:
    user = cand("User: I'm targeting 1,200 words per week.", 0.4)
    reply = cand("Assistant: A weekly word count target of 1,200 words is realistic.", 0.6)
    named = cand("Melanie: I write 500 words a day.", 0.5)
    out = scores(speaker_match([user, reply, named], "What is my weekly word count target?", 0.8))
    assert out == {
        "User: I'm targeting 1,200 words per week.": pytest.approx(0.4 * 1.8),
        "Assistant: A weekly word count target of 1,200 words is realistic.": pytest.approx(0.6),
        "Melanie: I write 500 words a day.": pytest.approx(0.5),
    }


def test_a_question_about_what_you_said_lifts_the_assistants_turns() -> None:
    user = cand("User: My app keeps hitting the rate limit on retries.", 0.6)
    reply = cand("Assistant: Queue the calls and back off exponentially.", 0.5)
    query = "How did you recommend managing my app's retries?"
    assert named_speakers(query, [user, reply]) == {"assistant"}
    out = scores(speaker_match([user, reply], query, 0.8))
    assert out["Assistant: Queue the calls and back off exponentially."] == pytest.approx(0.9)
    assert out["User: My app keeps hitting the rate limit on retries."] == pytest.approx(0.6)


def test_a_first_person_question_in_a_bank_of_named_speakers_changes_nothing() -> None:
    cands = [cand("Melanie: I painted a sunset.", 0.5), cand("Caroline: I love it!", 0.6)]
    assert speaker_match(cands, "What did I say about the sunset?", 0.8) == cands


def test_default_is_on() -> None:
    cfg = RecallConfig()
    assert cfg.speaker_weight > 0
    assert replace(cfg, speaker_weight=0.0).speaker_weight == 0.0


def test_pipeline_ranks_the_named_speakers_turn_first(tmp_path: Path) -> None:
    on, off, _ = recall_both(
        tmp_path,
        [
            "Caroline: Melanie, your painting of the sunset at the lake is lovely!",
            "Melanie: I painted a sunset.",
        ],
        "What did Melanie paint at the lake?",
    )
    assert on[0].text == "Melanie: I painted a sunset."
    assert off[0].text.startswith("Caroline:")


def test_pipeline_answers_a_first_person_question_with_the_users_turn(tmp_path: Path) -> None:
    on, off, explained = recall_both(
        tmp_path,
        [
            "User: My weekly word count target is 1,350 words.",
            "Assistant: A weekly word count target of 1,350 words fits your schedule: "
            "aim for a daily word count near 200 and track the weekly target.",
        ],
        "What is my weekly word count target?",
    )
    assert on[0].text.startswith("User:")
    assert off[0].text.startswith("Assistant:")
    notes = {s.stage: s.note for s in explained.explain or []}
    assert notes["speaker"] == "x 1.8: user"


def test_the_speaker_note_says_whom_the_question_named() -> None:
    assert speaker_note(frozenset({"user"}), 0.8) == "x 1.8: user"
    assert speaker_note(frozenset({"nate", "joanna"}), 1.0) == "x 2: joanna, nate"
    assert speaker_note(frozenset(), 0.8) == "the question names no speaker"
