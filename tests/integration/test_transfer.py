"""Export -> import into an empty deployment gives the identical read model (ids,
states, edges, observations, tombstones); importing twice changes nothing."""

import hashlib
import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from contracts.events import RetainEvent
from readmodel.store import Filter, MemoryStore
from sediment.bootstrap import Runtime, bootstrap
from sediment.forgetting import forget
from sediment.settings import Settings
from sediment.transfer import export_lines, import_lines
from tests.helpers import mid

pytestmark = pytest.mark.integration
BANK = "transfer"
T0 = datetime(2024, 1, 1, tzinfo=UTC)
WORLD = [
    ("Alice lives in Boston.", 0, "Alice.city"),
    ("Alice's home is in Boston.", 1, "Alice.city"),
    ("Alice moved to Seattle.", 2, None),
    ("Alice drinks coffee every morning.", 0, None),
    ("Every morning Alice drinks coffee.", 1, None),
    ("Alice no longer drinks coffee every morning.", 3, None),
    ("Alice keeps a diary.", 4, None),
]


def events() -> list[RetainEvent]:
    return [
        RetainEvent(
            event_id=uuid.UUID(int=i + 1),
            bank_id=BANK,
            text=text,
            occurred_at=T0 + timedelta(days=day),
            entities=["Alice"],
            tags=["family"],
            key=key,
            metadata={"source_id": f"doc-{i}"},
        )
        for i, (text, day, key) in enumerate(WORLD)
    ]


def model(store: MemoryStore, bank: str) -> list[tuple[object, ...]]:
    rows = []
    for p in store.scroll(Filter(bank)):
        r = p.record
        rows.append(
            (
                str(r.id),
                r.kind,
                r.text,
                r.state.value,
                str(r.superseded_by),
                str(r.relation),
                str(r.observation_id),
                tuple(getattr(r, "source_memory_ids", ())),
                getattr(r, "proof_count", None),
                tuple(r.tags),
                tuple(r.entities),
                r.key,
                tuple(sorted(r.metadata.items())),
                r.occurred_at,
            )
        )
    return sorted(rows, key=str)


def runtime(path: Path) -> Runtime:
    return bootstrap(Settings(_env_file=None, mode="embedded", data_dir=path))  # type: ignore[call-arg]


def test_export_import_is_identical_and_idempotent(tmp_path: Path) -> None:
    source = runtime(tmp_path / "a")
    all_events = events()
    source.publisher.publish_retain(all_events)
    forget(
        source.publisher,
        BANK,
        memory_ids=[mid(all_events[-1])],
    )
    expected = model(source.store, BANK)
    lines = list(export_lines(source.store, source.tombstones, BANK, datetime.now(UTC)))
    source.close()
    assert "Alice keeps a diary" not in "\n".join(lines)
    assert {"observation", "superseded"} <= {x for row in expected for x in row[1:4]}

    target = runtime(tmp_path / "b")
    done = import_lines(target.publisher, lines)
    assert (done.events, done.stored, done.tombstones) == (6, 6, 1)
    assert model(target.store, BANK) == expected
    again = import_lines(target.publisher, lines)
    assert again.stored == 0 and model(target.store, BANK) == expected
    assert target.publisher.publish_retain([all_events[-1]]) == 0
    assert [t.memory_id for t in target.tombstones.of_bank(BANK)] == [mid(all_events[-1])]
    other = import_lines(target.publisher, lines, bank="copy")
    assert other.stored == 6 and len(model(target.store, "copy")) == len(expected)
    target.close()


def without_ids(rows: list[tuple[object, ...]]) -> list[tuple[object, ...]]:
    """What a row says apart from the ids (the memory's, its superseder's, its
    observation's and members'), which differ between banks."""
    return sorted(
        (tuple(v for i, v in enumerate(row) if i not in (0, 4, 6, 7)) for row in rows), key=str
    )


def test_import_into_another_bank_of_the_same_deployment_copies(tmp_path: Path) -> None:
    """The source bank keeps every memory (ids derive from bank and event id), the copy
    holds the same model under its own ids, and its tombstones hold in the copy."""
    rt = runtime(tmp_path / "a")
    all_events = events()
    rt.publisher.publish_retain(all_events)
    forget(rt.publisher, BANK, memory_ids=[mid(all_events[-1])])
    expected = model(rt.store, BANK)
    lines = list(export_lines(rt.store, rt.tombstones, BANK, datetime.now(UTC)))
    assert import_lines(rt.publisher, lines, bank="copy").stored == 6
    chained = list(export_lines(rt.store, rt.tombstones, "copy", datetime.now(UTC)))
    assert import_lines(rt.publisher, chained, bank="copy-2").stored == 6
    assert model(rt.store, BANK) == expected
    for bank in ("copy", "copy-2"):
        copied = model(rt.store, bank)
        assert without_ids(copied) == without_ids(expected)
        assert not {row[0] for row in copied} & {row[0] for row in expected}
        forgotten = all_events[-1].model_copy(update={"bank_id": bank})
        assert rt.publisher.publish_retain([forgotten]) == 0
    rt.close()


@pytest.fixture(scope="module")
def exported(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A bank of six memories and one tombstone, exported."""
    source = runtime(tmp_path_factory.mktemp("source"))
    all_events = events()
    source.publisher.publish_retain(all_events)
    forget(source.publisher, BANK, memory_ids=[mid(all_events[-1])])
    lines = list(export_lines(source.store, source.tombstones, BANK, datetime.now(UTC)))
    source.close()
    return lines


def test_the_export_ends_with_a_trailer_counting_and_checksumming_the_lines(
    exported: list[str],
) -> None:
    *records, last = exported
    trailer = json.loads(last)
    assert json.loads(records[0])["version"] == 2
    assert trailer["type"] == "trailer"
    assert trailer["counts"] == {"retain": 6, "tombstone": 1}
    body = "".join(line + "\n" for line in records).encode("utf-8")
    assert trailer["sha256"] == hashlib.sha256(body).hexdigest()


BAD_EVENT = '{"type": "retain", "event": {"text": 1}}'


def _cut_before_tombstones(lines: list[str]) -> list[str]:
    """What a stream that failed while reading tombstones delivered."""
    return [line for line in lines if '"type": "retain"' in line or '"format"' in line]


def _edited(lines: list[str]) -> list[str]:
    return [lines[0], lines[1].replace("Alice", "Alicia"), *lines[2:]]


@pytest.mark.parametrize(
    ("spoil", "words"),
    [
        (lambda lines: lines[:-1], "the file has no trailer"),
        (_cut_before_tombstones, "the file has no trailer"),
        (lambda lines: [lines[0], *lines[2:]], 'the trailer counts {"retain": 6, "tombstone": 1}'),
        (lambda lines: [lines[0], *lines[2:]], "but the file holds retain=5, tombstone=1"),
        (_edited, "the trailer's sha256"),
        (_edited, "the file was changed after the export"),
        (lambda lines: [*lines, lines[1]], "line 10: a record after the trailer (line 9)"),
        (lambda lines: [*lines[:2], lines[1], *lines[2:]], "line 3: event_id"),
        (
            lambda lines: [lines[0], '{"type": "retain", "event": {"text": 1}}'],
            "line 2: not a valid",
        ),
        (lambda lines: [lines[0], "{not json"], "line 2: not JSON"),
        (lambda lines: [], "the file is empty"),
    ],
)
def test_an_import_refuses_a_file_that_is_not_whole_and_writes_nothing(
    exported: list[str], tmp_path: Path, spoil: Callable[[list[str]], list[str]], words: str
) -> None:
    target = runtime(tmp_path)
    try:
        with pytest.raises(ValueError) as refused:
            import_lines(target.publisher, spoil(list(exported)))
        assert words in str(refused.value)
        assert model(target.store, BANK) == []
        assert target.tombstones.of_bank(BANK) == []
        assert target.audit_log.read(BANK, 10) == []
    finally:
        target.close()


def test_a_file_without_a_trailer_is_imported_when_the_check_is_off(
    exported: list[str], tmp_path: Path
) -> None:
    """A version 1 export (before trailers): `sediment import --no-trailer-check`."""
    header = json.loads(exported[0]) | {"version": 1}
    target = runtime(tmp_path)
    try:
        lines = [json.dumps(header), *exported[1:-1]]
        with pytest.raises(ValueError, match="written before version 2"):
            import_lines(target.publisher, lines)
        done = import_lines(target.publisher, lines, check_trailer=False)
        assert (done.events, done.stored, done.tombstones) == (6, 6, 1)
    finally:
        target.close()
