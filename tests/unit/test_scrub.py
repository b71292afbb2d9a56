"""A forget removes the dead letters holding events it selects, read from each letter's
own payload: never stored, the forget found nothing of them in the store."""

import json
from pathlib import Path

import pytest

from contracts.events import RetainEvent
from contracts.forget import ForgetEvent
from sediment.forgetting import forget_event
from tests.helpers import T0, event, mid
from worker.celery_app import FEEDBACK_TASK, RETAIN_BATCH_TASK, RETAIN_TASK
from worker.deadletters import FileDeadLetters
from worker.scrub import scrub
from worker.tasks import letter

BANK = "b1"


@pytest.fixture
def letters(tmp_path: Path) -> FileDeadLetters:
    return FileDeadLetters(tmp_path / "dlq.jsonl", 100, max_payload_bytes=2048)


def dead(letters: FileDeadLetters, task: str, payload: object) -> str:
    return letters.add(letter(task, payload, ConnectionError("store down"), 4))


def as_sent(e: RetainEvent) -> dict[str, object]:
    return e.model_dump(mode="json")


def left_after(letters: FileDeadLetters, forget: ForgetEvent) -> list[str]:
    scrub(forget, [], None, letters)
    return [le.id for le in letters.list()]


def test_a_filter_forget_reads_each_condition_from_the_letter(letters: FileDeadLetters) -> None:
    crm = event("Ana's PIN is 4417.", 3, metadata={"source_id": "crm-7"})
    other = event("Ana likes jazz.", 3, metadata={"source_id": "crm-8"})
    early = event("Ana lived in Faro.", 0)
    ids = {e.text: dead(letters, RETAIN_TASK, as_sent(e)) for e in (crm, other, early)}
    assert left_after(letters, forget_event(BANK, source_id="crm-7")) == [
        ids["Ana likes jazz."],
        ids["Ana lived in Faro."],
    ]
    assert left_after(letters, forget_event(BANK, end=T0)) == [ids["Ana likes jazz."]]


def test_a_batch_letter_goes_when_one_of_its_events_is_selected(
    letters: FileDeadLetters,
) -> None:
    batch = [as_sent(event("Ana likes jazz.")), as_sent(event("Ana's PIN.", 1, tags=["pin"]))]
    dead(letters, RETAIN_BATCH_TASK, batch)
    assert left_after(letters, forget_event(BANK, tags=["pin"])) == []


def test_a_forget_by_ids_removes_a_letter_of_an_event_it_names(
    letters: FileDeadLetters,
) -> None:
    named, kept = event("Ana's PIN is 4417."), event("Ana likes jazz.", 1)
    dead(letters, RETAIN_TASK, as_sent(named))
    kept_id = dead(letters, RETAIN_TASK, as_sent(kept))
    assert left_after(letters, forget_event(BANK, memory_ids=[mid(named)])) == [kept_id]


def test_a_vote_letter_goes_with_its_bank_only(letters: FileDeadLetters) -> None:
    vote = {"bank_id": BANK, "memory_id": str(mid(event("x"))), "vote": "up"}
    vote |= {"occurred_at": T0.isoformat()}
    vote_id = dead(letters, FEEDBACK_TASK, vote)
    assert left_after(letters, forget_event(BANK, start=T0)) == [vote_id]
    assert left_after(letters, forget_event(BANK, everything=True)) == []


def test_a_letter_cut_to_a_preview_goes_with_its_bank_and_stays_for_a_filter(
    letters: FileDeadLetters,
) -> None:
    """The preview cannot be read as JSON: a forget of the bank it names removes it; a
    filter cannot tell what it holds (and it cannot be replayed)."""
    big = event("Ana's diary. " + "Dear diary, " * 400, tags=["private"])
    cut = dead(letters, RETAIN_TASK, as_sent(big))
    assert letters.list()[0].truncated
    assert left_after(letters, forget_event(BANK, tags=["private"])) == [cut]
    assert left_after(letters, forget_event("b2", everything=True)) == [cut]
    assert left_after(letters, forget_event(BANK, everything=True)) == []


def test_a_letter_of_another_bank_that_mentions_the_bank_stays(
    letters: FileDeadLetters,
) -> None:
    mention = event(f"The bank is called {BANK}.", bank="b2", tags=["private"])
    raw = dead(letters, "ingest", json.dumps({"text": f"{BANK} with no bank_id"}))
    kept = dead(letters, RETAIN_TASK, as_sent(mention))
    assert left_after(letters, forget_event(BANK, everything=True)) == [raw, kept]
