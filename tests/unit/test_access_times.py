"""The embedded store's side record of last-access times: what `forget` removes is gone
from its files too, and a concurrent `touch` during a fold is not lost."""

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

from readmodel.stores.access import ACCESS_FILE, AccessTimes, micros

AT = datetime(2026, 3, 1, 12, 0, 0, 250, tzinfo=UTC)


def test_forgotten_entries_leave_no_trace_in_the_files_once_closed(tmp_path: Path) -> None:
    times = AccessTimes(tmp_path)
    kept, gone = uuid.uuid4(), uuid.uuid4()
    times.record("b1", [kept.int, gone.int], AT)
    times.forget("b1", [gone.int])
    times.close()
    files = list(tmp_path.glob(f"{ACCESS_FILE}*"))
    assert files
    data = b"".join(f.read_bytes() for f in files)
    assert kept.bytes in data
    assert gone.bytes not in data
    assert dict(AccessTimes(tmp_path).of_bank("b1") or {}) == {kept.int: micros(AT)}


def test_a_fold_keeps_what_was_recorded_after_its_snapshot(tmp_path: Path) -> None:
    times = AccessTimes(tmp_path)
    a, b = uuid.uuid4().int, uuid.uuid4().int
    times.record("b1", [a, b], AT)
    folded = times.snapshot()
    times.record("b1", [a], AT + timedelta(seconds=1))
    times.clear(folded)
    assert set(times.of_bank("b1") or {}) == {a}
    times.close()
    assert set(AccessTimes(tmp_path).of_bank("b1") or {}) == {a}
