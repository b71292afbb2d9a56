"""The LoCoMo loader on a tiny hand-written conversation in the official format."""

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bench.dataset import event_id
from bench.locomo import load_locomo, parse_session_time
from worker.consolidation.relations import memory_id

CONVERSATION = {
    "sample_id": "conv-t1",
    "conversation": {
        "speaker_a": "Ana",
        "speaker_b": "Ben",
        "session_1_date_time": "1:56 pm on 8 May, 2023",
        "session_1": [
            {"speaker": "Ana", "dia_id": "D1:1", "text": "I joined a pottery class!"},
            {
                "speaker": "Ben",
                "dia_id": "D1:2",
                "text": "Look at this!",
                "img_url": ["https://example.invalid/x.jpg"],
                "blip_caption": "a photo of a bowl on a table",
            },
            {"speaker": "Ana", "dia_id": "D1:3", "text": "Lovely bowl."},
        ],
        "session_2_date_time": "10:04 am on 21 June, 2023",
        "session_2": [
            {"speaker": "Ben", "dia_id": "D2:1", "text": "I moved to Lyon."},
            {"speaker": "Ana", "dia_id": "D2:2", "text": "Congrats on the move!"},
        ],
        "session_3_date_time": "9:00 am on 1 July, 2023",
    },
    "qa": [
        {
            "question": "What class did Ana join?",
            "answer": "pottery",
            "evidence": ["D1:1"],
            "category": 4,
        },
        {
            "question": "When did Ben move?",
            "answer": "June 2023",
            "evidence": ["D2:01"],
            "category": 2,
        },
        {
            "question": "What did they talk about?",
            "answer": "x",
            "evidence": ["D1:1; D2:1", "D"],
            "category": 1,
        },
        {"question": "Broken evidence only", "answer": "x", "evidence": ["D:11:26"], "category": 3},
        {
            "question": "A turn that does not exist",
            "answer": "x",
            "evidence": ["D9:9"],
            "category": 4,
        },
        {
            "question": "What did Ben say about Paris?",
            "adversarial_answer": "nothing",
            "evidence": ["D2:1"],
            "category": 5,
        },
    ],
}
OTHER = {**CONVERSATION, "sample_id": "conv-t2"}


@pytest.fixture
def locomo_file(tmp_path: Path) -> Path:
    path = tmp_path / "locomo_tiny.json"
    path.write_text(json.dumps([CONVERSATION, OTHER]), encoding="utf-8")
    return path


def test_session_time_is_utc() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_time("10:04 am on 21 June, 2023").hour == 10


def test_one_event_per_turn(locomo_file: Path) -> None:
    bs = load_locomo(locomo_file, ["conv-t1"])
    assert bs.banks == ["conv-t1"]
    texts = [e.text for e in bs.events]
    assert texts == [
        "Ana: I joined a pottery class!",
        "Ben: Look at this! [image: a photo of a bowl on a table]",
        "Ana: Lovely bowl.",
        "Ben: I moved to Lyon.",
        "Ana: Congrats on the move!",
    ]
    times = [e.occurred_at for e in bs.events]
    assert times[0] == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert (times[1] - times[0]).total_seconds() == 1
    assert times == sorted(times) and len(set(times)) == len(times)
    assert times[3] == datetime(2023, 6, 21, 10, 4, tzinfo=UTC)
    assert bs.events[3].metadata == {"dia_id": "D2:1", "session": "2"}
    assert bs.events[0].event_id == event_id("conv-t1", "D1:1")
    assert bs.labels[memory_id(bs.events[4].bank_id, bs.events[4].event_id)] == "D2:2"


def test_questions_categories_and_cleaning(locomo_file: Path) -> None:
    bs = load_locomo(locomo_file, ["conv-t1"])
    by_query = {q.query: q for q in bs.queries}
    assert by_query["What class did Ana join?"].category == "single-hop"
    assert by_query["When did Ben move?"].gold == {"D2:1"}
    assert by_query["When did Ben move?"].category == "temporal"
    assert by_query["What did they talk about?"].gold == {"D1:1", "D2:1"}
    assert "Broken evidence only" not in by_query
    assert "A turn that does not exist" not in by_query
    assert [q.category for q in bs.adversarial] == ["adversarial"]
    assert bs.counts["skipped_no_evidence"] == 2
    assert bs.counts["evidence_ids_dropped"] == 3
    last_turn = datetime(2023, 6, 21, 10, 4, 1, tzinfo=UTC)
    assert max(e.occurred_at for e in bs.events) == last_turn
    assert all(q.query_time == last_turn for q in bs.queries)


def test_all_conversations_by_default_and_unknown_ones_refused(locomo_file: Path) -> None:
    assert load_locomo(locomo_file).banks == ["conv-t1", "conv-t2"]
    with pytest.raises(ValueError, match="conv-404"):
        load_locomo(locomo_file, ["conv-404"])
