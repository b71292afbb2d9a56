"""LoCoMo (snap-research/LoCoMo, official JSON format) mapped to retain events and queries.

One bank per conversation (bank id = `sample_id`), one event per dialogue turn, event
time from the session's date (turns one second apart, in order). Each turn carries the
two turns before it in its session as `context`: a reply ("Yes, every Sunday!") is found
by what it answers, and is still shown and scored as itself (one turn of context: 0.691
recall@10 on the dev file; two: 0.724). The data is never
copied into the project: the harness reads any file in the official format by path.
"""

import json
import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.dataset import ADVERSARIAL, BenchQuery, BenchSet, event_id, label_map
from contracts.events import RetainEvent

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: ADVERSARIAL}
SESSION_TIME_FORMAT = "%I:%M %p on %d %B, %Y"
DIA_ID = "dia_id"
CONTEXT_TURNS = 2
_EVIDENCE = re.compile(r"D(\d+):(\d+)")
_SESSION = re.compile(r"session_(\d+)")


def evidence_parts(raw: Iterable[str]) -> list[str]:
    """ "D8:6; D9:17" is two ids."""
    return [p for entry in raw for p in re.split(r"[;,\s]+", str(entry)) if p]


def canonical_evidence(part: str) -> str | None:
    """ "D30:05" -> "D30:5"; None for a broken id ("D", "D:11:26")."""
    m = _EVIDENCE.fullmatch(part)
    return f"D{int(m.group(1))}:{int(m.group(2))}" if m else None


def clean_evidence(raw: Iterable[str]) -> list[str]:
    """Canonical `D<session>:<turn>` ids, broken ones dropped, order kept, no duplicates."""
    out: list[str] = []
    for part in evidence_parts(raw):
        canonical = canonical_evidence(part)
        if canonical and canonical not in out:
            out.append(canonical)
    return out


def parse_session_time(text: str) -> datetime:
    """ "1:56 pm on 8 May, 2023" as UTC (LoCoMo dates carry no zone)."""
    return datetime.strptime(text.strip(), SESSION_TIME_FORMAT).replace(tzinfo=UTC)


def turn_text(turn: Mapping[str, Any]) -> str:
    text = f"{turn['speaker']}: {turn['text']}"
    caption = turn.get("blip_caption")
    return f"{text} [image: {caption}]" if caption else text


def sessions(conversation: Mapping[str, Any]) -> list[tuple[int, datetime, list[Any]]]:
    """(number, start time, turns) of every session that has turns, in session order."""
    found = []
    for key, turns in conversation.items():
        m = _SESSION.fullmatch(key)
        if m and isinstance(turns, list) and turns:
            n = int(m.group(1))
            found.append((n, parse_session_time(conversation[f"session_{n}_date_time"]), turns))
    return sorted(found, key=lambda s: s[0])


def last_turn_time(sessions_: Sequence[tuple[int, datetime, list[Any]]]) -> datetime | None:
    """Questions are asked after the whole conversation: at its last turn's time, so a
    query time that is honoured (`as_of`) hides none of the conversation."""
    if not sessions_:
        return None
    _, start, turns = sessions_[-1]
    return start + timedelta(seconds=len(turns) - 1)


def conversation_events(sample: Mapping[str, Any]) -> list[RetainEvent]:
    bank = str(sample["sample_id"])
    events = []
    for n, start, turns in sessions(sample["conversation"]):
        texts = [turn_text(turn) for turn in turns]
        for i, turn in enumerate(turns):
            dia_id = str(turn[DIA_ID])
            events.append(
                RetainEvent(
                    event_id=event_id(bank, dia_id),
                    bank_id=bank,
                    text=texts[i],
                    context=" ".join(texts[max(0, i - CONTEXT_TURNS) : i]) or None,
                    occurred_at=start + timedelta(seconds=i),
                    metadata={DIA_ID: dia_id, "session": str(n)},
                )
            )
    return events


def conversation_queries(
    sample: Mapping[str, Any], known: set[str]
) -> tuple[list[BenchQuery], int, int]:
    """Queries with at least one valid evidence id that names a turn of the conversation;
    also how many were skipped and how many evidence ids were dropped."""
    bank = str(sample["sample_id"])
    query_time = last_turn_time(sessions(sample["conversation"]))
    queries: list[BenchQuery] = []
    skipped = dropped = 0
    for i, qa in enumerate(sample.get("qa", [])):
        parts = evidence_parts(str(e) for e in qa.get("evidence", []))
        gold = frozenset(e for e in clean_evidence(parts) if e in known)
        dropped += sum(1 for p in parts if canonical_evidence(p) not in gold)
        if not gold:
            skipped += 1
            continue
        category = CATEGORIES.get(int(qa.get("category", 0)), f"category-{qa.get('category')}")
        queries.append(
            BenchQuery(f"{bank}/q{i}", bank, str(qa["question"]), gold, category, query_time)
        )
    return queries, skipped, dropped


def load_locomo(path: Path, conversations: Sequence[str] | None = None) -> BenchSet:
    samples = json.loads(path.read_text(encoding="utf-8"))
    if conversations:
        wanted = set(conversations)
        missing = wanted - {str(s["sample_id"]) for s in samples}
        if missing:
            raise ValueError(f"no conversation {', '.join(sorted(missing))} in {path}")
        samples = [s for s in samples if str(s["sample_id"]) in wanted]
    events: list[RetainEvent] = []
    queries: list[BenchQuery] = []
    skipped = dropped = 0
    for sample in samples:
        conv_events = conversation_events(sample)
        events.extend(conv_events)
        found, s, d = conversation_queries(sample, {e.metadata[DIA_ID] for e in conv_events})
        queries.extend(found)
        skipped += s
        dropped += d
    return BenchSet(
        name=path.name,
        events=events,
        labels=label_map(events, DIA_ID),
        queries=[q for q in queries if q.category != ADVERSARIAL],
        adversarial=[q for q in queries if q.category == ADVERSARIAL],
        category_order=tuple(CATEGORIES.values()),
        mapping={"context": f"the {CONTEXT_TURNS} turns before each turn in its session"},
        counts={
            "conversations": len(samples),
            "skipped_no_evidence": skipped,
            "evidence_ids_dropped": dropped,
        },
    )
