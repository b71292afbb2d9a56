"""After a forget: no copy of a forgotten event's payload stays behind on the write side.

The redelivery ledger keeps each published retain's payload until a worker settles it,
and the dead-letter stream keeps rejected payloads as sent; both are scrubbed of the
forgotten events (a still-queued retain of one is skipped as forgotten when it arrives).

A retain dead-lettered before the forget was never stored, so the forget found nothing
of it to remove; its letter goes too when the forget selects its event, read from the
letter's own payload: any letter of the bank for a forget of the whole bank, a retain
whose tags, entities, `occurred_at` and `metadata.source_id` the filter matches, a
retain the forget names by id. So `sediment dlq replay` cannot store it afterwards in
the bank that forgot it. A payload that cannot be read (cut to a preview over
SEDIMENT_DLQ_MAX_PAYLOAD_BYTES, or not JSON) is removed by a forget of its bank when
its text names the bank, and kept by a filter (nothing says what the filter would
select); such a letter cannot be replayed (`dlq replay` leaves it as it is), and a
retain the filter cannot read the fields of fails validation again when replayed. An
ingest line that named no bank (it took `--bank`) names none in its letter either.
"""

import json
import re
import uuid
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime

import pydantic

from contracts.base import AwareDatetime
from contracts.deadletter import DeadLetter
from contracts.forget import ForgetEvent, ForgetFilter
from worker.consolidation.relations import memory_id
from worker.deadletters import DeadLetters, RedisDeadLetters
from worker.forget_rules import SOURCE_ID_KEY, matches
from worker.ledger import Kind, Ledger, event_key

_TIMESTAMP: pydantic.TypeAdapter[datetime] = pydantic.TypeAdapter(AwareDatetime)


def scrub(
    event: ForgetEvent,
    forgotten: Sequence[uuid.UUID],
    ledger: Ledger | None,
    dead_letters: DeadLetters | None,
) -> int:
    """Settle the ledger entries of the events `event` forgot (`forgotten`, their event
    ids) and remove the dead letters naming them (and the bank: another bank may use
    the same event id) or holding an event `event` selects; returns how many letters
    were removed."""
    bank_id = event.bank_id
    if ledger is not None and forgotten:
        ledger.settle(Kind.RETAIN, [event_key(bank_id, e) for e in forgotten])
    if dead_letters is None:
        return 0
    wanted = [str(e) for e in forgotten]
    letters = dead_letters.list(limit=max(1, dead_letters.length()))
    doomed = [
        le.id
        for le in letters
        if le.id
        and bank_id in le.payload
        and (any(w in le.payload for w in wanted) or holds_selected(event, le))
    ]
    removed = dead_letters.remove(doomed)
    if removed and isinstance(dead_letters, RedisDeadLetters):
        dead_letters.compact()
    return removed


def holds_selected(event: ForgetEvent, letter: DeadLetter) -> bool:
    """Whether the letter holds an event of `event`'s bank that `event` selects (see
    the module doc for what a letter that cannot be read counts as)."""
    try:
        body = json.loads(letter.payload)
    except ValueError:
        return event.all_memories and _names_bank(letter.payload, event.bank_id)
    return any(selects(event, item) for item in _objects(body))


def selects(event: ForgetEvent, item: Mapping[str, object]) -> bool:
    """Whether `event` selects the event a letter's JSON object is: one of its bank, and
    for a filter or ids, a retain (it has a text) whose fields say it is selected."""
    if item.get("bank_id") != event.bank_id:
        return False
    if event.all_memories:
        return True
    if "text" not in item:
        return False
    if event.filter is not None:
        return _filtered(event.filter, item)
    named = set(event.memory_ids) | {memory_id(event.bank_id, e) for e in event.event_ids}
    found = _uuid(item.get("event_id"))
    return found is not None and memory_id(event.bank_id, found) in named


def _filtered(flt: ForgetFilter, item: Mapping[str, object]) -> bool:
    """The filter's conditions on the retain's own fields, as sent; a field the filter
    needs that does not read as the contract has it selects nothing."""
    tags, entities = _labels(item.get("tags", [])), _labels(item.get("entities", []))
    metadata = item.get("metadata", {})
    if tags is None or entities is None or not isinstance(metadata, dict):
        return False
    try:
        occurred_at = _TIMESTAMP.validate_python(item.get("occurred_at"))
    except pydantic.ValidationError:
        return False
    return matches(flt, tags, entities, occurred_at, metadata.get(SOURCE_ID_KEY))


def _objects(value: object) -> Iterator[Mapping[str, object]]:
    """Every JSON object with a `bank_id` in a payload, however it is nested (one event,
    a batch's list, a rejected message's arguments)."""
    if isinstance(value, dict):
        if "bank_id" in value:
            yield value
            return
        for inner in value.values():
            yield from _objects(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _objects(inner)


def _labels(value: object) -> list[str] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    return None


def _uuid(value: object) -> uuid.UUID | None:
    try:
        return uuid.UUID(str(value)) if value is not None else None
    except ValueError:
        return None


def _names_bank(text: str, bank_id: str) -> bool:
    """Whether a payload's text (a preview, or not JSON) has `"bank_id": "<bank_id>"`."""
    return re.search(rf'"bank_id"\s*:\s*"{re.escape(bank_id)}"', text) is not None
